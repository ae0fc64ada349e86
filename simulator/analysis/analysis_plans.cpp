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

std::string names_text(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 3;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) {
        text += (i == 0 ? "" : ", ") + names[i];
    }
    if (names.size() > kShown) {
        text += " and " + std::to_string(names.size() - kShown) + " more";
    }
    return text;
}

// In-place pairs of `with` that `without` lacks, as "X takes Y's memory".
std::vector<std::string> in_place_gained(const GgmlPlan& with, const GgmlPlan& without) {
    std::vector<std::string> gained;
    for (const auto& pair : with.in_place) {
        if (std::ranges::find(without.in_place, pair) == without.in_place.end()) {
            gained.push_back(pair.first + " takes " + pair.second + "'s memory");
        }
    }
    return gained;
}

// What one change did to a plan: `before` under the profile just older than the change,
// `after` under the profile it made.
std::string rule_effect(const GgmlPlan& before, const GgmlPlan& after) {
    std::vector<std::string> parts;
    const std::string& failed_before = before.run.error;
    const std::string& failed_after = after.run.error;
    if (failed_before != failed_after) {
        parts.push_back(failed_after.empty() ? "the plan no longer fails" : "the plan fails: " + failed_after);
    }
    const auto& sizes_before = before.run.plan.buffer_sizes;
    const auto& sizes_after = after.run.plan.buffer_sizes;
    const auto& chunks_before = before.run.plan.chunk_sizes;
    const auto& chunks_after = after.run.plan.chunk_sizes;
    for (std::size_t id = 0; id < sizes_before.size() && id < sizes_after.size(); ++id) {
        const bool chunks_differ = id < chunks_before.size() && id < chunks_after.size() &&
                                   chunks_before[id].size() != chunks_after[id].size();
        if (sizes_before[id] == sizes_after[id] && !chunks_differ) {
            continue;
        }
        std::string part = "buffer " + std::to_string(id) + " " + std::to_string(sizes_before[id]) + " -> " +
                           std::to_string(sizes_after[id]) + " bytes";
        if (chunks_differ) {
            part += " in " + std::to_string(chunks_after[id].size()) +
                    (chunks_after[id].size() == 1 ? " chunk" : " chunks") + " instead of " +
                    std::to_string(chunks_before[id].size());
        }
        parts.push_back(std::move(part));
    }
    if (const auto gained = in_place_gained(after, before); !gained.empty()) {
        parts.push_back(names_text(gained));
    }
    if (const auto lost = in_place_gained(before, after); !lost.empty()) {
        parts.push_back("no longer: " + names_text(lost));
    }
    if (after.extra_space_freed != before.extra_space_freed) {
        parts.push_back("in-place nodes give back " + std::to_string(after.extra_space_freed) +
                        " bytes past their end (" + std::to_string(before.extra_space_freed) + " before)");
    }
    const PlanDiff moved = diff_plans(before.run.plan, after.run.plan);
    if (!moved.moved.empty()) {
        parts.push_back(std::to_string(moved.moved.size()) + (moved.moved.size() == 1 ? " tensor moves" : " tensors move"));
    }
    std::string text;
    for (const std::string& part : parts) {
        text += (text.empty() ? "" : "; ") + part;
    }
    return text;
}

bool same_plan(const GgmlPlan& a, const GgmlPlan& b) {
    return a.run.error == b.run.error && a.run.plan.buffer_sizes == b.run.plan.buffer_sizes &&
           a.run.plan.chunk_sizes == b.run.plan.chunk_sizes && a.run.plan.tensors == b.run.plan.tensors &&
           a.in_place == b.in_place && a.extra_space_freed == b.extra_space_freed;
}

} // namespace

std::vector<RuleEffect> version_rule_changes(const GraphFile& file, const AllocatorProfile& a, const AllocatorProfile& b) {
    std::vector<RuleEffect> effects;
    const std::vector<const AllocatorProfile*> states = history_between(a, b);
    GgmlPlan before = run_ggml_plan(file, *states.front());
    for (std::size_t i = 1; i < states.size(); ++i) {
        GgmlPlan after = run_ggml_plan(file, *states[i]);
        if (!same_plan(before, after)) {
            effects.push_back({change_that_made(*states[i]), rule_effect(before, after)});
        }
        before = std::move(after);
    }
    return effects;
}

std::string describe_rule_change(const RuleChange& change) {
    std::string text(change.commit);
    if (change.commit != change.pr) {
        text += " (" + std::string(change.pr) + ")";
    }
    return text + ", " + std::string(change.date) + ": " + std::string(change.sentence);
}

} // namespace gallocsim
