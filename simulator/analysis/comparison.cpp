#include "simulator/analysis/comparison.hpp"

#include "simulator/analysis/plan_check.hpp"
#include "simulator/model/amount_text.hpp"
#include "simulator/model/buffer_settings.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace gallocsim {

std::string bound_position_text(const Trace& trace, const ArenaComparison& arena) {
    constexpr std::size_t kShown = 5;
    const int step = arena.lower_bound.step;
    const TensorId node = trace.tensors.node_at_step(step);
    const auto& live = arena.live_at_bound;
    std::string text = "node step " + std::to_string(step) + " (" +
                       (node != kNoTensor ? trace.tensor(node).name + " running" : std::string("before the first node")) +
                       "), with " + counted(live.size(), "block") + " live";
    for (std::size_t i = 0; i < std::min(live.size(), kShown); ++i) {
        text += (i == 0 ? ": " : ", ") + live[i].name + " " + binary_size(block_bytes(live[i]));
    }
    if (live.size() > kShown) {
        text += ", and " + std::to_string(live.size() - kShown) + " more";
    }
    return text;
}

namespace {

// The planners lay the blocks out in one arena. A buffer type with a max size splits ggml's
// buffer into chunks that no tensor straddles; a plan higher than the max size may not cut
// into such chunks, so the smallest arena is then a bound on a chunked plan, not an optimum
// ggml could reach. ggml's own plan is a chunked plan: the chunked optimum lies between the
// two, and the exact search's row says so and claims no optimum.
void note_chunks(const BufferTypeSpec& type, std::size_t ggml_size, std::vector<PlannerOutcome>& outcomes) {
    if (!type.max_size) {
        return;
    }
    for (PlannerOutcome& outcome : outcomes) {
        if (outcome.lower_bound == 0 || outcome.plan.size <= *type.max_size) {
            continue;  // a heuristic's row, or a plan that fits one chunk
        }
        std::string note = (outcome.proved_optimal ? std::string("smallest in one arena (proven)") : outcome.note) +
                           "; a bound for chunks of at most " + binary_size(*type.max_size);
        if (ggml_size == outcome.lower_bound) {
            note += ": ggml's chunked plan meets it, so it is their optimum";
        } else if (ggml_size > outcome.lower_bound) {
            note += ": ggml's chunked plan is at most " + gap_text(ggml_size, outcome.lower_bound) + " above their optimum";
        }
        outcome.note = std::move(note);
        outcome.proved_optimal = false;
    }
}

} // namespace

const AlternativePlan& ArenaComparison::best_alternative() const {
    // Among equals the exact search's, since it can say how good the plan is (it starts from
    // the heuristics' plans, so it is never above them).
    return *std::ranges::min_element(alternatives, {}, [](const AlternativePlan& a) {
        return std::pair(a.outcome.plan.size, a.outcome.lower_bound == 0);
    });
}

Comparison compare_planners(const GraphFile& file, const GgmlPlan& ggml, const ExactLimits& limits) {
    Comparison comparison;
    const GraphLifetimes& lifetimes = ggml.lifetimes;
    comparison.ggml_error = ggml.run.error;
    if (comparison.ggml_error.empty()) {
        comparison.ggml_violations = check_plan(ggml_plan_to_check(file, ggml));
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
        for (const LiveBlock& block : problem.blocks) {
            if (block.live_at(arena.lower_bound.step)) {
                arena.live_at_bound.push_back(block);
            }
        }
        std::ranges::stable_sort(arena.live_at_bound, std::greater{}, [](const LiveBlock& b) { return block_bytes(b); });
        arena.bound_without_in_place = lower_bound(tensors[type].blocks);
        arena.no_reuse = no_reuse_size(tensors[type].blocks);
        std::vector<PlannerOutcome> outcomes = run_every_planner(problem, limits);
        note_chunks(file.buffer_types[type], comparison.ggml_error.empty() ? arena.ggml_size : 0, outcomes);
        std::vector<Violation> verdict;  // the checker's on the last plan checked
        for (std::size_t p = 0; p < outcomes.size(); ++p) {
            // A plan the same as the one before it (the exact search keeps greedy by size's
            // plan of a problem too big to search) gets the same verdict without a second check.
            const ArenaPlan& plan = outcomes[p].plan;
            const ArenaPlan* before = p > 0 ? &arena.alternatives.back().outcome.plan : nullptr;
            const bool checked = before != nullptr && plan.size == before->size && plan.offsets == before->offsets;
            if (!checked) {
                verdict = check_plan(arena_plan_to_check(problem, plan));
            }
            arena.planner_violations.insert(arena.planner_violations.end(), verdict.begin(), verdict.end());
            arena.alternatives.push_back({&planners()[p], std::move(outcomes[p])});
        }
        comparison.arenas.push_back(std::move(arena));
    }
    return comparison;
}

} // namespace gallocsim
