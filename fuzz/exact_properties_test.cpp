// The exact planner against brute force (issue 37). Small random problems (up to 6 blocks,
// sizes 1..5, alignments 1, 2 or 4): the oracle tries every aligned offset of every block in
// turn, knowing nothing of canonical plans, sections or pruning, and finds the smallest arena
// by trying each height from the peak of live bytes up. The exact planner must agree when it
// says it proved its plan, never claim a bound above the oracle's optimum (also when a tiny
// node limit stops it), always hand the checker a valid plan, and stay at or below both
// heuristics. Each rule of the search switched off must change no answer.
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/exact/fit_search.hpp"
#include "simulator/analysis/planners.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

#include <algorithm>
#include <string>
#include <vector>

namespace gallocsim::fuzz {
namespace {

// Drawn inside a property: 1 to 6 blocks over steps 0..8, sizes 1..5, alignments 1, 2 or 4.
ArenaProblem small_problem() {
    ArenaProblem problem{"random", {}};
    const int blocks = *rc::gen::inRange(1, 7);
    for (int i = 0; i < blocks; ++i) {
        const int first = *rc::gen::inRange(0, 6);
        const int last = first + *rc::gen::inRange(0, 4);
        const auto size = *rc::gen::inRange<std::size_t>(1, 6);
        const auto alignment = *rc::gen::elementOf(std::vector<std::size_t>{1, 2, 4});
        problem.blocks.push_back({"b" + std::to_string(i), first, last, size, alignment});
    }
    return problem;
}

// Does some placement of blocks[i..] at aligned offsets fit below `height`, given blocks[..i)?
bool fits_from(const std::vector<LiveBlock>& blocks, std::vector<std::size_t>& offsets, std::size_t i, std::size_t height) {
    if (i == blocks.size()) {
        return true;
    }
    const LiveBlock& block = blocks[i];
    for (std::size_t at = 0; at + block.size <= height; at += block.alignment) {
        bool clear = true;
        for (std::size_t j = 0; j < i && clear; ++j) {
            clear = !(block.lives_with(blocks[j]) && at < offsets[j] + blocks[j].size && offsets[j] < at + block.size);
        }
        if (clear) {
            offsets[i] = at;
            if (fits_from(blocks, offsets, i + 1, height)) {
                return true;
            }
        }
    }
    return false;
}

std::size_t brute_force_optimum(const ArenaProblem& problem) {
    std::vector<std::size_t> offsets(problem.blocks.size());
    for (std::size_t height = lower_bound(problem.blocks).bytes;; ++height) {
        if (fits_from(problem.blocks, offsets, 0, height)) {
            return height;
        }
    }
}

RC_GTEST_PROP(Exact, ProvenPlansAreTheBruteForceOptimum, ()) {
    const ArenaProblem problem = small_problem();
    const std::size_t optimum = brute_force_optimum(problem);
    const ExactResult exact = plan_exact(problem);
    RC_LOG() << "optimum " << optimum << ", exact " << exact.plan.size << " (bound " << exact.lower_bound << ")\n";
    RC_ASSERT(exact.proved_optimal());  // problems this small are always settled
    RC_ASSERT(exact.plan.size == optimum);
    RC_ASSERT(check_plan(arena_plan_to_check(problem, exact.plan)).empty());
    RC_ASSERT(exact.plan.size <= plan_greedy_by_size(problem).size);
    RC_ASSERT(exact.plan.size <= plan_first_fit(problem).size);
    RC_CLASSIFY(exact.bound_by_search(), "proved by a search that found no plan below");
}

RC_GTEST_PROP(Exact, AStoppedSearchNeverClaimsTooMuch, ()) {
    const ArenaProblem problem = small_problem();
    const std::size_t optimum = brute_force_optimum(problem);
    const auto node_limit = *rc::gen::inRange<std::uint64_t>(1, 12);
    const ExactResult exact = plan_exact(problem, {.node_limit = node_limit});
    RC_ASSERT(exact.lower_bound <= optimum);
    RC_ASSERT(exact.plan.size >= optimum);
    RC_ASSERT(!exact.proved_optimal() || exact.plan.size == optimum);
    RC_ASSERT(check_plan(arena_plan_to_check(problem, exact.plan)).empty());
    RC_CLASSIFY(exact.proved_optimal(), "proved within the limit");
}

// One capacity, every rule on and each one off: the same answer (fits or not) as brute force.
RC_GTEST_PROP(Exact, EachRuleKeepsEveryAnswer, ()) {
    const ArenaProblem problem = small_problem();
    const std::size_t optimum = brute_force_optimum(problem);
    const auto capacity = *rc::gen::inRange<std::size_t>(optimum > 2 ? optimum - 2 : 1, optimum + 2);
    const exact::Instance instance = exact::make_instance(problem);
    const bool fits = capacity >= optimum;
    const std::vector<exact::Rules> rule_sets{{},
                                              {.dominance = false},
                                              {.sections = false},
                                              {.split = false},
                                              {.settled_blocks = false},
                                              {.lowest_unplaced = false},
                                              {false, false, false, false, false}};
    for (const exact::Rules& rules : rule_sets) {
        for (const exact::Preorder order : {exact::Preorder::width_area_contention, exact::Preorder::contention_area_width,
                                            exact::Preorder::contention_width_area}) {
            const exact::FitResult found = exact::search_fit(instance, capacity, order, {}, rules);
            RC_ASSERT((found.answer == exact::Answer::fits) == fits);
            if (fits) {
                RC_ASSERT(found.height <= capacity);
            }
        }
    }
}

} // namespace
} // namespace gallocsim::fuzz
