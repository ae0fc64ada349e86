#include "simulator/trace/peak.hpp"

#include "simulator/trace/state.hpp"

#include <algorithm>
#include <numeric>

namespace gallocsim {

namespace {

std::size_t total_high_water(const AllocatorState& allocator) {
    std::size_t total = 0;
    for (const Chunk& chunk : allocator.chunks) {
        total += chunk.high_water;
    }
    return total;
}

// The bytes an event handed to a tensor, as the allocator aligned them.
std::optional<std::pair<TensorId, std::size_t>> bytes_taken(const Trace& trace, const TraceEvent& event) {
    if (const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&event.data)) {
        return std::pair{allocated->tensor, trace.taken(*allocated).size};
    }
    if (const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&event.data)) {
        return std::pair{reused->node, align_up(reused->alloc_size, trace.buffer(reused->buffer_id).alignment)};
    }
    return std::nullopt;
}

// The bytes below each chunk's high-water mark that are free. A 0-byte free block (a 0-byte
// tensor's, given back) is in the free list but holds nothing: not a hole.
std::vector<PeakHole> holes_of(const AllocatorState& allocator) {
    std::vector<PeakHole> holes;
    for (std::size_t c = 0; c < allocator.chunks.size(); ++c) {
        const Chunk& chunk = allocator.chunks[c];
        for (const FreeBlock& block : chunk.free_blocks) {
            if (block.offset < chunk.high_water && block.size > 0) {
                const std::size_t end = std::min(block.end(), chunk.high_water);
                holes.push_back({static_cast<int>(c), block.offset, end - block.offset, {}, std::nullopt});
            }
        }
    }
    return holes;
}

struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// The hole's bytes by their last free in the plan that starts at `plan` up to `event`. Walking
// back, the first free that covers a byte is its last: the byte is free at `event`, so nothing
// took it after that free.
std::vector<HoleBytes> hole_bytes(const Trace& trace, int allocator, const PeakHole& hole, std::size_t plan,
                                  std::size_t event) {
    std::vector<Span> unexplained{{hole.offset, hole.offset + hole.size}};
    std::vector<HoleBytes> bytes;
    for (std::size_t e = event + 1; e-- > plan && !unexplained.empty();) {
        const TensorId holder = freed_memory_of(trace.events[e]);
        const std::optional<MemoryRange> range = touched_memory(trace, trace.events[e]);
        if (holder == kNoTensor || !range || trace.buffer(range->buffer_id).allocator != allocator ||
            !range->shares_a_byte_with(hole.chunk, hole.offset, hole.size)) {
            continue;
        }
        std::vector<Span> still;
        for (const Span& span : unexplained) {
            const std::size_t begin = std::max(span.begin, range->offset);
            const std::size_t end = std::min(span.end, range->offset + range->size);
            if (begin >= end) {
                still.push_back(span);
                continue;
            }
            bytes.push_back({begin, end - begin, holder, e, kNoTensor, kNoTensor, std::nullopt});
            if (span.begin < begin) {
                still.push_back({span.begin, begin});
            }
            if (end < span.end) {
                still.push_back({end, span.end});
            }
        }
        unexplained = std::move(still);
    }
    for (const Span& span : unexplained) {
        bytes.push_back({span.begin, span.end - span.begin, kNoTensor, std::nullopt, kNoTensor, kNoTensor, std::nullopt});
    }
    std::ranges::sort(bytes, {}, &HoleBytes::offset);
    return bytes;
}

// The event in [`plan`, `before`) that gave `tensor` the memory it had then: its allocation or its
// in-place reuse of a parent.
std::optional<std::size_t> placement_of(const Trace& trace, TensorId tensor, std::size_t plan, std::size_t before) {
    for (std::size_t e = before; e-- > plan;) {
        const TraceEvent& event = trace.events[e];
        if (const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&event.data); allocated && allocated->tensor == tensor) {
            return e;
        }
        if (const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&event.data); reused && reused->node == tensor) {
            return e;
        }
    }
    return std::nullopt;
}

// The free in [`plan`, `before`) that last gave back [offset, offset + size) of the chunk, if one
// free covers all of it and none since gave back part of it.
std::optional<std::size_t> whole_free_before(const Trace& trace, int allocator, int chunk, std::size_t offset, std::size_t size,
                                             std::size_t plan, std::size_t before) {
    for (std::size_t e = before; e-- > plan;) {
        const std::optional<MemoryRange> range = touched_memory(trace, trace.events[e]);
        if (freed_memory_of(trace.events[e]) == kNoTensor || !range || trace.buffer(range->buffer_id).allocator != allocator ||
            !range->shares_a_byte_with(chunk, offset, size)) {
            continue;  // gave back none of these bytes (a 0-byte free gives back none anywhere)
        }
        const bool covers = range->offset <= offset && offset + size <= range->offset + range->size;
        return covers ? std::optional(e) : std::nullopt;
    }
    return std::nullopt;
}

// Where a run's last holder got its block: the in-place chain's first tensor, and the tensor whose
// free that first tensor's block was carved from.
void find_origin(const Trace& trace, int allocator, int chunk, std::size_t plan, HoleBytes& run) {
    TensorId holder = run.last_holder;
    std::optional<std::size_t> placed = placement_of(trace, holder, plan, *run.freed_at);
    while (placed) {
        const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&trace.events[*placed].data);
        if (reused == nullptr) {
            break;
        }
        holder = reused->parent;
        run.in_place_of = holder;
        placed = placement_of(trace, holder, plan, *placed);
    }
    if (!placed) {
        return;
    }
    if (const auto freed = whole_free_before(trace, allocator, chunk, run.offset, run.size, plan, *placed)) {
        run.carved_from = freed_memory_of(trace.events[*freed]);
        run.carved_from_freed_at = freed;
    }
}

// The first allocation in (`after`, `event`] of the allocator that grew it.
std::optional<TailRequest> first_growth(const Trace& trace, int allocator, std::size_t after, std::size_t event) {
    for (std::size_t e = after + 1; e <= event; ++e) {
        const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&trace.events[e].data);
        if (allocated == nullptr || trace.buffer(allocated->buffer_id).allocator != allocator) {
            continue;
        }
        const BlockTaken& taken = trace.taken(*allocated);
        if (taken.choice == BlockChoice::new_chunk || taken.high_water_after > taken.high_water_before) {
            return TailRequest{e, allocated->tensor, taken.size};
        }
    }
    return std::nullopt;
}

} // namespace

TensorId freed_memory_of(const TraceEvent& event) {
    if (const auto* freed = std::get_if<Recorded<event::TensorFreed>>(&event.data)) {
        return freed->tensor;
    }
    if (const auto* extra = std::get_if<Recorded<event::ExtraSpaceFreed>>(&event.data)) {
        return extra->parent;
    }
    return kNoTensor;
}

std::optional<std::size_t> PeakHole::completed_at() const {
    std::optional<std::size_t> last;
    for (const HoleBytes& run : bytes) {
        if (run.freed_at && (!last || *run.freed_at > *last)) {
            last = run.freed_at;
        }
    }
    return last;
}

std::size_t BufferPeak::live_bytes() const {
    return std::accumulate(live.begin(), live.end(), std::size_t{0},
                           [](std::size_t sum, const PeakTensor& t) { return sum + t.bytes; });
}

std::size_t BufferPeak::hole_bytes() const {
    return std::accumulate(holes.begin(), holes.end(), std::size_t{0},
                           [](std::size_t sum, const PeakHole& h) { return sum + h.size; });
}

std::size_t node_step(const Trace& trace, const TraceEvent& event) {
    if (event.stage == Stage::buffers || event.stage == Stage::addresses) {
        return trace.node_count;
    }
    if (event.node == kNoTensor) {
        return 0;
    }
    return static_cast<std::size_t>(trace.tensor(event.node).position) + 1;
}

std::vector<BufferPeak> buffer_peaks(const Trace& trace) {
    const auto count = static_cast<std::size_t>(trace.allocator_count);
    std::vector<BufferPeak> peaks(count);
    const std::vector<int> ids = trace.allocator_buffer_ids();
    for (std::size_t a = 0; a < count; ++a) {
        peaks[a].buffer_id = ids[a];
    }
    // A trace that only places (a plan made elsewhere) set no size.
    if (std::ranges::none_of(trace.events, [](const TraceEvent& e) {
            return std::holds_alternative<Recorded<event::PlanStarted>>(e.data);
        })) {
        return peaks;
    }
    // First pass: each allocator's size at the end of planning (the last plan of the trace).
    SimState state = initial_state(trace);
    std::vector<std::size_t> final_size(count, 0);
    while (state.position < trace.size()) {
        apply_next(state, trace);
        for (std::size_t a = 0; a < count; ++a) {
            final_size[a] = total_high_water(state.allocators[a]);
        }
    }
    // Second pass: the first event of the last plan after which each allocator is that large.
    std::size_t last_plan = 0;
    for (std::size_t e = 0; e < trace.size(); ++e) {
        if (std::holds_alternative<Recorded<event::PlanStarted>>(trace.events[e].data)) {
            last_plan = e;
        }
    }
    std::vector<std::size_t> aligned(trace.tensors.size(), 0);
    state = initial_state(trace);
    while (state.position < trace.size()) {
        const std::size_t e = state.position;
        if (const auto taken = bytes_taken(trace, trace.events[e])) {
            aligned[static_cast<std::size_t>(taken->first)] = taken->second;
        }
        apply_next(state, trace);
        for (std::size_t a = 0; a < count; ++a) {
            BufferPeak& peak = peaks[a];
            const AllocatorState& allocator = state.allocators[a];
            if (e < last_plan || peak.event || final_size[a] == 0 || total_high_water(allocator) != final_size[a]) {
                continue;
            }
            peak.event = e;
            peak.size = final_size[a];
            for (const Chunk& chunk : allocator.chunks) {
                peak.chunk_sizes.push_back(chunk.high_water);
            }
            for (const TensorId id : live_tensors(state)) {
                const TensorState& tensor = state.tensor(id);
                if (trace.buffer(tensor.record.buffer_id).allocator == static_cast<int>(a)) {
                    peak.live.push_back({id, aligned[static_cast<std::size_t>(id)], tensor.record.address});
                }
            }
            std::ranges::stable_sort(peak.live, std::greater{}, &PeakTensor::bytes);
            peak.holes = holes_of(allocator);
            for (PeakHole& hole : peak.holes) {
                hole.bytes = hole_bytes(trace, static_cast<int>(a), hole, last_plan, e);
                for (HoleBytes& run : hole.bytes) {
                    if (run.freed_at) {
                        find_origin(trace, static_cast<int>(a), hole.chunk, last_plan, run);
                    }
                }
                // A hole no tensor ever had is as old as the plan: any growth after the plan's start passed it.
                hole.passed_over_by = first_growth(trace, static_cast<int>(a), hole.completed_at().value_or(last_plan), e);
            }
        }
    }
    return peaks;
}

} // namespace gallocsim
