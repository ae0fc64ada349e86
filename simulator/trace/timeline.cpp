#include "simulator/trace/timeline.hpp"

#include "simulator/trace/overloaded.hpp"
#include "simulator/trace/peak.hpp"

#include <algorithm>

namespace gallocsim {

namespace {

// Per event, its node step on the whole trace's axis: plan k's steps follow plan k - 1's.
std::vector<std::size_t> steps_of_events(const Trace& trace, std::size_t steps_per_plan,
                                         std::vector<std::size_t>& plan_starts) {
    std::vector<std::size_t> steps(trace.size(), 0);
    std::size_t plan_base = 0;
    for (std::size_t e = 0; e < trace.size(); ++e) {
        if (std::holds_alternative<Recorded<event::PlanStarted>>(trace.events[e].data)) {
            if (!plan_starts.empty()) {
                plan_base += steps_per_plan;
            }
            plan_starts.push_back(e);
        }
        steps[e] = plan_base + node_step(trace, trace.events[e]);
    }
    return steps;
}

} // namespace

Timeline::Timeline(const Trace& trace) : by_tensor_(trace.tensors.size()), steps_per_plan_(trace.node_count + 1) {
    event_steps_ = steps_of_events(trace, steps_per_plan_, plan_starts_);
    const std::size_t never = trace.size() + 1;
    std::size_t plan = 0;
    auto last_step_of_plan = [&](std::size_t p) { return p * steps_per_plan_ + steps_per_plan_ - 1; };
    auto open = [&](TensorId tensor, int buffer_id, BufferAddress address, std::size_t size, std::size_t event,
                    TensorId in_place_of) {
        by_tensor_[static_cast<std::size_t>(tensor)].push_back(spans_.size());
        spans_.push_back({tensor, buffer_id, trace.buffer(buffer_id).allocator, address, size, event + 1, never,
                          event_steps_[event], last_step_of_plan(plan), plan, SpanEnd::kept, in_place_of});
    };
    auto close_span = [&](MemorySpan& span, std::size_t event, std::size_t last_step, SpanEnd how) {
        span.end = event + 1;
        span.last_step = last_step;
        span.how_it_ends = how;
    };
    auto close = [&](TensorId tensor, std::size_t event, SpanEnd how) {
        auto& indices = by_tensor_[static_cast<std::size_t>(tensor)];
        if (!indices.empty() && spans_[indices.back()].end == never) {
            close_span(spans_[indices.back()], event, event_steps_[event], how);
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

    // A trace that places before any plan of its own (an alloc_graph that kept a plan made on
    // another graph): each placement is where its tensor gets memory.
    bool planned = false;
    auto place = [&](const Recorded<effect::Places>& e, std::size_t i) {
        if (planned || e.buffer_id < 0 || e.address == kInvalidAddress || !by_tensor_[static_cast<std::size_t>(e.tensor)].empty()) {
            return;  // the plan's own spans say it; a view lies in its source; placed once
        }
        const TraceBuffer& buffer = trace.buffer(e.buffer_id);
        const std::size_t size = align_up(trace.tensor(e.tensor).bytes, buffer.alignment);
        open(e.tensor, e.buffer_id, e.address, size, i, kNoTensor);
        grow(buffer.allocator, e.address.chunk, e.address.offset + size);
    };
    auto start_plan = [&](std::size_t i) {
        // A new plan forgets the last one's placements (or those made before any): what it
        // kept ends here.
        for (MemorySpan& span : spans_) {
            if (span.end == never) {
                close_span(span, i - 1, last_step_of_plan(plan), SpanEnd::replanned);
            }
        }
        if (planned) {
            ++plan;
        }
        planned = true;
    };
    for (std::size_t i = 0; i < trace.size(); ++i) {
        // By what each event does, every effect named: a new one does not compile here until
        // someone decides what it means.
        const auto apply = Overloaded{
            [&](const Recorded<effect::StartsPlan>&) { start_plan(i); },
            [&](const Recorded<effect::CreatesChunk>& e) { grow(trace.buffer(e.buffer_id).allocator, e.chunk, 0); },
            [&](const Recorded<effect::Allocates>& e) {
                const BlockTaken& taken = trace.taken(e);
                open(e.tensor, e.buffer_id, taken.address, taken.size, i, kNoTensor);
                grow(trace.buffer(e.buffer_id).allocator, taken.address.chunk, taken.high_water_after);
            },
            [&](const Recorded<effect::ReusesParent>& e) {
                const TensorId owner = e.view_source != kNoTensor ? e.view_source : e.parent;
                close(owner, i, SpanEnd::handed_over);
                const std::size_t size = align_up(e.alloc_size, trace.buffer(e.buffer_id).alignment);
                open(e.node, e.buffer_id, e.address, size, i, owner);
            },
            // Bytes past an in-place node's end (no tensor) go back to the free list; the
            // node's span keeps its own size.
            [&](const Recorded<effect::Frees>& e) {
                if (e.tensor != kNoTensor) {
                    close(e.tensor, i, SpanEnd::freed);
                }
            },
            [](const Recorded<effect::None>&) {},
            [](const Recorded<effect::CountsUses>&) {},
            [](const Recorded<effect::KeepsOutput>&) {},
            [](const Recorded<effect::SetsBuffer>&) {},
            [&](const Recorded<effect::Places>& e) { place(e, i); },
        };
        std::visit([&](const auto& e) { apply(e.does()); }, trace.events[i].data);
    }
    std::ranges::sort(chunks_, {}, [](const ChunkExtent& c) { return std::pair(c.allocator, c.chunk); });
}

const MemorySpan* Timeline::span_at(TensorId tensor, std::size_t position) const {
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

std::vector<const MemorySpan*> Timeline::spans_of(TensorId tensor) const {
    std::vector<const MemorySpan*> result;
    if (tensor >= 0 && static_cast<std::size_t>(tensor) < by_tensor_.size()) {
        for (std::size_t index : by_tensor_[static_cast<std::size_t>(tensor)]) {
            result.push_back(&spans_[index]);
        }
    }
    return result;
}

std::size_t Timeline::chunk_size(int allocator, int chunk) const {
    for (const ChunkExtent& extent : chunks_) {
        if (extent.allocator == allocator && extent.chunk == chunk) {
            return extent.size;
        }
    }
    return 0;
}

std::optional<std::size_t> Timeline::placing_event(TensorId tensor) const {
    const auto all = spans_of(tensor);
    if (all.empty()) {
        return std::nullopt;
    }
    return all.front()->first - 1;
}

double Timeline::step_coordinate(std::size_t position) const {
    if (position == 0 || event_steps_.empty()) {
        return 0;
    }
    const std::size_t last = std::min(position, event_steps_.size()) - 1;
    const std::size_t step = event_steps_[last];
    // Steps never go back along the trace, so a step's events are one run of it.
    // (std::equal_range, not the ranges one: clang 14 with libstdc++ 12 cannot build a subrange.)
    const auto [run_begin, run_end] = std::equal_range(event_steps_.begin(), event_steps_.end(), step);
    const auto first = static_cast<std::size_t>(run_begin - event_steps_.begin());
    const auto count = static_cast<std::size_t>(run_end - run_begin);
    const double share = static_cast<double>(last + 1 - first) / static_cast<double>(std::max<std::size_t>(count, 1));
    return static_cast<double>(step) + std::clamp(share, 0.0, 1.0);
}

std::size_t Timeline::position_after_step(std::size_t step) const {
    return static_cast<std::size_t>(std::ranges::upper_bound(event_steps_, step) - event_steps_.begin());
}

} // namespace gallocsim
