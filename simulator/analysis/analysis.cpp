#include "simulator/analysis/analysis.hpp"

#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace gallocsim {

namespace {

// The alignment every block's offset is a multiple of, whatever each one's own: their gcd.
std::size_t common_alignment(std::span<const LiveBlock> blocks) {
    std::size_t g = 0;
    for (const LiveBlock& block : blocks) {
        g = std::gcd(g, std::max<std::size_t>(block.alignment, 1));
    }
    return std::max<std::size_t>(g, 1);
}

// What lower_bound counts of the blocks live at one step: the sum of their bytes rounded up to
// the common alignment, less the largest rounding (the highest block's, which needs none).
class LiveStack {
public:
    explicit LiveStack(std::size_t alignment) : alignment_(alignment) {}

    void add(const LiveBlock& block) {
        if (block_bytes(block) == 0) {
            return;  // an empty block touches no byte
        }
        rounded_ += align_up(block_bytes(block), alignment_);
        roundings_.insert(rounding(block));
    }
    void remove(const LiveBlock& block) {
        if (block_bytes(block) == 0) {
            return;
        }
        rounded_ -= align_up(block_bytes(block), alignment_);
        roundings_.erase(roundings_.find(rounding(block)));
    }
    std::size_t span() const { return roundings_.empty() ? 0 : rounded_ - *roundings_.rbegin(); }

private:
    std::size_t rounding(const LiveBlock& block) const { return align_up(block_bytes(block), alignment_) - block_bytes(block); }

    std::size_t alignment_;
    std::size_t rounded_ = 0;
    std::multiset<std::size_t> roundings_;
};

// Why a span's tensor lost its memory (or kept it): the event that ended the span says.
LifetimeEnd end_of(const Trace& trace, const MemorySpan& span) {
    if (trace.tensor(span.tensor).has_flag(TensorFlag::output)) {
        return LifetimeEnd::output;
    }
    const auto ended_by = [&]() -> const RecordedEvent& { return trace.events.at(span.end - 1).data; };
    switch (span.how_it_ends) {
    case SpanEnd::freed:
        return std::get<Recorded<event::TensorFreed>>(ended_by()).reason == FreeReason::last_view ? LifetimeEnd::last_view
                                                                                                 : LifetimeEnd::last_consumer;
    case SpanEnd::handed_over:
        // A node took the memory over as the last consumer of its parent, or of the parent's
        // one view (then the memory was the view's source's).
        return std::get<Recorded<event::InPlaceReused>>(ended_by()).view_source == span.tensor ? LifetimeEnd::last_view
                                                                                               : LifetimeEnd::last_consumer;
    case SpanEnd::replanned:
    case SpanEnd::kept:
        break;
    }
    return LifetimeEnd::never_released;
}

// The alloc size before alignment, as the event that gave the memory says it.
std::size_t alloc_size_of(const Trace& trace, const MemorySpan& span) {
    const RecordedEvent& placed = trace.events.at(span.first - 1).data;
    if (const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&placed)) {
        return allocated->alloc_size;
    }
    return std::get<Recorded<event::InPlaceReused>>(placed).alloc_size;
}

} // namespace

std::size_t arena_height(std::span<const LiveBlock> blocks, std::span<const std::size_t> offsets) {
    std::size_t height = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (block_bytes(blocks[i]) > 0) {
            height = std::max(height, offsets[i] + block_bytes(blocks[i]));
        }
    }
    return height;
}

PeakUsage lower_bound(std::span<const LiveBlock> blocks) {
    // Sweep: a block joins the stack at `first` and leaves it after `last`.
    struct Change {
        long long step;
        bool adds;
        const LiveBlock* block;
    };
    std::vector<Change> changes;
    changes.reserve(blocks.size() * 2);
    for (const LiveBlock& block : blocks) {
        changes.push_back({block.first, true, &block});
        changes.push_back({static_cast<long long>(block.last) + 1, false, &block});
    }
    // At one step, removals come first: a block that ended before does not meet one that starts.
    std::ranges::stable_sort(changes, [](const Change& a, const Change& b) {
        return a.step != b.step ? a.step < b.step : (!a.adds && b.adds);
    });
    // A stack only grows as blocks join it, so reading it after every change finds each step's.
    PeakUsage peak;
    LiveStack live(common_alignment(blocks));
    for (const Change& change : changes) {
        if (change.adds) {
            live.add(*change.block);
        } else {
            live.remove(*change.block);
        }
        if (live.span() > peak.bytes) {
            peak = {live.span(), static_cast<int>(change.step)};
        }
    }
    return peak;
}

std::size_t no_reuse_size(std::span<const LiveBlock> blocks) {
    std::size_t total = 0;
    for (const LiveBlock& block : blocks) {
        total = align_up(total, std::max<std::size_t>(block.alignment, 1)) + block_bytes(block);
    }
    return total;
}

std::vector<std::size_t> live_bytes_per_step(std::span<const LiveBlock> blocks, int step_count) {
    std::vector<std::size_t> live(static_cast<std::size_t>(std::max(step_count, 0)), 0);
    for (const LiveBlock& block : blocks) {
        for (int step = std::max(block.first, 0); step <= block.last && step < step_count; ++step) {
            live[static_cast<std::size_t>(step)] += block_bytes(block);
        }
    }
    return live;
}

const TensorLifetime* GraphLifetimes::find(TensorId tensor) const {
    const auto index = static_cast<std::size_t>(tensor);
    if (tensor < 0 || index >= entry_of.size() || entry_of[index] == kNoEntry) {
        return nullptr;
    }
    return &tensors[entry_of[index]];
}

GraphLifetimes plan_lifetimes(const GraphFile& file, const Trace& trace, const Timeline& timeline) {
    GraphLifetimes lifetimes;
    lifetimes.step_count = static_cast<int>(trace.node_count) + 1;
    lifetimes.entry_of.assign(trace.tensors.size(), GraphLifetimes::kNoEntry);
    const std::size_t last_plan = timeline.plan_count() - 1;
    for (const MemorySpan& span : timeline.spans()) {
        if (span.plan != last_plan) {
            continue;
        }
        const int arena = file.buffers.at(static_cast<std::size_t>(span.buffer_id));
        // A tensor given memory twice (an input node took its first memory in place while
        // ggml was still counting consumers) is described by its final memory: the first
        // lives on as the node's, whose lifetime starts at step 0 too.
        std::size_t& entry = lifetimes.entry_of.at(static_cast<std::size_t>(span.tensor));
        if (entry == GraphLifetimes::kNoEntry) {
            entry = lifetimes.tensors.size();
            lifetimes.tensors.emplace_back();
        }
        lifetimes.tensors[entry] = {.tensor = span.tensor,
                                     .buffer_id = span.buffer_id,
                                     .arena = arena,
                                     .size = alloc_size_of(trace, span),
                                     .aligned_size = span.size,
                                     .first = static_cast<int>(timeline.step_in_plan(span.first_step)),
                                     .last = static_cast<int>(timeline.step_in_plan(span.last_step)),
                                     .end = end_of(trace, span)};
    }
    return lifetimes;
}

namespace {

// Whether a node of the graph reads the tensor, as a source or through a view of it.
bool read_by_a_node(const Trace& trace, TensorId tensor) {
    return std::ranges::any_of(trace.tensors, [&](const TraceTensor& t) {
        return t.role == TensorRole::node && (t.view_src == tensor || std::ranges::find(t.src, tensor) != t.src.end());
    });
}

} // namespace

std::string lifetime_end_text(const Trace& trace, const GraphLifetimes& lifetimes, TensorId tensor) {
    const TensorLifetime* lifetime = lifetimes.find(tensor);
    if (lifetime == nullptr) {
        return "";
    }
    const std::string step = "node step " + std::to_string(lifetime->last);
    switch (lifetime->end) {
    case LifetimeEnd::last_consumer: {
        const TensorId consumer = trace.tensors.node_at_step(lifetime->last);
        return "until its last consumer " + (consumer != kNoTensor ? trace.tensor(consumer).name : "") + " (" + step + ")";
    }
    case LifetimeEnd::last_view: return "until its last view is done (" + step + ")";
    case LifetimeEnd::output: return "a graph output: never freed";
    case LifetimeEnd::never_released:
        return read_by_a_node(trace, tensor) ? "never released (nothing reads it after)"
                                             : "nothing reads it: it could be left out of the graph (it holds its bytes to the end)";
    }
    return "";
}

std::string step_label(const GraphFile& file, int step) {
    if (step <= kStartStep || step > static_cast<int>(file.graph.nodes.size())) {
        return "start";
    }
    return file.graph.nodes[static_cast<std::size_t>(step - 1)]->name;
}

std::vector<ArenaProblem> arena_problems(const GraphFile& file, const GraphLifetimes& lifetimes) {
    std::vector<ArenaProblem> problems(file.buffer_types.size());
    for (std::size_t type = 0; type < file.buffer_types.size(); ++type) {
        problems[type].name = file.buffer_types[type].name;
    }
    for (const TensorLifetime& lifetime : lifetimes.tensors) {
        problems[static_cast<std::size_t>(lifetime.arena)].blocks.push_back(block_of(file, lifetime));
    }
    return problems;
}

LiveBlock block_of(const GraphFile& file, const TensorLifetime& lifetime) {
    return {file.context.tensors()[static_cast<std::size_t>(lifetime.tensor)].name, lifetime.first, lifetime.last,
            lifetime.aligned_size, file.buffer_types[static_cast<std::size_t>(lifetime.arena)].alignment, lifetime.tensor};
}

} // namespace gallocsim
