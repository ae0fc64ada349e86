// The exact planner against brute force (issue 37). Small random problems (up to 6 blocks,
// sizes 1..5, alignments 1, 2 or 4): the oracle tries every aligned offset of every block in
// turn, knowing nothing of canonical plans, sections or pruning, and finds the smallest arena
// by trying each height from the peak of live bytes up. The exact planner must agree when it
// says it proved its plan, never claim a bound above the oracle's optimum (also when a tiny
// node limit stops it), always hand the checker a valid plan, and stay at or below both
// heuristics. Each rule of the search switched off must change no answer.
#include "fuzz/property_support.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/exact/fit_search.hpp"
#include "simulator/analysis/planners.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

#include <algorithm>
#include <iostream>
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

// On real graphs (issue 37: never silently a heuristic): every buffer type's exact row is proven
// optimal, or says how far above the optimum it can be (or, past a max size, that one arena is
// only a bound on chunks), and its words agree with its flag; its plan is never below the
// bound, never above a heuristic's, and the checker accepts it (compare_planners checks it).
struct ExactTally {
    std::size_t arenas = 0, proven = 0, with_gap = 0, chunk_bounds = 0;
    std::vector<std::string> faults;

    void add(const std::string& subject, const GraphFile& file, const AllocatorProfile& profile) {
        const GgmlPlan ggml = run_ggml_plan(file, profile);
        if (!ggml.run.error.empty()) {
            return;
        }
        const Comparison comparison = compare_planners(file, ggml, {.time_limit = std::chrono::milliseconds(100)});
        for (const ArenaComparison& arena : comparison.arenas) {
            ++arenas;
            const auto exact = std::ranges::find(arena.alternatives, std::string_view("exact"),
                                                 [](const AlternativePlan& a) { return a.planner->key; });
            const PlannerOutcome& outcome = exact->outcome;
            const bool says_proven = outcome.note.starts_with("optimal (proven: ");
            const bool says_gap = outcome.note.starts_with("best found, at most ");
            const bool says_chunks = outcome.note.find("; a bound for chunks of at most ") != std::string::npos;
            proven += says_proven ? 1 : 0;
            with_gap += says_gap ? 1 : 0;
            chunk_bounds += says_chunks ? 1 : 0;
            const auto fault = [&](const std::string& what) { faults.push_back(subject + " " + arena.buffer_type + ": " + what); };
            if (says_proven != outcome.proved_optimal || !(says_proven || says_gap || says_chunks)) {
                fault("note \"" + outcome.note + "\"");
            }
            if (outcome.plan.size < arena.lower_bound.bytes || outcome.lower_bound > outcome.plan.size) {
                fault("below a bound");
            }
            for (const AlternativePlan& other : arena.alternatives) {
                if (other.outcome.plan.size < outcome.plan.size) {
                    fault(std::string(other.planner->key) + " is smaller");
                }
            }
            if (!arena.planner_violations.empty()) {
                fault(arena.planner_violations.front().message);
            }
        }
    }
    std::string summary() const {
        return std::to_string(arenas) + " buffer types: " + std::to_string(proven) + " proven optimal, " +
               std::to_string(with_gap) + " with a gap, " + std::to_string(chunk_bounds) + " one-arena bounds on chunks";
    }
};

TEST(Exact, EveryAnswerOnTheGoldenCorpusIsProvenOrHasItsGap) {
    if (!std::filesystem::is_directory(golden_corpus())) {
        GTEST_SKIP() << golden_corpus() << " not found";
    }
    ExactTally tally;
    for_each_golden_graph([&](const std::string& subject, const GraphFile& file, const AllocatorProfile& profile) {
        tally.add(subject, file, profile);
    });
    std::cout << "golden corpus: " << tally.summary() << "\n";
    EXPECT_GT(tally.proven, 0u);
    EXPECT_TRUE(tally.faults.empty()) << tally.faults.front();
}

TEST(Exact, EveryAnswerOnTheCommittedCapturesIsProvenOrHasItsGap) {
    ExactTally tally;
    for_each_captured_graph([&](const std::string& subject, const GraphFile& file, const AllocatorProfile& profile) {
        tally.add(subject, file, profile);
    });
    std::cout << "committed captures: " << tally.summary() << "\n";
    EXPECT_GT(tally.proven, 0u);
    EXPECT_TRUE(tally.faults.empty()) << tally.faults.front();
}

} // namespace
} // namespace gallocsim::fuzz
