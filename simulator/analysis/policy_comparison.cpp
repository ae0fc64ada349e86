#include "simulator/analysis/policy_comparison.hpp"

#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_check.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gallocsim {
namespace {

std::size_t sum(const std::vector<std::size_t>& sizes) { return std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}); }

// A policy's plan with the checker's verdict on it (`violations`: check_plan's, or the same
// list found already).
PolicyPlan policy_plan(const GgmlPlan& ggml, const std::vector<Violation>& violations) {
    PolicyPlan plan;
    plan.error = ggml.run.error;
    if (!plan.error.empty()) {
        return plan;
    }
    plan.buffer_sizes = ggml.run.plan.buffer_sizes;
    plan.chunk_sizes = ggml.run.plan.chunk_sizes;
    plan.total = sum(plan.buffer_sizes);
    for (const Violation& violation : violations) {
        plan.violations.push_back(violation.message);
    }
    return plan;
}

PolicyPlan policy_plan(const GraphFile& file, const GgmlPlan& ggml) {
    return policy_plan(ggml, ggml.run.error.empty() ? check_plan(ggml_plan_to_check(file, ggml)) : std::vector<Violation>{});
}

// The reference plan's bound and best offline planner, every buffer type together.
void add_bounds(const Comparison& comparison, PolicyGraphResult& result) {
    std::string planner;
    bool one_planner = true;
    result.best_offline_optimal = true;
    for (const ArenaComparison& arena : comparison.arenas) {
        result.lower_bound += arena.lower_bound.bytes;
        if (arena.alternatives.empty()) {
            continue;
        }
        const AlternativePlan& best = arena.best_alternative();
        result.best_offline += best.outcome.plan.size;
        result.best_offline_optimal = result.best_offline_optimal && best.outcome.proved_optimal;
        const std::string title(best.planner->title);
        one_planner = one_planner && (planner.empty() || planner == title);
        planner = title;
    }
    result.best_offline_planner = one_planner ? planner : "best per buffer type";
}

} // namespace

namespace {

// Of the reference's bytes above `baseline` (per graph), summed over the graphs no policy broke,
// the part policy `p` recovers.
double share_recovered(const PolicyComparison& c, std::size_t p, std::size_t PolicyGraphResult::*baseline) {
    double reference_excess = 0;
    double policy_excess = 0;
    for (const PolicyGraphResult& graph : c.graphs) {
        const PolicyPlan& reference = graph.plans.front();
        const PolicyPlan& policy = graph.plans.at(p);
        if (reference.broken() || policy.broken()) {
            continue;
        }
        reference_excess += static_cast<double>(reference.total) - static_cast<double>(graph.*baseline);
        policy_excess += static_cast<double>(policy.total) - static_cast<double>(graph.*baseline);
    }
    return reference_excess > 0 ? (reference_excess - policy_excess) / reference_excess : 0.0;
}

} // namespace

double PolicyComparison::share_of_excess_recovered(std::size_t p) const {
    return share_recovered(*this, p, &PolicyGraphResult::lower_bound);
}

double PolicyComparison::share_of_excess_over_best_recovered(std::size_t p) const {
    return share_recovered(*this, p, &PolicyGraphResult::best_offline);
}

std::size_t PolicyComparison::graphs_with_proven_optimum() const {
    return static_cast<std::size_t>(std::ranges::count_if(graphs, &PolicyGraphResult::best_offline_optimal));
}

PolicyComparison compare_policies(std::span<const CorpusGraph> graphs, std::span<const AllocatorProfile* const> policies,
                                  const ExactLimits& limits) {
    if (policies.empty()) {
        throw std::invalid_argument("compare_policies needs a reference policy");
    }
    PolicyComparison comparison;
    comparison.policies.assign(policies.begin(), policies.end());
    comparison.totals.resize(policies.size());
    for (const CorpusGraph& graph : graphs) {
        PolicyGraphResult result{graph.label, graph.path.string(), graph.file.graph.nodes.size(), {}, 0, 0, {}, false};
        GgmlPlan reference = run_ggml_plan(graph.file, *policies.front());
        if (reference.run.error.empty()) {
            // The comparison checks the reference plan as policy_plan would: its verdict serves both.
            const Comparison planners = compare_planners(graph.file, reference, limits);
            result.plans.push_back(policy_plan(reference, planners.ggml_violations));
            add_bounds(planners, result);
        } else {
            result.plans.push_back(policy_plan(graph.file, reference));
        }
        // Each further policy plans on the working copy of the graph the plan before it used,
        // once that plan has been read: the graph is copied once per graph, not per policy.
        PlanRun spare = std::move(reference.run);
        for (std::size_t p = 1; p < policies.size(); ++p) {
            GgmlPlan plan = run_ggml_plan(graph.file, reference.trace.tensors, *policies[p], std::move(spare));
            result.plans.push_back(policy_plan(graph.file, plan));
            spare = std::move(plan.run);
        }
        for (std::size_t p = 0; p < policies.size(); ++p) {
            const PolicyPlan& plan = result.plans[p];
            PolicyTotals& totals = comparison.totals[p];
            if (plan.broken()) {
                totals.graphs_broken += 1;
                continue;
            }
            totals.total += plan.total;
            const PolicyPlan& ref = result.plans.front();
            if (!ref.broken()) {
                totals.graphs_smaller += plan.total < ref.total ? 1 : 0;
                totals.graphs_larger += plan.total > ref.total ? 1 : 0;
            }
        }
        comparison.lower_bound += result.lower_bound;
        comparison.best_offline += result.best_offline;
        comparison.reference_total += result.plans.front().broken() ? 0 : result.plans.front().total;
        comparison.graphs.push_back(std::move(result));
    }
    return comparison;
}

} // namespace gallocsim
