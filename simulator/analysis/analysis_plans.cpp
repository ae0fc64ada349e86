#include "simulator/analysis/analysis_plans.hpp"
#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace gallocsim {

namespace {

// Collects which nodes took over a parent's memory.
class InPlaceRecorder final : public EventListener {
public:
    void on_event(const ObservedEvent& event) override {
        if (const auto* reused = std::get_if<Observed<event::InPlaceReused>>(&event)) {
            pairs.emplace_back(reused->node->name, reused->parent->name);
        } else if (const auto* extra = std::get_if<Observed<event::ExtraSpaceFreed>>(&event)) {
            extra_space += extra->freed.size;
        }
    }
    std::vector<std::pair<std::string, std::string>> pairs;
    std::size_t extra_space = 0;
};

const BufferTypeSpec& spec_of_buffer(const GraphFile& file, int buffer_id) {
    return file.buffer_types[static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(buffer_id)])];
}

} // namespace

GgmlPlan run_ggml_plan(const GraphFile& file, const AllocatorProfile& profile) {
    InPlaceRecorder recorder;
    GgmlPlan plan;
    plan.run = run_plan(file, &recorder, profile);  // detaches the recorder when done
    plan.in_place = std::move(recorder.pairs);
    plan.extra_space_freed = recorder.extra_space;
    return plan;
}

PlanToCheck ggml_plan_to_check(const GraphFile& file, const GraphLifetimes& lifetimes, const GgmlPlan& plan) {
    PlanToCheck check;
    std::unordered_map<std::string, const Placement*> placed;
    for (const auto& [name, place] : plan.run.plan.tensors) {
        const Tensor* tensor = file.context.find(name);
        if (tensor != nullptr && tensor->is_view()) {
            continue;  // a view lives in its root's bytes and has no lifetime of its own
        }
        placed.emplace(name, &place);
        check.placements.push_back({name, place.buffer_id, place.chunk, place.offset});
    }
    for (const TensorLifetime& lifetime : lifetimes.tensors) {
        // Sized as the buffer type it ended up in (an in-place node takes its parent's).
        const auto it = placed.find(lifetime.tensor->name);
        const int buffer_id = it != placed.end() ? it->second->buffer_id : lifetime.buffer_id;
        const std::size_t size = alloc_size_by_rule(spec_of_buffer(file, buffer_id).alloc_size, *lifetime.tensor);
        check.tensors.push_back({lifetime.tensor->name, lifetime.first, lifetime.last, size, 0});
    }
    for (int id = 0; id < file.buffer_count(); ++id) {
        const BufferTypeSpec& spec = spec_of_buffer(file, id);
        CheckedBuffer buffer;
        buffer.name = spec.name;
        buffer.alignment = spec.alignment;
        // ggml clamps it so; before chunks it played no part in planning.
        buffer.max_size = plan.run.allocator->profile().chunks ? std::min(spec.max_size.value_or(SIZE_MAX), kMaxChunkSize)
                                                               : kMaxChunkSize;
        if (static_cast<std::size_t>(id) < plan.run.plan.chunk_sizes.size()) {
            buffer.chunk_sizes = plan.run.plan.chunk_sizes[static_cast<std::size_t>(id)];
        }
        check.buffers.push_back(std::move(buffer));
    }
    // A node may share its parent's bytes because it overwrites them only when it runs, as
    // the parent's last consumer. Should the parent outlive that step, the pair is checked
    // like any other.
    std::unordered_map<std::string, int> node_step;
    for (std::size_t i = 0; i < file.graph.nodes.size(); ++i) {
        node_step[file.graph.nodes[i]->name] = static_cast<int>(i) + 1;
    }
    std::unordered_map<std::string, int> last_step;
    for (const TensorLifetime& lifetime : lifetimes.tensors) {
        last_step[lifetime.tensor->name] = lifetime.last;
    }
    for (const auto& [node, parent] : plan.in_place) {
        const auto step = node_step.find(node);
        const auto last = last_step.find(parent);
        if (step != node_step.end() && last != last_step.end() && last->second <= step->second) {
            check.may_share.emplace_back(node, parent);
        }
    }
    return check;
}

const AlternativePlan& ArenaComparison::best_alternative() const {
    return *std::ranges::min_element(alternatives, {}, [](const AlternativePlan& a) { return a.outcome.plan.size; });
}

Comparison compare_planners(const GraphFile& file, const ExactLimits& limits, const AllocatorProfile& profile) {
    return compare_planners(file, run_ggml_plan(file, profile), limits);
}

Comparison compare_planners(const GraphFile& file, const GgmlPlan& ggml, const ExactLimits& limits) {
    Comparison comparison;
    const GraphLifetimes lifetimes = compute_lifetimes(file);
    comparison.ggml_error = ggml.run.error;
    if (comparison.ggml_error.empty()) {
        comparison.ggml_violations = check_plan(ggml_plan_to_check(file, lifetimes, ggml));
    }
    const std::vector<ArenaProblem> tensors = arena_problems(file, lifetimes);
    const std::vector<ArenaProblem> joined = in_place_arena_problems(file, lifetimes, ggml.in_place);
    for (std::size_t type = 0; type < tensors.size(); ++type) {
        const ArenaProblem& problem = joined[type];
        if (tensors[type].blocks.empty()) {
            continue;
        }
        ArenaComparison arena;
        arena.buffer_type = problem.name;
        arena.alignment = file.buffer_types[type].alignment;
        arena.tensors = tensors[type].blocks.size();
        arena.blocks = problem.blocks.size();
        // The lowest buffer id of the type reports the type's buffer.
        const auto id = static_cast<std::size_t>(std::ranges::find(file.buffers, static_cast<int>(type)) - file.buffers.begin());
        if (id < ggml.run.plan.buffer_sizes.size()) {
            arena.ggml_size = ggml.run.plan.buffer_sizes[id];
            arena.ggml_chunks = ggml.run.plan.chunk_sizes[id].size();
        }
        arena.lower_bound = lower_bound(problem.blocks);
        arena.bound_without_in_place = lower_bound(tensors[type].blocks);
        arena.no_reuse = no_reuse_size(tensors[type].blocks);
        for (const Planner& planner : planners()) {
            AlternativePlan alternative{&planner, planner.run(problem, limits)};
            auto violations = check_plan(arena_plan_to_check(problem, alternative.outcome.plan));
            arena.planner_violations.insert(arena.planner_violations.end(), violations.begin(), violations.end());
            arena.alternatives.push_back(std::move(alternative));
        }
        comparison.arenas.push_back(std::move(arena));
    }
    return comparison;
}

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after) {
    PlanDiff diff;
    diff.sizes_before = before.buffer_sizes;
    diff.sizes_after = after.buffer_sizes;
    diff.chunks_before = before.chunk_sizes;
    diff.chunks_after = after.chunk_sizes;
    std::map<std::string, Placement> later(after.tensors.begin(), after.tensors.end());
    for (const auto& [name, place] : before.tensors) {
        auto it = later.find(name);
        if (it == later.end()) {
            diff.moved.push_back({name, place, std::nullopt});
            continue;
        }
        if (it->second == place) {
            ++diff.unchanged;
        } else {
            diff.moved.push_back({name, place, it->second});
        }
        later.erase(it);
    }
    for (const auto& [name, place] : after.tensors) {
        if (later.contains(name)) {
            diff.moved.push_back({name, std::nullopt, place});
        }
    }
    return diff;
}

namespace {


// In-place pairs of plan `with` that plan `without` lacks, each with the rule that explains it.
void in_place_changes(const GraphFile& file, const GgmlPlan& with, const GgmlPlan& without,
                      std::vector<std::string>& lines) {
    const AllocatorProfile& has = with.run.allocator->profile();
    const AllocatorProfile& lacks = without.run.allocator->profile();
    for (const auto& pair : with.in_place) {
        if (std::ranges::find(without.in_place, pair) != without.in_place.end()) {
            continue;
        }
        const auto& [node, parent] = pair;
        const Tensor* tensor = file.context.find(node);
        const std::string op = tensor ? std::string(op_name(tensor->op)) : "its op";
        if (tensor && has.can_inplace(tensor->op) && !lacks.can_inplace(tensor->op)) {
            lines.push_back(op + " may run in place under " + std::string(has.name) + ", not under " +
                            std::string(lacks.name) + ": " + node + " reuses its parent " + parent + "'s memory");
        } else {
            lines.push_back(node + " reuses its parent " + parent + "'s memory under " + std::string(has.name) +
                            " only: " + op + " may run in place under both, but under " + std::string(lacks.name) +
                            " the parent was not free for it (a consequence of the changes above)");
        }
    }
}

std::string chunk_count_text(const std::vector<std::size_t>& chunks) {
    return chunks.size() == 1 ? "one buffer" : std::to_string(chunks.size()) + " chunks";
}

} // namespace

std::vector<std::string> version_rule_changes(const GraphFile& file, const GgmlPlan& a, const GgmlPlan& b) {
    std::vector<std::string> lines;
    const AllocatorProfile& pa = a.run.allocator->profile();
    const AllocatorProfile& pb = b.run.allocator->profile();
    if (&pa == &pb) {
        return lines;
    }
    in_place_changes(file, a, b, lines);
    in_place_changes(file, b, a, lines);
    if (pa.chunks != pb.chunks) {
        const AllocatorProfile& chunked = pa.chunks ? pa : pb;
        const AllocatorProfile& whole = pa.chunks ? pb : pa;
        const GgmlPlan& chunked_plan = pa.chunks ? a : b;
        const auto& with = chunked_plan.run.plan.chunk_sizes;
        const auto& without = (pa.chunks ? b : a).run.plan.chunk_sizes;
        for (std::size_t id = 0; id < with.size() && id < without.size(); ++id) {
            if (with[id].size() == without[id].size()) {
                continue;
            }
            const BufferType& type = chunked_plan.run.allocator->buffer_type(static_cast<int>(id));
            lines.push_back("buffer " + std::to_string(id) + " (" + std::string(type.name()) + "): under " +
                            std::string(chunked.name) + " the plan is split into chunks of at most max_size " +
                            std::to_string(type.max_size()) + " (" + chunk_count_text(with[id]) +
                            ", ggml 254ea3e5, llama.cpp #15815, placed by the reuse factor of #16788); " +
                            std::string(whole.name) + " ignores max_size and plans " + chunk_count_text(without[id]));
        }
    }
    if (pa.free_extra_space != pb.free_extra_space) {
        const GgmlPlan& freeing = pa.free_extra_space ? a : b;
        if (freeing.extra_space_freed > 0) {
            lines.push_back("free_extra_space (ggml 9dea367c and 3129a944, llama.cpp #16679 and #17884): under " +
                            std::string(freeing.run.allocator->profile().name) + " in-place nodes gave back " +
                            std::to_string(freeing.extra_space_freed) + " bytes past their end; " +
                            std::string((pa.free_extra_space ? pb : pa).name) +
                            " keeps them taken, and frees only the node's size when the node is freed");
        }
    }
    return lines;
}

} // namespace gallocsim
