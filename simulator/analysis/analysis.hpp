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
    // The tensor whose place is the block's place (a joined in-place chain "a+mul" is where a
    // is); kNoTensor for a block of no graph (a MiniMalloc file's).
    TensorId tensor = kNoTensor;

    bool lives_with(const LiveBlock& other) const { return first <= other.last && other.first <= last; }
    bool live_at(int step) const { return first <= step && step <= last; }
};

// Blocks that share one address space (one arena: a buffer type, or a MiniMalloc file).
struct ArenaProblem {
    std::string name;
    std::vector<LiveBlock> blocks;
};

// The bytes a block holds from its offset: its size, no more. An alignment says where a block
// may start (offset % alignment == 0), not how many bytes it takes, as in MiniMalloc (its
// validator checks the offset's alignment and measures a buffer's height as offset + size).
// A graph's blocks need no padding here: they carry ggml's alloc size already rounded up to
// their buffer type's alignment (block_of), as ggml's allocator rounds it. The planners, the
// checker's view of their plans and the bounds all read a block's bytes here, so no bound
// can pad a block that the planners do not.
inline std::size_t block_bytes(const LiveBlock& block) { return block.size; }

// The arena a placement of `blocks` at `offsets` needs: the highest end of a non-empty block.
std::size_t arena_height(std::span<const LiveBlock> blocks, std::span<const std::size_t> offsets);

struct PeakUsage {
    std::size_t bytes = 0;
    int step = 0;  // the first step where the peak is reached
};

// Peak over steps of what the blocks live at that step must span, stacked: no placement of
// these blocks can need less. Every offset is a multiple of g, the greatest common divisor of
// the blocks' alignments, so in address order each live block but the highest is followed by
// one at least its block_bytes rounded up to g further on; the highest needs only its bytes.
// At a step that is the rounded sizes' sum less the largest rounding among them (with every
// alignment 1, or sizes that are multiples of it, the plain sum of live bytes).
PeakUsage lower_bound(std::span<const LiveBlock> blocks);
// Every block in its own region, one after another (each start aligned).
std::size_t no_reuse_size(std::span<const LiveBlock> blocks);
// Bytes live at each step 0 .. step_count-1 (block_bytes of the blocks live there).
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

// A tensor as a block of its buffer type's arena: its alloc size rounded up to the type's
// alignment (the bytes ggml's allocator takes for it), live over its lifetime, its offset
// aligned as its type. The one place a graph's blocks get their size, for the bounds and the
// planners alike (in_place_arena_problems joins these).
LiveBlock block_of(const GraphFile& file, const TensorLifetime& lifetime);

// One problem per buffer type of the file (in buffer_types order; empty when no tensor
// uses it): each tensor's block_of.
std::vector<ArenaProblem> arena_problems(const GraphFile& file, const GraphLifetimes& lifetimes);

} // namespace gallocsim
