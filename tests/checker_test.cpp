// The plan checker on hand-made plans, good and bad, and on ggml's plan for every golden
// file. Pictures: one row per tensor, bytes left to right, with the steps it is live.
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_check.hpp"
#include "simulator/analysis/checker.hpp"

#include "golden_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace gallocsim {
namespace {

// A 32-aligned buffer with one chunk of 128 bytes, which need not be full.
PlanToCheck one_chunk(std::vector<CheckedTensor> tensors, std::vector<CheckedPlacement> placements) {
    PlanToCheck plan;
    plan.check_high_water = false;
    plan.tensors = std::move(tensors);
    plan.placements = std::move(placements);
    plan.buffers.push_back({"CPU", 32, SIZE_MAX, {128}});
    return plan;
}

std::vector<ViolationKind> kinds(const std::vector<Violation>& violations) {
    std::vector<ViolationKind> out;
    for (const Violation& v : violations) {
        out.push_back(v.kind);
    }
    return out;
}

//   0       32      64      96     128
//   [a......)                          steps 0-1
//           [b..............)          steps 1-2
//   [c......)                          steps 2-3  (a is gone by then)
//                           [d......)  steps 0-3
TEST(Checker, AcceptsAPlanWithReuseAndTouchingRanges) {
    const PlanToCheck plan = one_chunk({{"a", 0, 1, 32}, {"b", 1, 2, 64}, {"c", 2, 3, 20}, {"d", 0, 3, 32}},
                                       {{0, 0, 0, 0}, {1, 0, 0, 32}, {2, 0, 0, 0}, {3, 0, 0, 96}});
    EXPECT_TRUE(check_plan(plan).empty());
}

//   0       32      64      96
//   [a..............)              steps 0-2
//           [b..............)      steps 1-3
//
// b starts inside a and ends outside it: neither contains the other, so a check that only
// asks "is one range inside the other" misses it. The bytes [32, 64) are shared at steps 1-2.
TEST(Checker, CatchesAPartialOverlap) {
    const PlanToCheck plan = one_chunk({{"a", 0, 2, 64}, {"b", 1, 3, 64}}, {{0, 0, 0, 0}, {1, 0, 0, 32}});
    const auto violations = check_plan(plan);
    ASSERT_EQ(violations.size(), 1u);
    EXPECT_EQ(violations[0].kind, ViolationKind::overlap);
    EXPECT_EQ(violations[0].tensor, 0u);
    EXPECT_EQ(violations[0].other, 1u);
    EXPECT_EQ(violations[0].tensor_name, "a");
    EXPECT_EQ(violations[0].other_name, "b");
    EXPECT_EQ(violations[0].message,
              "tensors 'a' (bytes [0, 64)) and 'b' (bytes [32, 96)) share bytes in buffer 0 chunk 0 while both are live (steps 1-2)");
}

// One shared step is enough: a ends at step 1, b starts at step 1.
TEST(Checker, TensorsMeetingAtOneStepConflict) {
    const PlanToCheck plan = one_chunk({{"a", 0, 1, 32}, {"b", 1, 2, 32}}, {{0, 0, 0, 0}, {1, 0, 0, 0}});
    const auto violations = check_plan(plan);
    ASSERT_EQ(violations.size(), 1u);
    EXPECT_NE(violations[0].message.find("(step 1)"), std::string::npos) << violations[0].message;
}

// An in-place child takes its parent's bytes at the step the parent dies; a view shares
// its root's. Allowed pairs are exempt, in either order, and only they are.
TEST(Checker, AllowedPairsMayShareBytes) {
    PlanToCheck plan = one_chunk({{"parent", 0, 1, 32}, {"child", 1, 2, 32}, {"other", 1, 1, 32}},
                                 {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}});
    plan.may_share = {{1, 0}};  // child, parent
    const auto violations = check_plan(plan);
    ASSERT_EQ(violations.size(), 2u);
    EXPECT_EQ(violations[0].kind, ViolationKind::overlap);
    EXPECT_EQ(violations[1].kind, ViolationKind::overlap);
    EXPECT_TRUE(violations[0].tensor == 2 || violations[0].other == 2);  // other
    EXPECT_TRUE(violations[1].tensor == 2 || violations[1].other == 2);
}

TEST(Checker, EmptyTensorsShareNoBytes) {
    const PlanToCheck plan = one_chunk({{"a", 0, 1, 64}, {"empty", 0, 1, 0}}, {{0, 0, 0, 0}, {1, 0, 0, 32}});
    EXPECT_TRUE(check_plan(plan).empty());
}

// a placed twice, a placement for a third tensor the list lacks (index 2), b never placed.
TEST(Checker, EveryTensorNeedsExactlyOnePlacement) {
    const PlanToCheck plan = one_chunk({{"a", 0, 0, 32}, {"b", 0, 0, 32}},
                                       {{0, 0, 0, 0}, {0, 0, 0, 64}, {2, 0, 0, 96}});
    const auto violations = check_plan(plan);
    EXPECT_EQ(kinds(violations), (std::vector{ViolationKind::placed_twice, ViolationKind::unknown_tensor, ViolationKind::unplaced}));
    EXPECT_EQ(violations[0].message, "tensor 'a' is placed more than once");
    EXPECT_EQ(violations[1].tensor, 2u);
    EXPECT_EQ(violations[1].tensor_name, "");
    EXPECT_EQ(violations[1].message, "placement for unknown tensor 2 (the plan lists 2)");
    EXPECT_EQ(violations[2].message, "tensor 'b' has no placement");
}

// A tensor is its index in the list, its name only what the messages call it: two tensors of
// one name are two tensors, each placed and checked on its own.
TEST(Checker, TensorsOfOneNameAreTwoTensors) {
    const auto violations = check_plan(one_chunk({{"a", 0, 0, 32}, {"a", 0, 0, 256}}, {{0, 0, 0, 0}}));
    EXPECT_EQ(kinds(violations), std::vector{ViolationKind::unplaced});
    EXPECT_EQ(violations[0].tensor, 1u);
    EXPECT_TRUE(check_plan(one_chunk({{"a", 0, 0, 32}, {"a", 0, 0, 64}}, {{0, 0, 0, 0}, {1, 0, 0, 32}})).empty());
}

TEST(Checker, OffsetsAreAligned) {
    const auto violations = check_plan(one_chunk({{"a", 0, 0, 8}}, {{0, 0, 0, 8}}));
    EXPECT_EQ(kinds(violations), std::vector{ViolationKind::misaligned});
    EXPECT_EQ(violations[0].message, "tensor 'a' at offset 8 is not aligned to 32");
}

TEST(Checker, TensorsStayInsideTheirChunk) {
    // 100 bytes take 128 aligned: at 32 they would reach 160.
    const auto violations = check_plan(one_chunk({{"a", 0, 0, 100}}, {{0, 0, 0, 32}}));
    ASSERT_FALSE(violations.empty());
    EXPECT_EQ(violations[0].kind, ViolationKind::outside_chunk);
    EXPECT_EQ(violations[0].message,
              "tensor 'a' at offset 32 (128 bytes aligned) reaches past the end of buffer 0 chunk 0 (128 bytes)");
}

TEST(Checker, PlacementsNameRealBuffersAndChunks) {
    const auto violations = check_plan(one_chunk({{"a", 0, 0, 8}, {"b", 0, 0, 8}}, {{0, 3, 0, 0}, {1, 0, 1, 0}}));
    EXPECT_EQ(kinds(violations), (std::vector{ViolationKind::bad_address, ViolationKind::bad_address}));
}

TEST(Checker, ChunkSizesAreTheirHighWaterMarks) {
    PlanToCheck plan = one_chunk({{"a", 0, 0, 40}}, {{0, 0, 0, 0}});  // reaches 64 aligned, chunk says 128
    EXPECT_TRUE(check_plan(plan).empty());
    plan.check_high_water = true;
    const auto violations = check_plan(plan);
    EXPECT_EQ(kinds(violations), std::vector{ViolationKind::chunk_not_tight});
    EXPECT_EQ(violations[0].message, "buffer 0 (CPU) chunk 0 is 128 bytes but its tensors reach only 64");
    plan.buffers[0].chunk_sizes = {64};
    EXPECT_TRUE(check_plan(plan).empty());
}

// max_size 64: a chunk of 96 is fine only when one tensor in it needs 96, or it is the
// 16th chunk, which ggml leaves unbounded.
TEST(Checker, ChunksRespectMaxSizeUnlessATensorNeedsMore) {
    PlanToCheck plan;
    plan.tensors = {{"big", 0, 0, 96}, {"x", 0, 0, 32}, {"y", 0, 1, 64}};
    plan.placements = {{0, 0, 0, 0}, {1, 0, 1, 0}, {2, 0, 1, 32}};  // big, x, y
    plan.buffers.push_back({"CPU", 32, 64, {96, 96}});
    const auto violations = check_plan(plan);
    ASSERT_EQ(kinds(violations), std::vector{ViolationKind::chunk_too_large});
    EXPECT_EQ(violations[0].message,
              "buffer 0 (CPU) chunk 1 is 96 bytes, above max_size 64, and no tensor in it needs that much (largest 64)");
    plan.buffers[0].chunk_limit = 2;  // now chunk 1 is the last one possible
    EXPECT_TRUE(check_plan(plan).empty());
    plan.buffers[0].chunk_limit = 1;
    EXPECT_EQ(kinds(check_plan(plan)), (std::vector{ViolationKind::too_many_chunks, ViolationKind::chunk_too_large}));
}

// ggml's plan for each golden file, with the lifetimes its trace gives and ggml's
// in-place pairs as the only exemptions.
// The checker is not a rubber stamp: put ffn_up-0 on top of ffn_gate-0, which is live at
// the same time (silu(gate) * up reads both), and it says so.
TEST(GgmlPlan, AMovedTensorIsCaught) {
    const auto path = test_support::golden_dir() / "llama-tiny-t1.json";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " not found";
    }
    GraphFile file = load_graph_file(path);
    const GgmlPlan plan = run_ggml_plan(file);
    PlanToCheck check = ggml_plan_to_check(file, plan);
    ASSERT_TRUE(check_plan(check).empty());
    auto place = [&](const std::string& name) -> CheckedPlacement& {
        const auto tensor = static_cast<std::size_t>(std::ranges::find(check.tensors, name, &CheckedTensor::name) - check.tensors.begin());
        return *std::ranges::find(check.placements, tensor, &CheckedPlacement::tensor);
    };
    place("ffn_up-0").offset = place("ffn_gate-0").offset;
    check.check_high_water = false;  // the move also leaves the chunk taller than needed
    const auto violations = check_plan(check);
    ASSERT_FALSE(violations.empty());
    EXPECT_EQ(violations[0].kind, ViolationKind::overlap);
    const std::set<std::string> pair{violations[0].tensor_name, violations[0].other_name};
    EXPECT_TRUE(pair.contains("ffn_up-0")) << violations[0].message;
}

TEST(GoldenPlans, PassTheChecker) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        GraphFile file = load_graph_file(path);
        const GgmlPlan plan = run_ggml_plan(file);
        ASSERT_TRUE(plan.run.error.empty()) << plan.run.error;
        const PlanToCheck check = ggml_plan_to_check(file, plan);
        EXPECT_FALSE(check.tensors.empty());
        for (const Violation& v : check_plan(check)) {
            ADD_FAILURE() << v.message;
        }
    });
}

} // namespace
} // namespace gallocsim
