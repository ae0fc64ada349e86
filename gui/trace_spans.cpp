#include "gui/trace_spans.hpp"

#include <algorithm>
#include <type_traits>

namespace gallocsim::gui {

TraceSpans::TraceSpans(const Trace& trace) : by_tensor_(trace.tensors.size()) {
    const std::size_t never = trace.size() + 1;
    auto open = [&](TensorId tensor, int buffer_id, BufferAddress address, std::size_t size, std::size_t event,
                    TensorId in_place_of) {
        by_tensor_[static_cast<std::size_t>(tensor)].push_back(spans_.size());
        spans_.push_back({tensor, buffer_id, trace.buffer(buffer_id).allocator, address, size, event + 1, never,
                          SpanEnd::kept, in_place_of});
    };
    auto close = [&](TensorId tensor, std::size_t event, SpanEnd how) {
        auto& indices = by_tensor_[static_cast<std::size_t>(tensor)];
        if (!indices.empty() && spans_[indices.back()].end == never) {
            spans_[indices.back()].end = event + 1;
            spans_[indices.back()].how_it_ends = how;
        }
    };
    auto grow = [&](int allocator, int chunk, std::size_t size) {
        auto it = std::ranges::find_if(chunks_, [&](const ChunkExtent& c) { return c.allocator == allocator && c.chunk == chunk; });
        if (it == chunks_.end()) {
            chunks_.push_back({allocator, chunk, size});
        } else {
            it->size = std::max(it->size, size);
        }
    };

    for (std::size_t i = 0; i < trace.size(); ++i) {
        std::visit(
            [&](const auto& e) {
                using E = std::decay_t<decltype(e)>;
                if constexpr (std::is_same_v<E, Recorded<event::TensorAllocated>>) {
                    const BlockTaken& taken = trace.taken(e);
                    open(e.tensor, e.buffer_id, taken.address, taken.size, i, kNoTensor);
                    grow(trace.buffer(e.buffer_id).allocator, taken.address.chunk, taken.high_water_after);
                } else if constexpr (std::is_same_v<E, Recorded<event::ChunkCreated>>) {
                    grow(trace.buffer(e.buffer_id).allocator, e.chunk, 0);
                } else if constexpr (std::is_same_v<E, Recorded<event::InPlaceReused>>) {
                    const TensorId owner = e.view_source != kNoTensor ? e.view_source : e.parent;
                    close(owner, i, SpanEnd::handed_over);
                    const std::size_t size = align_up(e.alloc_size, trace.buffer(e.buffer_id).alignment);
                    open(e.node, e.buffer_id, e.address, size, i, owner);
                } else if constexpr (std::is_same_v<E, Recorded<event::TensorFreed>>) {
                    close(e.tensor, i, SpanEnd::freed);
                }
            },
            trace.events[i].data);
    }
    std::ranges::sort(chunks_, {}, [](const ChunkExtent& c) { return std::pair(c.allocator, c.chunk); });
}

const MemorySpan* TraceSpans::span_at(TensorId tensor, std::size_t position) const {
    if (tensor < 0 || static_cast<std::size_t>(tensor) >= by_tensor_.size()) {
        return nullptr;
    }
    const MemorySpan* latest = nullptr;
    for (std::size_t index : by_tensor_[static_cast<std::size_t>(tensor)]) {
        const MemorySpan& span = spans_[index];
        if (span.live_at(position)) {
            return &span;
        }
        if (span.first <= position) {
            latest = &span;
        }
    }
    return latest;
}

std::vector<const MemorySpan*> TraceSpans::spans_of(TensorId tensor) const {
    std::vector<const MemorySpan*> result;
    if (tensor >= 0 && static_cast<std::size_t>(tensor) < by_tensor_.size()) {
        for (std::size_t index : by_tensor_[static_cast<std::size_t>(tensor)]) {
            result.push_back(&spans_[index]);
        }
    }
    return result;
}

std::size_t TraceSpans::chunk_size(int allocator, int chunk) const {
    for (const ChunkExtent& extent : chunks_) {
        if (extent.allocator == allocator && extent.chunk == chunk) {
            return extent.size;
        }
    }
    return 0;
}

std::optional<std::size_t> TraceSpans::placing_event(TensorId tensor) const {
    const auto all = spans_of(tensor);
    if (all.empty()) {
        return std::nullopt;
    }
    return all.front()->first - 1;
}

} // namespace gallocsim::gui
