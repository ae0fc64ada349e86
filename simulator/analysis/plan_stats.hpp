#pragma once
// Memory figures of a whole plan, as data and in words: `stats` prints the words (its table of
// rows is laid out by the command) and writes the data as JSON. Read off one replay of the trace.

#include "simulator/trace/state.hpp"
#include "simulator/trace/trace.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gallocsim {

// The state after one event.
struct StatsRow {
    std::size_t event = 0;  // counted from 1
    EventKind kind{};
    std::size_t node_step = 0;
    MemoryStats memory;
};

struct BufferHighWater {
    int buffer = 0;
    std::size_t bytes = 0;
};

struct PlanStats {
    std::size_t peak_live = 0;
    std::size_t peak_live_event = 0;  // counted from 1; 0: nothing was ever live
    double worst_fragmentation = 0.0;
    std::size_t worst_fragmentation_event = 0;  // counted from 1; 0: never fragmented
    std::array<std::size_t, kEventKindCount> kinds{};
    std::array<std::size_t, 3> choices{};  // allocations by BlockChoice: best fit, from a tail, new chunk
    MemoryStats at_end;
    std::vector<BufferHighWater> high_water_per_buffer;  // the allocators' buffers, in id order
    // The holes below each buffer's high-water mark at the event that set its size (trace/peak),
    // all buffers together: what the plan wastes, as `why` tells hole by hole.
    std::size_t holes_at_size = 0;
    std::size_t size = 0;  // the buffers' sizes together, at those events
    std::vector<StatsRow> rows;  // one per event, when asked for

    std::size_t count(EventKind kind) const { return kinds[static_cast<std::size_t>(kind)]; }
    std::size_t allocations() const;
    double holes_share() const;
};

// One replay of `trace`; `on_event(position)` after each event (a progress line).
PlanStats plan_stats(const Trace& trace, bool with_rows, const std::function<void(std::size_t)>& on_event = {});

// The state of memory in one sentence's middle: "96 bytes live, high-water mark 160 bytes, 64
// bytes free below it, 40.0 % of it in holes (largest hole 64, fragmentation 0.00)".
std::string memory_text(const MemoryStats& memory);

// The whole plan in words, a heading and its lines (front ends indent them):
//   "Whole plan (42 events, 7 node steps):"
//   "peak live bytes: 2048 bytes (2.00 KiB) at event 20 (node step 4, node-allocated mul)", ...
struct PlanStatsWords {
    std::string heading;
    std::vector<std::string> lines;
};
PlanStatsWords plan_stats_words(const Trace& trace, const PlanStats& stats);

} // namespace gallocsim
