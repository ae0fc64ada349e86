#pragma once
// The smallest arena for a problem's blocks, or the best plan found with how far from the
// smallest it can be. The answer is squeezed between a lower bound and the best plan known:
// a search that finds a plan within C bytes lowers the plan, one that proves no plan fits in C
// raises the bound past C (every plan's height is a multiple of the blocks' common granule, so
// to the next multiple). It starts at the peak of live bytes, which 8 of MiniMalloc's 11
// challenging instances meet, then bisects, doubling the searches' budgets whenever a round
// learns nothing, and alternating the order ties are tried in.

#include "simulator/analysis/analysis.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <vector>

namespace gallocsim {

struct ArenaPlan {
    std::vector<std::size_t> offsets;  // one per block of the problem, in its order
    std::size_t size = 0;              // highest block end
};

// Where a long search stands, for a progress bar: between lower_bound and best.
struct ExactProgress {
    std::size_t best = 0;
    std::size_t lower_bound = 0;
    std::size_t trying = 0;  // the capacity being searched
    std::uint64_t nodes = 0;
    std::chrono::duration<double> elapsed{};
};

struct ExactLimits {
    std::chrono::milliseconds time_limit{2000};
    std::uint64_t node_limit = 0;  // search nodes in all, 0: none (deterministic, unlike time)
    std::stop_token stop{};
    // Called from the searching thread, about every 0.1 s of a search that runs that long.
    std::function<void(const ExactProgress&)> progress{};
};

enum class ExactStop {
    finished,    // the plan meets the bound: nothing stopped the search
    time_limit,
    node_limit,
    cancelled,
};

struct ExactResult {
    ArenaPlan plan;
    std::size_t lower_bound = 0;     // no plan of the blocks needs less: proven
    std::size_t no_plan_within = 0; // the largest capacity a finished search found no plan within (0: none);
                                    // the bound is the next possible height above it, when that is above the peak
    ExactStop stop = ExactStop::finished;
    std::uint64_t nodes = 0;         // search nodes, all searches together
    std::chrono::duration<double> elapsed{};

    bool proved_optimal() const { return plan.size <= lower_bound; }
    bool bound_by_search() const { return no_plan_within != 0; }
};

// `start`: the best plan known already (a heuristic's); the result is never above it.
ExactResult find_optimum(const ArenaProblem& problem, ArenaPlan start, const ExactLimits& limits);

// The blocks' granule: every offset a canonical plan gives, and so every plan height the
// search can reach, is a multiple of it (gcd of the sizes and of the alignments above 1).
std::size_t plan_granule(const ArenaProblem& problem);

} // namespace gallocsim
