#include "simulator/analysis_plans.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace gallocsim {

namespace {

// Collects which nodes took over a parent's memory.
class InPlaceRecorder final : public AllocationObserver {
public:
    void on_event(const Event& event) override {
        if (const auto* reused = std::get_if<event::InPlaceReused>(&event)) {
            pairs.emplace_back(reused->node->name, reused->parent->name);
        }
    }
    std::vector<std::pair<std::string, std::string>> pairs;
};

const BufferTypeSpec& spec_of_buffer(const GraphFile& file, int buffer_id) {
    return file.buffer_types[static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(buffer_id)])];
}

} // namespace

GgmlPlan run_ggml_plan(GraphFile& file) {
    InPlaceRecorder recorder;
    GgmlPlan plan;
    plan.run = run_plan(file, &recorder);
    plan.run.allocator->set_observer(nullptr);
    plan.in_place = std::move(recorder.pairs);
    return plan;
}

PlanToCheck ggml_plan_to_check(const GraphFile& file, const GraphLifetimes& lifetimes, const GgmlPlan& plan) {
    PlanToCheck check;
    std::unordered_map<std::string, const PlannedPlace*> placed;
    for (const auto& [name, place] : plan.run.plan.tensors) {
        const Tensor* tensor = file.context.find(name);
        if (tensor != nullptr && tensor->is_view()) {
            continue;  // a view lives in its root's bytes and has no lifetime of its own
        }
        placed.emplace(name, &place);
        check.placements.push_back({name, place.buffer, place.chunk, place.offset});
    }
    for (const TensorLifetime& lifetime : lifetimes.tensors) {
        // Sized as the buffer type it ended up in (an in-place node takes its parent's).
        const auto it = placed.find(lifetime.tensor->name);
        const int buffer_id = it != placed.end() ? it->second->buffer : lifetime.buffer_id;
        const std::size_t size = alloc_size_by_rule(spec_of_buffer(file, buffer_id).alloc_size, *lifetime.tensor);
        check.tensors.push_back({lifetime.tensor->name, lifetime.first, lifetime.last, size, 0});
    }
    for (int id = 0; id < file.buffer_count(); ++id) {
        const BufferTypeSpec& spec = spec_of_buffer(file, id);
        CheckedBuffer buffer;
        buffer.name = spec.name;
        buffer.alignment = spec.alignment;
        buffer.max_size = std::min(spec.max_size.value_or(SIZE_MAX), SIZE_MAX / 2);  // ggml clamps it so
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

Comparison compare_planners(GraphFile& file, const ExactLimits& limits) {
    Comparison comparison;
    const GgmlPlan ggml = run_ggml_plan(file);
    const GraphLifetimes lifetimes = compute_lifetimes(file);
    comparison.ggml_error = ggml.run.error;
    if (comparison.ggml_error.empty()) {
        comparison.ggml_violations = check_plan(ggml_plan_to_check(file, lifetimes, ggml));
    }
    const std::vector<ArenaProblem> problems = arena_problems(file, lifetimes);
    for (std::size_t type = 0; type < problems.size(); ++type) {
        const ArenaProblem& problem = problems[type];
        if (problem.blocks.empty()) {
            continue;
        }
        ArenaComparison arena;
        arena.buffer_type = problem.name;
        arena.alignment = file.buffer_types[type].alignment;
        arena.tensors = problem.blocks.size();
        // The lowest buffer id of the type reports the type's buffer.
        const auto id = static_cast<std::size_t>(std::ranges::find(file.buffers, static_cast<int>(type)) - file.buffers.begin());
        if (id < ggml.run.plan.buffer_sizes.size()) {
            arena.ggml_size = ggml.run.plan.buffer_sizes[id];
            arena.ggml_chunks = ggml.run.plan.chunk_sizes[id].size();
        }
        arena.lower_bound = lower_bound(problem.blocks);
        arena.no_reuse = no_reuse_size(problem.blocks);
        arena.greedy_by_size = plan_greedy_by_size(problem);
        arena.first_fit = plan_first_fit(problem);
        arena.exact = plan_exact(problem, limits);
        for (const ArenaPlan* plan : {&arena.greedy_by_size, &arena.first_fit, &arena.exact.plan}) {
            auto violations = check_plan(arena_plan_to_check(problem, *plan));
            arena.planner_violations.insert(arena.planner_violations.end(), violations.begin(), violations.end());
        }
        comparison.arenas.push_back(std::move(arena));
    }
    return comparison;
}

void apply_buffer_overrides(GraphFile& file, const BufferOverrides& overrides) {
    if (overrides.alignment) {
        const std::size_t a = *overrides.alignment;
        if (a == 0 || (a & (a - 1)) != 0) {
            throw GraphFileError("--alignment must be a power of two, got " + std::to_string(a));
        }
    }
    if (overrides.max_size && *overrides.max_size == 0) {
        throw GraphFileError("--max-size must be positive");
    }
    for (BufferTypeSpec& spec : file.buffer_types) {
        spec.alignment = overrides.alignment.value_or(spec.alignment);
        if (overrides.max_size) {
            spec.max_size = overrides.max_size;
        }
        spec.alloc_size = overrides.alloc_size.value_or(spec.alloc_size);
    }
    if (!overrides.empty()) {
        file.expected.reset();  // upstream's plan was for the settings in the file
    }
}

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after) {
    PlanDiff diff;
    diff.sizes_before = before.buffer_sizes;
    diff.sizes_after = after.buffer_sizes;
    diff.chunks_before = before.chunk_sizes;
    diff.chunks_after = after.chunk_sizes;
    std::map<std::string, PlannedPlace> later(after.tensors.begin(), after.tensors.end());
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

} // namespace gallocsim
