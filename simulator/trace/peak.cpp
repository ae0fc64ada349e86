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

// The bytes below each chunk's high-water mark that are free.
std::vector<PeakHole> holes_of(const AllocatorState& allocator) {
    std::vector<PeakHole> holes;
    for (std::size_t c = 0; c < allocator.chunks.size(); ++c) {
        const Chunk& chunk = allocator.chunks[c];
        for (const FreeBlock& block : chunk.free_blocks) {
            if (block.offset < chunk.high_water) {
                const std::size_t end = std::min(block.end(), chunk.high_water);
                holes.push_back({static_cast<int>(c), block.offset, end - block.offset, std::nullopt});
            }
        }
    }
    return holes;
}

// The last free up to `event` that gave back bytes of the hole.
std::optional<std::size_t> last_free_into(const Trace& trace, int allocator, const PeakHole& hole, std::size_t event) {
    for (std::size_t e = event + 1; e-- > 0;) {
        const std::optional<MemoryRange> range = touched_memory(trace, trace.events[e]);
        const bool is_free = std::holds_alternative<Recorded<event::TensorFreed>>(trace.events[e].data) ||
                             std::holds_alternative<Recorded<event::ExtraSpaceFreed>>(trace.events[e].data);
        if (is_free && range && trace.buffer(range->buffer_id).allocator == allocator && range->chunk == hole.chunk &&
            range->offset < hole.offset + hole.size && hole.offset < range->offset + range->size) {
            return e;
        }
    }
    return std::nullopt;
}

} // namespace

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
                hole.left_by = last_free_into(trace, static_cast<int>(a), hole, e);
            }
        }
    }
    return peaks;
}

} // namespace gallocsim
