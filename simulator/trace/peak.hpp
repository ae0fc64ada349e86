#pragma once
// Where each buffer's size was set, read off a trace: the event at which the buffer's
// high-water mark (its chunks together) first reached the size the plan ends with, the
// tensors that held memory there, and the holes below the high-water mark then, each with
// the free that left it. This is the answer to "why is my compute buffer this big?": the
// buffer is as large as what was live at that event plus the holes between.

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gallocsim {

struct PeakTensor {
    TensorId tensor = kNoTensor;
    std::size_t bytes = 0;  // aligned bytes it held
    BufferAddress address;
};

struct PeakHole {
    int chunk = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
    std::optional<std::size_t> left_by;  // the event (index) whose free left it; none: never used yet
};

struct BufferPeak {
    int buffer_id = 0;  // the lowest buffer id of the allocator
    std::size_t size = 0;                  // the high-water marks of its chunks together at the end of planning
    std::vector<std::size_t> chunk_sizes;  // each chunk's high-water mark
    std::optional<std::size_t> event;      // the event (index) that set the size; none when nothing was planned (a trace that only places)
    std::vector<PeakTensor> live;          // at that event, largest first
    std::vector<PeakHole> holes;           // below the high-water mark at that event, in address order

    std::size_t live_bytes() const;
    std::size_t hole_bytes() const;
};

// One per allocator (buffer ids of one buffer type share one), in allocator order.
std::vector<BufferPeak> buffer_peaks(const Trace& trace);

// The node step of an event: 0 before the first node runs (leafs, inputs, the counting
// pass), i when graph.nodes[i - 1] is running, node_count after the last.
std::size_t node_step(const Trace& trace, const TraceEvent& event);

} // namespace gallocsim
