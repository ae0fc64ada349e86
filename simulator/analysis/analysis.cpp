#include "simulator/analysis/analysis.hpp"

#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace gallocsim {

namespace {

std::size_t aligned(const LiveBlock& block) {
    return align_up(block.size, std::max<std::size_t>(block.alignment, 1));
}

// Replays ggml's bookkeeping of consumers and views over the graph (the rule, not the
// allocator): who gets memory at which step, and when the last use releases it.
class LifetimeWalk {
public:
    explicit LifetimeWalk(const GraphFile& file) : file_(file) {
        result_.step_count = static_cast<int>(file.graph.nodes.size()) + 1;
    }

    GraphLifetimes run() {
        const Graph& graph = file_.graph;
        for (std::size_t i = 0; i < graph.leafs.size(); ++i) {
            allocate(graph.leafs[i], id_at(file_.leaf_buffer_ids, i), kStartStep);
        }
        count_consumers();
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
            const Tensor* node = graph.nodes[i];
            const int step = static_cast<int>(i) + 1;
            const int buffer_id = id_at(file_.node_buffer_ids, i);
            for_each_src(*node, [&](const Tensor* src) { allocate(src, buffer_id, step); });
            allocate(node, buffer_id, step);
            release_parents(*node, step);
        }
        for (TensorLifetime& lifetime : result_.tensors) {
            if (lifetime.last < 0) {
                lifetime.last = result_.step_count - 1;
                if (lifetime.end != LifetimeEnd::output) {
                    lifetime.end = LifetimeEnd::never_released;
                }
            }
        }
        return std::move(result_);
    }

private:
    struct Counts {
        int children = 0;  // consumers that have not run yet
        int views = 0;     // views not yet done
        int lifetime = -1; // index into result_.tensors while the tensor holds memory
    };

    static int id_at(const std::vector<int>& ids, std::size_t i) { return ids.empty() ? 0 : ids[i]; }

    template <typename F>
    static void for_each_src(const Tensor& tensor, F&& f) {
        for (const Tensor* src : tensor.src) {
            if (src != nullptr) {
                f(src);
            }
        }
    }

    // Input tensors get memory before any node runs, so nothing can overwrite them early.
    void count_consumers() {
        const Graph& graph = file_.graph;
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
            const Tensor* node = graph.nodes[i];
            const int buffer_id = id_at(file_.node_buffer_ids, i);
            // An op NONE view only adds a dependency; ggml does not count it as a view.
            if (node->is_view() && node->op != Op::NONE) {
                counts_[node->view_src].views += 1;
            }
            if (node->has_flag(TensorFlag::input)) {
                allocate(node, buffer_id, kStartStep);
            }
            for_each_src(*node, [&](const Tensor* src) {
                counts_[src].children += 1;
                if (src->has_flag(TensorFlag::input)) {
                    allocate(src, buffer_id, kStartStep);
                }
            });
        }
    }

    void allocate(const Tensor* tensor, int buffer_id, int step) {
        if (tensor->is_view() || file_.is_external(*tensor) || allocated_.contains(tensor)) {
            return;
        }
        allocated_.insert(tensor);
        const BufferTypeSpec& spec =
            file_.buffer_types[static_cast<std::size_t>(file_.buffers[static_cast<std::size_t>(buffer_id)])];
        TensorLifetime lifetime;
        lifetime.tensor = tensor;
        lifetime.buffer_id = buffer_id;
        lifetime.arena = file_.buffers[static_cast<std::size_t>(buffer_id)];
        lifetime.size = alloc_size_by_rule(spec.alloc_size, *tensor);
        lifetime.aligned_size = align_up(lifetime.size, spec.alignment);
        lifetime.first = step;
        lifetime.last = -1;
        lifetime.end = tensor->has_flag(TensorFlag::output) ? LifetimeEnd::output : LifetimeEnd::last_consumer;
        counts_[tensor].lifetime = static_cast<int>(result_.tensors.size());
        result_.tensors.push_back(lifetime);
    }

    // After a node runs each parent has one consumer fewer; one with none left and no
    // views is done (a view passes that on to its root).
    void release_parents(const Tensor& node, int step) {
        for_each_src(node, [&](const Tensor* parent) {
            Counts& counts = counts_[parent];
            counts.children -= 1;
            if (counts.children != 0 || counts.views != 0) {
                return;
            }
            if (parent->is_view()) {
                Counts& root = counts_[parent->view_src];
                root.views -= 1;
                if (root.views == 0 && root.children == 0) {
                    release(root, step, LifetimeEnd::last_view);
                }
            } else {
                release(counts, step, LifetimeEnd::last_consumer);
            }
        });
    }

    void release(Counts& counts, int step, LifetimeEnd why) {
        if (counts.lifetime < 0) {
            return;  // holds no memory of the allocator's (external, or already released)
        }
        TensorLifetime& lifetime = result_.tensors[static_cast<std::size_t>(counts.lifetime)];
        counts.lifetime = -1;
        if (lifetime.end == LifetimeEnd::output) {
            return;  // outputs are never released
        }
        lifetime.last = step;
        lifetime.end = why;
    }

    const GraphFile& file_;
    GraphLifetimes result_;
    std::unordered_map<const Tensor*, Counts> counts_;
    std::unordered_set<const Tensor*> allocated_;  // ever given memory
};

} // namespace

PeakUsage lower_bound(std::span<const LiveBlock> blocks) {
    // Sweep: a block adds its bytes at `first` and removes them after `last`.
    struct Change {
        long long step;
        bool adds;
        std::size_t bytes;
    };
    std::vector<Change> changes;
    changes.reserve(blocks.size() * 2);
    for (const LiveBlock& block : blocks) {
        changes.push_back({block.first, true, aligned(block)});
        changes.push_back({static_cast<long long>(block.last) + 1, false, aligned(block)});
    }
    // At one step, removals come first: a block that ended before does not meet one that starts.
    std::ranges::sort(changes, [](const Change& a, const Change& b) {
        return a.step != b.step ? a.step < b.step : (!a.adds && b.adds);
    });
    PeakUsage peak;
    std::size_t live = 0;
    for (const Change& change : changes) {
        live = change.adds ? live + change.bytes : live - change.bytes;
        if (live > peak.bytes) {
            peak = {live, static_cast<int>(change.step)};
        }
    }
    return peak;
}

std::size_t no_reuse_size(std::span<const LiveBlock> blocks) {
    std::size_t total = 0;
    for (const LiveBlock& block : blocks) {
        total = align_up(total, std::max<std::size_t>(block.alignment, 1)) + block.size;
    }
    return total;
}

std::vector<std::size_t> live_bytes_per_step(std::span<const LiveBlock> blocks, int step_count) {
    std::vector<std::size_t> live(static_cast<std::size_t>(std::max(step_count, 0)), 0);
    for (const LiveBlock& block : blocks) {
        for (int step = std::max(block.first, 0); step <= block.last && step < step_count; ++step) {
            live[static_cast<std::size_t>(step)] += aligned(block);
        }
    }
    return live;
}

const TensorLifetime* GraphLifetimes::find(const Tensor& tensor) const {
    if (tensor.index >= entry_of.size() || entry_of[tensor.index] == kNoEntry) {
        return nullptr;
    }
    const TensorLifetime& entry = tensors[entry_of[tensor.index]];
    return entry.tensor == &tensor ? &entry : nullptr;  // a tensor of another file has no lifetime here
}

GraphLifetimes compute_lifetimes(const GraphFile& file) {
    GraphLifetimes lifetimes = LifetimeWalk(file).run();
    lifetimes.entry_of.assign(file.context.size(), GraphLifetimes::kNoEntry);
    for (std::size_t i = 0; i < lifetimes.tensors.size(); ++i) {
        const std::size_t index = lifetimes.tensors[i].tensor->index;
        if (index < lifetimes.entry_of.size() && lifetimes.entry_of[index] == GraphLifetimes::kNoEntry) {
            lifetimes.entry_of[index] = i;
        }
    }
    return lifetimes;
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
        const BufferTypeSpec& spec = file.buffer_types[static_cast<std::size_t>(lifetime.arena)];
        problems[static_cast<std::size_t>(lifetime.arena)].blocks.push_back(
            {lifetime.tensor->name, lifetime.first, lifetime.last, lifetime.aligned_size, spec.alignment});
    }
    return problems;
}

} // namespace gallocsim
