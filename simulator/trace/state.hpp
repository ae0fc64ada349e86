#pragma once
// The allocator's whole state at a position of a trace, rebuilt from the trace's events
// alone (the allocator is not run again): per allocator its chunks' free lists and
// high-water marks and the backend buffer it got; per tensor its hash-node record and
// where its memory stands. apply(state at k, event k) gives the state at k + 1.

#include "reference/graph_allocator.hpp"
#include "simulator/trace/cow_vector.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gallocsim {

// Where a tensor's memory stands.
enum class TensorLife : std::uint8_t {
    none,         // no memory from the allocator: not planned yet, a view, or external
    live,         // holds memory in the allocator's buffer
    handed_over,  // a node took its memory in place and lives on in it
    freed,        // its memory went back to the free list
};

struct TensorState {
    HashNode record;  // the reference's hash node, field for field
    TensorLife life = TensorLife::none;
    bool kept_as_output = false;       // would have been freed, but outputs never are
    TensorId in_place_of = kNoTensor;  // the tensor whose memory this node took over
    TensorId handed_to = kNoTensor;    // the node that took this tensor's memory over
    std::optional<Placement> placement;  // where alloc_graph put it (views too)
    std::uint64_t data = 0;              // the address alloc_graph gave it: chunk base + offset
    bool operator==(const TensorState&) const = default;
};

struct AllocatorState {
    std::vector<Chunk> chunks;  // as the DynamicAllocator's: free lists and high-water marks
    std::size_t live_bytes = 0;  // aligned bytes in use
    std::optional<std::vector<std::size_t>> buffer;  // chunk sizes of the backend buffer, once allocated
    bool operator==(const AllocatorState&) const = default;
};

struct SimState {
    std::size_t position = 0;  // events applied
    // A plan has started. Before one, a placement (TensorInitialised) is of a plan made
    // elsewhere (an alloc_graph that kept another graph's plan): it gives the tensor memory
    // as an allocation would, and the chunk is known as far as the tensors placed in it
    // reach; the bytes below that no tensor holds are free.
    bool planned = false;
    CowVector<TensorState> tensors;
    std::vector<AllocatorState> allocators;
    bool operator==(const SimState&) const = default;

    const TensorState& tensor(TensorId id) const { return tensors[static_cast<std::size_t>(id)]; }
    const AllocatorState& allocator_of(const Trace& trace, int buffer_id) const {
        return allocators.at(static_cast<std::size_t>(trace.buffer(buffer_id).allocator));
    }
};

// Before the first event: no chunks, no records.
SimState initial_state(const Trace& trace);

// Applies trace.events[state.position] and advances the position. Throws std::logic_error
// when the event does not fit the state (a trace that was not recorded from a run).
void apply_next(SimState& state, const Trace& trace);

// The state after the first `position` events, replayed from the start.
SimState replay(const Trace& trace, std::size_t position);

// Memory figures at one position. "Free" counts only the holes below the high-water mark:
// the tail beyond it costs nothing.
struct MemoryStats {
    std::size_t live_bytes = 0;    // aligned bytes held by tensors
    std::size_t high_water = 0;    // bytes the plan needs so far (sum over chunks)
    std::size_t free_bytes = 0;    // free bytes below the high-water mark
    std::size_t largest_free = 0;  // the largest free block below the high-water mark
    // How scattered the free bytes are, not how many: 1 - largest_free / free_bytes (0: the free
    // bytes are one hole, or none; near 1: many small holes). One big hole reads 0.
    double fragmentation = 0.0;
    bool operator==(const MemoryStats&) const = default;
    // How many bytes the holes waste: free bytes below the high-water mark as a share of it.
    double hole_share() const { return high_water == 0 ? 0.0 : static_cast<double>(free_bytes) / static_cast<double>(high_water); }
};

MemoryStats memory_stats(const AllocatorState& allocator);
MemoryStats memory_stats(const SimState& state);  // all allocators together
std::size_t live_bytes(const SimState& state);

// Tensors that hold memory right now, in file order.
std::vector<TensorId> live_tensors(const SimState& state);

} // namespace gallocsim
