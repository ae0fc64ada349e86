#include "simulator/trace/state.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gallocsim {
namespace {

[[noreturn]] void inconsistent(const SimState& state, const std::string& what) {
    throw std::logic_error("trace event " + std::to_string(state.position + 1) + ": " + what);
}

// Replays the events of one trace on one state, by what each does (its effect); each
// handler mirrors what the reference did when it emitted such an event.
class Replayer {
public:
    Replayer(SimState& state, const Trace& trace) : state_(state), trace_(trace) {}

    template <class Kind>
    void operator()(const Kind& e) {
        apply(e.does());
    }

private:
    void apply(const Recorded<effect::None>&) {}

    void apply(const Recorded<effect::StartsPlan>&) {
        state_.planned = true;
        // Every plan starts afresh (the reference resets its hash table and allocators);
        // the backend buffers stay until they are replaced.
        state_.tensors.assign(trace_.tensors.size(), TensorState{});
        for (AllocatorState& allocator : state_.allocators) {
            allocator.chunks.clear();
            allocator.live_bytes = 0;
        }
    }

    void apply(const Recorded<effect::CountsUses>& e) {
        HashNode& record = tensor(e.tensor).record;
        if (e.children) {
            record.children = *e.children;
        }
        if (e.views) {
            record.views = *e.views;
        }
    }

    void apply(const Recorded<effect::CreatesChunk>& e) {
        auto& chunks = allocator(e.buffer_id).chunks;
        if (e.chunk != static_cast<int>(chunks.size())) {
            inconsistent(state_, "chunk " + std::to_string(e.chunk) + " created after " + std::to_string(chunks.size()));
        }
        chunks.push_back(Chunk{{FreeBlock{0, e.size}}, 0});
    }

    void apply(const Recorded<effect::Allocates>& e) {
        const BlockTaken& taken = trace_.taken(e);
        AllocatorState& target = allocator(e.buffer_id);
        take(chunk(target, taken.address.chunk), taken);
        target.live_bytes += taken.size;
        TensorState& allocated = tensor(e.tensor);
        allocated.record.allocated = true;
        allocated.record.buffer_id = e.buffer_id;
        allocated.record.address = taken.address;
        allocated.life = TensorLife::live;
        // A tensor placed again owns this new block: what it took over or gave away before is gone.
        allocated.in_place_of = kNoTensor;
        allocated.handed_to = kNoTensor;
    }

    void apply(const Recorded<effect::ReusesParent>& e) {
        const TensorId owner = e.view_source != kNoTensor ? e.view_source : e.parent;
        TensorState& node = tensor(e.node);
        node.record.allocated = true;
        node.record.buffer_id = e.buffer_id;
        node.record.address = e.address;
        node.life = TensorLife::live;
        node.in_place_of = owner;
        node.handed_to = kNoTensor;
        tensor(e.parent).record.allocated = false;
        TensorState& previous_owner = tensor(owner);
        previous_owner.record.allocated = false;
        previous_owner.life = TensorLife::handed_over;
        previous_owner.handed_to = e.node;
    }

    void apply(const Recorded<effect::Frees>& e) {
        give_back(e.buffer_id, trace_.freed(e));
        if (e.tensor != kNoTensor) {
            TensorState& freed = tensor(e.tensor);
            freed.record.allocated = false;
            freed.life = TensorLife::freed;
        }
    }

    void apply(const Recorded<effect::KeepsOutput>& e) { tensor(e.tensor).kept_as_output = true; }

    void apply(const Recorded<effect::SetsBuffer>& e) {
        if (e.reallocated) {
            const auto sizes = trace_.chunk_sizes(e);
            allocator(e.buffer_id).buffer =
                e.ok ? std::optional(std::vector<std::size_t>(sizes.begin(), sizes.end())) : std::nullopt;
        }
    }

    void apply(const Recorded<effect::Places>& e) {
        TensorState& initialised = tensor(e.tensor);
        initialised.data = e.data;
        if (e.address == kInvalidAddress) {
            return;  // a view of memory that is not the allocator's
        }
        // A view (buffer id -1) lies in its source's buffer.
        const TensorId view_src = trace_.tensor(e.tensor).view_src;
        int buffer = -1;
        if (e.buffer_id >= 0) {
            buffer = trace_.buffer(e.buffer_id).canonical_id;
        } else if (view_src != kNoTensor && state_.tensor(view_src).placement) {
            buffer = state_.tensor(view_src).placement->buffer_id;
        }
        initialised.placement = Placement{buffer, e.address.chunk, e.address.offset};
        if (!state_.planned && e.buffer_id >= 0) {
            place_without_plan(e);
        }
    }

    // A tensor placed where a plan made elsewhere puts it: it holds its bytes (ggml_nbytes,
    // aligned) from here on. The chunk reaches at least to its end; tensors may share bytes
    // (the plan reused them), so live bytes grow by what no tensor held before.
    void place_without_plan(const Recorded<effect::Places>& e) {
        TensorState& placed = tensor(e.tensor);
        if (placed.life == TensorLife::live) {
            return;
        }
        const std::size_t size = align_up(trace_.tensor(e.tensor).bytes, trace_.buffer(e.buffer_id).alignment);
        AllocatorState& target = allocator(e.buffer_id);
        if (e.address.chunk < 0) {
            inconsistent(state_, "no chunk " + std::to_string(e.address.chunk));
        }
        const auto index = static_cast<std::size_t>(e.address.chunk);
        if (target.chunks.size() <= index) {
            target.chunks.resize(index + 1);
        }
        Chunk& chunk = target.chunks[index];
        const std::size_t begin = e.address.offset;
        const std::size_t end = begin + size;
        const std::size_t held_before = chunk.high_water - free_below(chunk);
        if (begin > chunk.high_water) {
            chunk.free_blocks.push_back(FreeBlock{chunk.high_water, begin - chunk.high_water});
        }
        chunk.high_water = std::max(chunk.high_water, end);
        // The free blocks lose what the tensor covers.
        std::vector<FreeBlock> left;
        for (const FreeBlock& block : chunk.free_blocks) {
            if (block.end() <= begin || block.offset >= end) {
                left.push_back(block);
                continue;
            }
            if (block.offset < begin) {
                left.push_back(FreeBlock{block.offset, begin - block.offset});
            }
            if (block.end() > end) {
                left.push_back(FreeBlock{end, block.end() - end});
            }
        }
        chunk.free_blocks = std::move(left);
        target.live_bytes += chunk.high_water - free_below(chunk) - held_before;
        placed.record.allocated = true;
        placed.record.buffer_id = e.buffer_id;
        placed.record.address = e.address;
        placed.life = TensorLife::live;
    }

    static std::size_t free_below(const Chunk& chunk) {
        std::size_t free = 0;
        for (const FreeBlock& block : chunk.free_blocks) {
            free += block.size;
        }
        return free;
    }

    TensorState& tensor(TensorId id) {
        if (id < 0 || static_cast<std::size_t>(id) >= state_.tensors.size()) {
            inconsistent(state_, "no tensor " + std::to_string(id));
        }
        return state_.tensors.mutate(static_cast<std::size_t>(id));
    }

    AllocatorState& allocator(int buffer_id) {
        if (buffer_id < 0 || static_cast<std::size_t>(buffer_id) >= trace_.buffers.size()) {
            inconsistent(state_, "no buffer id " + std::to_string(buffer_id));
        }
        return state_.allocators[static_cast<std::size_t>(trace_.buffer(buffer_id).allocator)];
    }

    Chunk& chunk(AllocatorState& allocator, int index) {
        if (index < 0 || static_cast<std::size_t>(index) >= allocator.chunks.size()) {
            inconsistent(state_, "no chunk " + std::to_string(index));
        }
        return allocator.chunks[static_cast<std::size_t>(index)];
    }

    void take(Chunk& target, const BlockTaken& taken) {
        auto& blocks = target.free_blocks;
        const auto index = static_cast<std::size_t>(taken.block);
        if (taken.block < 0 || index >= blocks.size() || blocks[index] != taken.block_before) {
            inconsistent(state_, "the block taken is not in the free list");
        }
        if (taken.block_consumed) {
            blocks.erase(blocks.begin() + taken.block);
        } else {
            blocks[index].offset += taken.size;
            blocks[index].size -= taken.size;
        }
        target.high_water = taken.high_water_after;
    }

    // The freed range joins its neighbours as the reference decided: the decision names
    // the resulting block and its index, so no search is needed.
    void give_back(int buffer_id, const FreeDecision& decision) {
        AllocatorState& target = allocator(buffer_id);
        auto& blocks = chunk(target, decision.address.chunk).free_blocks;
        const auto index = static_cast<std::size_t>(decision.block);
        const bool joins_existing = decision.merge != MergeKind::none;
        if (decision.block < 0 || index > blocks.size() || (joins_existing && index == blocks.size()) ||
            (decision.merge == MergeKind::both && index + 1 >= blocks.size())) {
            inconsistent(state_, "the freed block does not fit the free list");
        }
        if (joins_existing) {
            blocks[index] = decision.result;
            if (decision.merge == MergeKind::both) {
                blocks.erase(blocks.begin() + decision.block + 1);
            }
        } else {
            blocks.insert(blocks.begin() + decision.block, decision.result);
        }
        target.live_bytes -= decision.size;
    }

    SimState& state_;
    const Trace& trace_;
};

} // namespace

SimState initial_state(const Trace& trace) {
    SimState state;
    state.tensors.assign(trace.tensors.size(), TensorState{});
    state.allocators.resize(static_cast<std::size_t>(trace.allocator_count));
    return state;
}

void apply_next(SimState& state, const Trace& trace) {
    if (state.position >= trace.events.size()) {
        throw std::logic_error("apply_next: the state is already at the end of the trace");
    }
    std::visit(Replayer(state, trace), trace.events[state.position].data);
    ++state.position;
}

SimState replay(const Trace& trace, std::size_t position) {
    SimState state = initial_state(trace);
    while (state.position < position) {
        apply_next(state, trace);
    }
    return state;
}

MemoryStats memory_stats(const AllocatorState& allocator) {
    MemoryStats stats;
    stats.live_bytes = allocator.live_bytes;
    for (const Chunk& chunk : allocator.chunks) {
        stats.high_water += chunk.high_water;
        for (const FreeBlock& block : chunk.free_blocks) {
            if (block.offset >= chunk.high_water) {
                continue;  // the tail past the high-water mark
            }
            const std::size_t inside = std::min(block.end(), chunk.high_water) - block.offset;
            stats.free_bytes += inside;
            stats.largest_free = std::max(stats.largest_free, inside);
        }
    }
    if (stats.free_bytes > 0) {
        stats.fragmentation = 1.0 - static_cast<double>(stats.largest_free) / static_cast<double>(stats.free_bytes);
    }
    return stats;
}

MemoryStats memory_stats(const SimState& state) {
    MemoryStats total;
    for (const AllocatorState& allocator : state.allocators) {
        const MemoryStats stats = memory_stats(allocator);
        total.live_bytes += stats.live_bytes;
        total.high_water += stats.high_water;
        total.free_bytes += stats.free_bytes;
        total.largest_free = std::max(total.largest_free, stats.largest_free);
    }
    if (total.free_bytes > 0) {
        total.fragmentation = 1.0 - static_cast<double>(total.largest_free) / static_cast<double>(total.free_bytes);
    }
    return total;
}

std::size_t live_bytes(const SimState& state) {
    std::size_t total = 0;
    for (const AllocatorState& allocator : state.allocators) {
        total += allocator.live_bytes;
    }
    return total;
}

std::vector<TensorId> live_tensors(const SimState& state) {
    std::vector<TensorId> live;
    for (std::size_t i = 0; i < state.tensors.size(); ++i) {
        if (state.tensors[i].life == TensorLife::live) {
            live.push_back(static_cast<TensorId>(i));
        }
    }
    return live;
}

} // namespace gallocsim
