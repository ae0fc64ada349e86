#pragma once
// Allocator policies side by side over a corpus (`gallocsim policy compare`, the GUI's policy
// switch, docs/real-models.md): each graph planned by each policy with the one allocator, each
// plan put to the checker, next to the reference plan's in-place-aware lower bound and the
// best offline planner on the reference plan's blocks. A report is data: the CLI prints it as a
// table, JSON or SVG; nothing here formats.

#include "simulator/analysis/planners.hpp"
#include "simulator/model/corpus.hpp"
#include "reference/profile.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gallocsim {

// One policy's plan of one graph.
struct PolicyPlan {
    std::vector<std::size_t> buffer_sizes;  // per buffer id, all chunks together
    std::vector<std::vector<std::size_t>> chunk_sizes;
    std::size_t total = 0;     // every buffer
    std::string error;         // reserve failed: no plan
    std::vector<std::string> violations;  // the checker's verdict, one sentence per broken rule

    // A plan that fails or that the checker rejects: the policy breaks the graph.
    bool broken() const { return !error.empty() || !violations.empty(); }
};

struct PolicyGraphResult {
    std::string label;
    std::string path;  // the graph file (empty for an example)
    std::size_t nodes = 0;
    std::vector<PolicyPlan> plans;  // per policy, in the order given; plans[0] is the reference
    std::size_t lower_bound = 0;    // the reference plan's in-place-aware bound, summed over buffer types
    std::size_t best_offline = 0;   // the best other planner on the reference plan's blocks, summed likewise
    std::string best_offline_planner;  // its title where one planner was best everywhere, else "best per buffer type"
    bool best_offline_optimal = false; // every buffer type's best plan is proven optimal: best_offline is the optimum
};

struct PolicyTotals {
    std::size_t total = 0;         // summed over the graphs the policy did not break
    std::size_t graphs_broken = 0;
    std::size_t graphs_smaller = 0;  // than the reference's plan
    std::size_t graphs_larger = 0;
};

struct PolicyComparison {
    std::vector<const AllocatorProfile*> policies;  // policies[0] is the reference
    std::vector<PolicyGraphResult> graphs;
    std::vector<PolicyTotals> totals;  // per policy
    std::size_t lower_bound = 0;        // summed over every graph
    std::size_t best_offline = 0;
    std::size_t reference_total = 0;    // the reference's plans, every graph (0 for a graph it broke)

    // Of the reference's excess over the bound, summed over the graphs no policy broke, the part
    // policy `p` recovers (negative: it adds excess). 0 when the reference meets the bound.
    double share_of_excess_recovered(std::size_t p) const;
    // The same against the best offline plan (the optimum where it is proven): of what the
    // reference needs above the best plan any placement of its blocks found, the part `p` recovers.
    double share_of_excess_over_best_recovered(std::size_t p) const;
    std::size_t graphs_with_proven_optimum() const;
};

// Plans every graph by every policy (policies[0] is the reference; at least one). An exact
// search runs only within `limits` (small graphs).
PolicyComparison compare_policies(std::span<const CorpusGraph> graphs, std::span<const AllocatorProfile* const> policies,
                                  const ExactLimits& limits);

} // namespace gallocsim
