// MiniMalloc CSV: written from lifetimes, read back, and refused with the line and column
// of the problem.
#include "simulator/analysis/minimalloc.hpp"
#include "simulator/analysis/planners.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace gallocsim {
namespace {

std::string error_of(std::string_view csv) {
    try {
        parse_minimalloc_csv(csv, "in.csv");
    } catch (const MiniMallocError& error) {
        return error.what();
    }
    return "no error";
}

// Our steps are inclusive, MiniMalloc's upper is not: [1, 4] is written 1,5.
TEST(MiniMalloc, WritesLifetimesAsHalfOpenRanges) {
    const ArenaProblem problem{"p", {{"t0", 0, 1, 32}, {"t1", 1, 4, 28}}};
    EXPECT_EQ(to_minimalloc_csv(problem), "id,lower,upper,size\nt0,0,2,32\nt1,1,5,28\n");
    const std::vector<std::size_t> offsets{0, 32};
    EXPECT_EQ(to_minimalloc_csv(problem, &offsets), "id,lower,upper,size,offset\nt0,0,2,32,0\nt1,1,5,28,32\n");
}

TEST(MiniMalloc, WritesAlignmentOnlyWhenNeededAndKeepsIdsIntact) {
    const ArenaProblem problem{"p", {{"a,b", 0, 0, 32, 32}, {"a_b", 0, 0, 8, 32}, {"c", 1, 1, 4, 1}}};
    // "a,b" would split the row: its comma becomes '_', and the clash with "a_b" a suffix.
    EXPECT_EQ(to_minimalloc_csv(problem), "id,lower,upper,size,alignment\na_b,0,1,32,32\na_b_2,0,1,8,32\nc,1,2,4,1\n");
}

TEST(MiniMalloc, ReadsWhatItWrites) {
    const ArenaProblem problem{"p", {{"t0", 0, 1, 32}, {"t1", 1, 4, 28}, {"t2", 2, 5, 36}}};
    const std::vector<std::size_t> offsets{0, 32, 64};
    const MiniMallocProblem read = parse_minimalloc_csv(to_minimalloc_csv(problem, &offsets), "p.csv");
    EXPECT_EQ(read.problem.name, "p");
    ASSERT_EQ(read.problem.blocks.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(read.problem.blocks[i].name, problem.blocks[i].name);
        EXPECT_EQ(read.problem.blocks[i].first, problem.blocks[i].first);
        EXPECT_EQ(read.problem.blocks[i].last, problem.blocks[i].last);
        EXPECT_EQ(read.problem.blocks[i].size, problem.blocks[i].size);
    }
    EXPECT_EQ(read.offsets, offsets);
}

// MiniMalloc's README example: five buffers that fit in 12 bytes.
TEST(MiniMalloc, ReadmeExampleFitsItsCapacity) {
    const MiniMallocProblem read = parse_minimalloc_csv("id,lower,upper,size\n"
                                                        "b1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n",
                                                        "input.12.csv");
    EXPECT_FALSE(read.offsets.has_value());
    EXPECT_EQ(lower_bound(read.problem.blocks).bytes, 12u);  // b1 and b2 meet at no step: upper is exclusive
    const ExactResult exact = plan_exact(read.problem);
    EXPECT_TRUE(exact.proved_optimal());
    EXPECT_EQ(exact.plan.size, 12u);
}

// Other spellings MiniMalloc reads: buffer for id, start for lower, and an inclusive end.
// Issue 36's two rows: a and b, 100 bytes each, both live over [0, 5), each offset a multiple
// of 32 (MiniMalloc's alignment constrains where a buffer starts; its validator measures a
// buffer's height as offset + size, with no padding). Worked by hand: the two cannot share a
// byte, so one sits at 0 and ends at 100; the other starts at the first multiple of 32 not
// below 100, 128, and ends at 228. No placement does better, so every planner should find 228.
// The bound must not say more: with both offsets multiples of 32, the lower block takes 100
// rounded up to 32 = 128 before the next may start, the higher one its 100 bytes: 228 (sum
// of rounded sizes 256, less the highest block's rounding 28). No reuse lays them one after
// the other at aligned starts: 0 and 128, also 228.
TEST(MiniMalloc, AlignmentConstrainsOffsetsAndTheBoundAgreesWithThePlanners) {
    const MiniMallocProblem input = parse_minimalloc_csv("id,lower,upper,size,alignment\na,0,5,100,32\nb,0,5,100,32\n", "two.csv");
    const ArenaProblem& problem = input.problem;
    EXPECT_EQ(lower_bound(problem.blocks).bytes, 228u);
    EXPECT_EQ(no_reuse_size(problem.blocks), 228u);
    const std::vector<PlannerOutcome> outcomes = run_every_planner(problem, {});
    ASSERT_EQ(outcomes.size(), planners().size());
    for (std::size_t p = 0; p < outcomes.size(); ++p) {
        EXPECT_EQ(outcomes[p].plan.size, 228u) << planners()[p].key;
        std::vector<std::size_t> offsets = outcomes[p].plan.offsets;
        std::ranges::sort(offsets);
        EXPECT_EQ(offsets, (std::vector<std::size_t>{0, 128})) << planners()[p].key;
        EXPECT_TRUE(check_plan(arena_plan_to_check(problem, outcomes[p].plan)).empty()) << planners()[p].key;
    }
    EXPECT_TRUE(outcomes.back().proved_optimal);  // the exact search: its plan meets the bound
}

// The bound pads only by what every offset must respect: with alignments 4 and 6 every offset
// is a multiple of 2 (their gcd), so x (3 bytes, alignment 4) and y (5 bytes, alignment 6)
// stacked need at least 3 rounded to 2 = 4, then 5: 9 (or 6 + 3 = 9 the other way). The true
// optimum is higher (x at 0, y at 6, ending at 11; or y at 0, x at 8, ending at 11), and the
// planners find it; the bound stays below.
TEST(MiniMalloc, MixedAlignmentsPadByWhatEveryOffsetShares) {
    const ArenaProblem problem{"p", {{"x", 0, 0, 3, 4}, {"y", 0, 0, 5, 6}}};
    EXPECT_EQ(lower_bound(problem.blocks).bytes, 9u);
    for (const PlannerOutcome& outcome : run_every_planner(problem, {})) {
        EXPECT_EQ(outcome.plan.size, 11u);
        EXPECT_TRUE(check_plan(arena_plan_to_check(problem, outcome.plan)).empty());
    }
}

TEST(MiniMalloc, ReadsMiniMallocsOtherColumnNames) {
    const MiniMallocProblem read = parse_minimalloc_csv("buffer,start,end,size,alignment\r\nb1,0,2,4,8\r\n\r\n", "x.csv");
    ASSERT_EQ(read.problem.blocks.size(), 1u);
    EXPECT_EQ(read.problem.blocks[0].first, 0);
    EXPECT_EQ(read.problem.blocks[0].last, 2);
    EXPECT_EQ(read.problem.blocks[0].alignment, 8u);
}

TEST(MiniMalloc, ErrorsNameTheLineAndColumn) {
    EXPECT_EQ(error_of("id,lower,upper,size\nb1,0,3,4\nb2,1,4,x\n"), "in.csv: line 3: column 4 (size): \"x\" is not an integer");
    EXPECT_EQ(error_of("id,lower,upper,size\nb1,0,3,-4\n"), "in.csv: line 2: column 4 (size): -4 is out of range (0 to 2305843009213693951)");
    // 2^64 - 1 is a whole number, too large for a long long: out of range, not "not an integer".
    EXPECT_EQ(error_of("id,lower,upper,size\nb1,0,3,18446744073709551615\n"),
              "in.csv: line 2: column 4 (size): \"18446744073709551615\" is out of range (0 to 2305843009213693951)");
    EXPECT_EQ(error_of("id,lower,upper,size\nb1,3,3,4\n"), "in.csv: line 2: column 3 (upper): 3 is out of range (4 to 2147483648)");
    EXPECT_EQ(error_of("id,lower,upper,size\nb1,0,3\n"), "in.csv: line 2: has 3 fields; the header has 4");
    EXPECT_EQ(error_of("id,lower,upper,size\nb1,0,3,4\nb1,0,3,4\n"), "in.csv: line 3: column 1 (id): id \"b1\" is used twice");
    EXPECT_EQ(error_of("id,lower,size\nb1,0,4\n"), "in.csv: line 1: missing column \"upper\"");
    EXPECT_EQ(error_of("id,lower,upper,size,gaps\n"),
              "in.csv: line 1: unknown column \"gaps\" (expected id, lower, upper or end, size, and optionally offset, alignment)");
    EXPECT_EQ(error_of("id,lower,upper,size,id\n"), "in.csv: line 1: column \"id\" repeats an earlier one");
    EXPECT_EQ(error_of("\n\n"), "in.csv: empty file (expected a header such as id,lower,upper,size)");
}

} // namespace
} // namespace gallocsim
