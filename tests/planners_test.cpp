// The alternative planners on hand-made lifetimes, each plan confirmed by the checker.
// The first problem is Pisarchyk & Lee's 8-tensor example (the design notes' numbers).
#include "simulator/analysis/planners.hpp"

#include <gtest/gtest.h>

namespace gallocsim {
namespace {

ArenaProblem problem_of(std::vector<LiveBlock> blocks) {
    return {"test", std::move(blocks)};
}

// (first op, last op, size), inclusive: t0 (0,1,32) t1 (1,4,28) t2 (2,5,36) t3 (3,5,16)
// t4 (4,5,8) t5 (5,7,64) t6 (6,8,10) t7 (7,8,40).
ArenaProblem paper_example() {
    return problem_of({{"t0", 0, 1, 32}, {"t1", 1, 4, 28}, {"t2", 2, 5, 36}, {"t3", 3, 5, 16},
                       {"t4", 4, 5, 8}, {"t5", 5, 7, 64}, {"t6", 6, 8, 10}, {"t7", 7, 8, 40}});
}

void expect_valid(const ArenaProblem& problem, const ArenaPlan& plan) {
    const auto violations = check_plan(arena_plan_to_check(problem, plan));
    for (const Violation& v : violations) {
        ADD_FAILURE() << v.message;
    }
}

TEST(PaperExample, LowerBoundIsThePeakAtOpFive) {
    // At op 5, t2 + t3 + t4 + t5 = 36 + 16 + 8 + 64 are live together.
    const ArenaProblem problem = paper_example();
    EXPECT_EQ(lower_bound(problem.blocks).bytes, 124u);
    EXPECT_EQ(lower_bound(problem.blocks).step, 5);
    EXPECT_EQ(no_reuse_size(problem.blocks), 234u);
}

// Largest first, each in the tightest gap among the tensors it lives with:
//
//   offset 0        32  60 64        100 104 114 116 124
//   t5 (5-7)  [0, 64)
//   t7 (7-8)                [64, 104)
//   t2 (2-5)                [64, 100)
//   t0 (0-1)  [0, 32)
//   t1 (1-4)        [32, 60)               (the gap between t0 and t2)
//   t3 (3-5)                              [100, 116)
//   t6 (6-8)                                  [104, 114)
//   t4 (4-5)                                          [116, 124)
TEST(PaperExample, GreedyBySizeReachesTheLowerBound) {
    const ArenaProblem problem = paper_example();
    const ArenaPlan plan = plan_greedy_by_size(problem);
    EXPECT_EQ(plan.size, 124u);
    EXPECT_EQ(plan.offsets, (std::vector<std::size_t>{0, 32, 64, 100, 116, 0, 104, 64}));
    expect_valid(problem, plan);
}

// In order of first use, each at the lowest offset that fits: t2 cannot use t0's 32
// bytes, so it goes above t1, and t5 (64) finds no hole below 96: 160 bytes, the same as
// the design notes' in-order best fit.
TEST(PaperExample, FirstFitInExecutionOrderNeedsMore) {
    const ArenaProblem problem = paper_example();
    const ArenaPlan plan = plan_first_fit(problem);
    EXPECT_EQ(plan.size, 160u);
    EXPECT_EQ(plan.offsets, (std::vector<std::size_t>{0, 32, 60, 0, 16, 96, 0, 10}));
    expect_valid(problem, plan);
}

TEST(PaperExample, ExactSearchStopsAtTheLowerBound) {
    const ArenaProblem problem = paper_example();
    const ExactResult result = plan_exact(problem);
    EXPECT_TRUE(result.proved_optimal());
    EXPECT_EQ(result.nodes, 0u);  // greedy by size already meets the bound
    EXPECT_EQ(result.plan.size, 124u);
    expect_valid(problem, result.plan);
}

// Greedy by size is not always optimal. Largest first puts c and d (8 bytes each, never
// live together) both at 0; a must then go above c, and b, which lives with d and a,
// above both:
//
//   greedy (10 bytes)          exact (9 bytes: the lower bound)
//   steps 0-1  d [0,8)          d [0,8)
//   steps 0-2  b [9,10)         b [8,9)
//   steps 2-3  a [8,9)          a [0,1)
//   steps 3-5  c [0,8)          c [1,9)
ArenaProblem small_counterexample() {
    return problem_of({{"a", 2, 3, 1}, {"b", 0, 2, 1}, {"c", 3, 5, 8}, {"d", 0, 1, 8}});
}

TEST(SmallCounterexample, GreedyBySizeAndFirstFitNeedTenBytes) {
    const ArenaProblem problem = small_counterexample();
    const ArenaPlan greedy = plan_greedy_by_size(problem);
    EXPECT_EQ(greedy.size, 10u);
    EXPECT_EQ(greedy.offsets, (std::vector<std::size_t>{8, 9, 0, 0}));
    expect_valid(problem, greedy);
    // First fit takes b before d (both start at 0; b is listed first): b [0,1), d [1,9),
    // a [1,2) (it lives with b, not d), c [2,10) (it lives with a only; 1 byte below is too little).
    const ArenaPlan first_fit = plan_first_fit(problem);
    EXPECT_EQ(first_fit.size, 10u);
    EXPECT_EQ(first_fit.offsets, (std::vector<std::size_t>{1, 0, 2, 1}));
    expect_valid(problem, first_fit);
}

TEST(SmallCounterexample, ExactSearchFindsNineAndProvesIt) {
    const ArenaProblem problem = small_counterexample();
    const ExactResult result = plan_exact(problem);
    EXPECT_TRUE(result.proved_optimal());
    EXPECT_EQ(result.plan.size, 9u);
    // 9-byte plans are not unique (the one drawn above, or b [0,1), d [1,9), a [8,9), c [0,8)):
    // the checker judges the one found.
    EXPECT_EQ(lower_bound(problem.blocks).bytes, 9u);
    expect_valid(problem, result.plan);
}

// The lower bound is not always reachable. Live bytes never pass 8 (steps 0, 1, 2 and 5
// are full), yet 8 bytes cannot hold these blocks:
//
//   step 0: a(2) b(3) c(3)   a sits at 0, 3 or 6
//   step 1: a(2) e(4) h(2)   e needs 4 in a row: a at 0 or 6 (mirror images; take 0)
//   step 2: a d(3) f(1) h    h at 2 or 6, f beside d in what is left
//   step 4: f g(4) h         g needs 4 in a row beside f and h: only h [6,8), f [5,6), g in [0,5)
//   step 5: f g j(3)         j needs 3 in a row: [0,5) minus g and [6,8) leave 1 and 2 bytes
//
// so the optimum is 9, and the search has to prove it by exhausting every plan of 8.
ArenaProblem above_the_bound() {
    return problem_of({{"a", 0, 3, 2}, {"b", 0, 0, 3}, {"c", 0, 0, 3}, {"d", 2, 2, 3}, {"e", 1, 1, 4},
                       {"f", 2, 5, 1}, {"g", 4, 7, 4}, {"h", 1, 4, 2}, {"j", 5, 6, 3}});
}

TEST(AboveTheBound, ExactSearchProvesNineWhenTheBoundIsEight) {
    const ArenaProblem problem = above_the_bound();
    EXPECT_EQ(lower_bound(problem.blocks).bytes, 8u);
    const ExactResult result = plan_exact(problem);
    EXPECT_TRUE(result.proved_optimal());
    EXPECT_EQ(result.plan.size, 9u);
    EXPECT_EQ(result.lower_bound, 9u);
    EXPECT_EQ(result.no_plan_within, 8u);  // the proof: a search that found no plan of 8
    expect_valid(problem, result.plan);

    // The proof is the whole search: with one search node fewer than it visited, the same
    // search stops short and must not claim the optimum; with exactly as many it proves it.
    ASSERT_GT(result.nodes, 1u);
    const ExactResult cut_short = plan_exact(problem, {.node_limit = result.nodes - 1});
    EXPECT_FALSE(cut_short.proved_optimal());
    EXPECT_EQ(cut_short.stop, ExactStop::node_limit);
    EXPECT_EQ(cut_short.lower_bound, 8u);
    const ExactResult just_enough = plan_exact(problem, {.node_limit = result.nodes});
    EXPECT_TRUE(just_enough.proved_optimal());
    EXPECT_EQ(just_enough.nodes, result.nodes);
}

TEST(AboveTheBound, AStoppedSearchDoesNotClaimOptimality) {
    const ExactResult result = plan_exact(above_the_bound(), {.node_limit = 1});
    EXPECT_FALSE(result.proved_optimal());
    EXPECT_EQ(result.stop, ExactStop::node_limit);
    EXPECT_EQ(result.nodes, 1u);
    EXPECT_EQ(result.plan.size, 9u);  // greedy by size's plan, still the best known
    EXPECT_EQ(result.lower_bound, 8u);
    // (9 - 8) / 8 = 12.5 %, said as at most 12.5 %.
    EXPECT_EQ(exact_note(result, {.node_limit = 1}),
              "best found, at most 12.5 % above the optimum (stopped after 1 search nodes; bound: the peak of live bytes)");
}

TEST(AboveTheBound, ACancelledSearchSaysSo) {
    std::stop_source stop;
    stop.request_stop();
    const ExactResult result = plan_exact(above_the_bound(), {.stop = stop.get_token()});
    EXPECT_FALSE(result.proved_optimal());
    EXPECT_EQ(result.stop, ExactStop::cancelled);
    EXPECT_EQ(result.plan.size, 9u);
}

// Large problems are searched too. Eight copies of the small counterexample, one after
// another in time: greedy needs 10 bytes where 9 would do, and each copy is a part of
// its own (no block spans two), so the search solves eight small problems, not one large.
TEST(ExactSearch, SolvesIndependentPartsOneByOne) {
    std::vector<LiveBlock> copies;
    for (int copy = 0; copy < 8; ++copy) {
        for (LiveBlock block : small_counterexample().blocks) {
            block.name += std::to_string(copy);
            block.first += 6 * copy;
            block.last += 6 * copy;
            copies.push_back(block);
        }
    }
    const ArenaProblem problem = problem_of(copies);
    EXPECT_EQ(plan_greedy_by_size(problem).size, 10u);
    const ExactResult result = plan_exact(problem);
    EXPECT_TRUE(result.proved_optimal());
    EXPECT_EQ(result.plan.size, 9u);
    EXPECT_EQ(lower_bound(copies).bytes, 9u);
    expect_valid(problem, result.plan);

    // 31 blocks in a chain, two live at a time: greedy meets the bound, no search needed.
    std::vector<LiveBlock> chain;
    for (int i = 0; i < 31; ++i) {
        chain.push_back({"t" + std::to_string(i), i, i + 1, 32});
    }
    const ExactResult easy = plan_exact(problem_of(chain));
    EXPECT_TRUE(easy.proved_optimal());
    EXPECT_EQ(easy.nodes, 0u);
    EXPECT_EQ(easy.plan.size, 64u);
}

// Offsets respect each block's alignment; sizes need not be multiples of it.
TEST(Planners, AlignOffsetsPerBlock) {
    const ArenaProblem problem = problem_of({{"a", 0, 1, 10, 1}, {"b", 0, 1, 8, 16}, {"c", 1, 2, 3, 4}});
    // b cannot start at 10: it goes to 16. c fits in the hole at 12 (10 rounded up to 4).
    //
    //   0         10  12  15 16       24
    //   [a........)   [c..)  [b.......)
    for (const ArenaPlan& plan : {plan_first_fit(problem), plan_greedy_by_size(problem)}) {
        EXPECT_EQ(plan.offsets, (std::vector<std::size_t>{0, 16, 12}));
        EXPECT_EQ(plan.size, 24u);
        expect_valid(problem, plan);
    }
}

TEST(Planners, EmptyBlocksStayAtZeroAndTakeNoRoom) {
    const ArenaProblem problem = problem_of({{"a", 0, 2, 64}, {"empty", 1, 1, 0}});
    for (const ArenaPlan& plan : {plan_greedy_by_size(problem), plan_first_fit(problem), plan_exact(problem).plan}) {
        EXPECT_EQ(plan.offsets, (std::vector<std::size_t>{0, 0}));
        EXPECT_EQ(plan.size, 64u);
        expect_valid(problem, plan);
    }
}

// run_every_planner gives what each planner's own run gives (the heuristics' plans are made once,
// for themselves and as the exact search's start).
TEST(Planners, RunTogetherEachGivesWhatItsOwnRunGives) {
    std::vector<LiveBlock> chain;
    for (int i = 0; i < 31; ++i) {
        chain.push_back({"t" + std::to_string(i), i, i + 1, static_cast<std::size_t>(8 + i % 5 * 8)});
    }
    for (const ArenaProblem& problem : {paper_example(), small_counterexample(), problem_of(chain)}) {
        const std::vector<PlannerOutcome> together = run_every_planner(problem, ExactLimits{});
        ASSERT_EQ(together.size(), planners().size());
        for (std::size_t p = 0; p < together.size(); ++p) {
            const PlannerOutcome alone = planners()[p].run(problem, ExactLimits{});
            EXPECT_EQ(together[p].plan.offsets, alone.plan.offsets) << planners()[p].key;
            EXPECT_EQ(together[p].plan.size, alone.plan.size) << planners()[p].key;
            EXPECT_EQ(together[p].proved_optimal, alone.proved_optimal) << planners()[p].key;
            EXPECT_EQ(together[p].lower_bound, alone.lower_bound) << planners()[p].key;
            EXPECT_EQ(together[p].note, alone.note) << planners()[p].key;
        }
    }
}

} // namespace
} // namespace gallocsim
