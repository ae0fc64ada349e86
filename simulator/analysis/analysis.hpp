#pragma once
// Lifetimes of a graph's tensors as ggml's plan gave them, read off the plan's trace (the
// allocator's own allocations, hand-overs and frees: never worked out again from the graph),
// and what they bound: the peak of live bytes (no plan without in-place reuse can do better)
// and the total when nothing is reused.
//
// Steps: step 0 is the start, where leafs and graph inputs get memory; step i + 1 is
// nodes[i] running. A node's output is live at its own step together with its parents,
// which are released after it runs; a view keeps its root alive; outputs, and tensors
// nobody releases, stay to the last step. In-place reuse is not assumed: each tensor is
// live from its own allocation (or the step it took a parent's memory over) to its own
// release (or the step a node took its memory over). Tensors with external data (`data:
// true`) and views need no memory of their own and get no lifetime.

#include "simulator/model/graph_file.hpp"
#include "simulator/trace/timeline.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gallocsim {

inline constexpr int kStartStep = 0;

// Bytes that must stay put from step `first` to step `last` (inclusive).
struct LiveBlock {
    std::string name;
    int first = 0;
    int last = 0;
    std::size_t size = 0;
    std::size_t alignment = 1;  // its offset must be a multiple of this

    bool lives_with(const LiveBlock& other) const { return first <= other.last && other.first <= last; }
    bool live_at(int step) const { return first <= step && step <= last; }
};

// Blocks that share one address space (one arena: a buffer type, or a MiniMalloc file).
struct ArenaProblem {
    std::string name;
    std::vector<LiveBlock> blocks;
    // Per block, the tensor whose place is the block's place, when that is not the block's
    // name (a joined in-place chain "a+mul" is where a is); empty when every name is a tensor.
    std::vector<std::string> placed_as{};

    const std::string& tensor_of(std::size_t block) const { return placed_as.empty() ? blocks[block].name : placed_as[block]; }
};

struct PeakUsage {
    std::size_t bytes = 0;
    int step = 0;  // the first step where the peak is reached
};

// Peak over steps of the bytes of the blocks live at that step (each rounded up to its
// alignment): no placement of these blocks can need less.
PeakUsage lower_bound(std::span<const LiveBlock> blocks);
// Every block in its own region, one after another (each start aligned).
std::size_t no_reuse_size(std::span<const LiveBlock> blocks);
// Bytes live at each step 0 .. step_count-1 (sizes rounded up to alignment).
std::vector<std::size_t> live_bytes_per_step(std::span<const LiveBlock> blocks, int step_count);

// Why a tensor's lifetime ends where it does.
enum class LifetimeEnd {
    last_consumer,  // released after its last consumer ran
    last_view,      // released after the consumers of its last view ran
    output,         // a graph output: never released
    never_released, // nothing ever releases it (no consumers, or a view that is never done)
};

struct TensorLifetime {
    TensorId tensor = kNoTensor;
    int buffer_id = 0;  // the buffer id it got memory in
    int arena = 0;      // its buffer type (index into buffer_types): ids of one type share an arena
    std::size_t size = 0;          // the buffer type's alloc size
    std::size_t aligned_size = 0;  // rounded up to the buffer type's alignment
    int first = 0;
    int last = 0;
    LifetimeEnd end = LifetimeEnd::last_consumer;
};

struct GraphLifetimes {
    int step_count = 0;                   // 1 + number of nodes
    std::vector<TensorLifetime> tensors;  // in the order ggml allocates them
    std::vector<std::size_t> entry_of;    // per tensor id, its index in `tensors` (or none)

    static constexpr std::size_t kNoEntry = SIZE_MAX;
    const TensorLifetime* find(TensorId tensor) const;
};

// The lifetimes of the last plan a trace holds (a trace of a file holds one), from its
// timeline. `file` is the graph the trace was recorded on (for each buffer id's type).
GraphLifetimes plan_lifetimes(const GraphFile& file, const Trace& trace, const Timeline& timeline);

// What holds a tensor's memory to the end of its lifetime, in words, as every report says it:
// "until its last consumer mul (node step 1)", "until its last view is done (node step 3)",
// "a graph output: never freed", "never released (nothing reads it after)", "nothing reads it: it could
// be left out of the graph (...)" for a tensor no node reads. Empty for a tensor
// without a lifetime (a view, external data).
std::string lifetime_end_text(const Trace& trace, const GraphLifetimes& lifetimes, TensorId tensor);

// "start" for step 0, else the name of the node that runs at the step.
std::string step_label(const GraphFile& file, int step);

// One problem per buffer type of the file (in buffer_types order; empty when no tensor
// uses it): each tensor's aligned size over its lifetime, aligned as its type.
std::vector<ArenaProblem> arena_problems(const GraphFile& file, const GraphLifetimes& lifetimes);

} // namespace gallocsim
