// diff_plans: two plans of one graph compared tensor by tensor by id; plans of two files, whose
// tensors are matched by name once and by id after that.
#include "simulator/analysis/plan_diff.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gallocsim {
namespace {

GraphFile graph_of(const std::string& tensors) {
    return parse_graph_file(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}], "tensors": [)" +
                                tensors + R"(], "leafs": [], "nodes": []})",
                            "g.json");
}

PlanRecord placing(std::vector<PlacedTensor> tensors) {
    PlanRecord plan;
    plan.buffer_sizes = {64};
    plan.chunk_sizes = {{64}};
    plan.tensors = std::move(tensors);
    return plan;
}

std::vector<std::string> names(const PlanDiff& diff, const GraphFile& a, const GraphFile& b) {
    std::vector<std::string> moved;
    for (const TensorMove& move : diff.moved) {
        moved.push_back(moved_tensor_name(move, a, b));
    }
    return moved;
}

// One graph: x stays at 0, y moves from 32 to 0 in a chunk of its own, z is placed only in B.
TEST(DiffPlans, OneGraphIsComparedById) {
    const PlanDiff diff = diff_plans(placing({{0, {0, 0, 0}}, {1, {0, 0, 32}}}),
                                     placing({{0, {0, 0, 0}}, {1, {0, 1, 0}}, {2, {0, 0, 32}}}));
    EXPECT_EQ(diff.unchanged, 1u);
    ASSERT_EQ(diff.moved.size(), 2u);
    EXPECT_EQ(diff.moved[0].before_tensor, 1);
    EXPECT_EQ(diff.moved[0].after_tensor, 1);
    EXPECT_EQ(diff.moved[0].before, (Placement{0, 0, 32}));
    EXPECT_EQ(diff.moved[0].after, (Placement{0, 1, 0}));
    EXPECT_EQ(diff.moved[1].before_tensor, kNoTensor);  // only in B
    EXPECT_EQ(diff.moved[1].after_tensor, 2);
    EXPECT_FALSE(diff.moved[1].before.has_value());
}

// Two files list the same names in other orders: a tensor of A is B's tensor of its name.
//   A: x y w     B: y x v
// x and y are placed alike in both (y at 32, x at 0); w only A has, v only B has.
TEST(DiffPlans, TwoFilesAreMatchedByName) {
    const GraphFile a = graph_of(R"({"name": "x", "ne": [8]}, {"name": "y", "ne": [8]}, {"name": "w", "ne": [8]})");
    const GraphFile b = graph_of(R"({"name": "y", "ne": [8]}, {"name": "x", "ne": [8]}, {"name": "v", "ne": [8]})");
    const PlanDiff diff = diff_plans(a, placing({{0, {0, 0, 0}}, {1, {0, 0, 32}}, {2, {0, 0, 64}}}), b,
                                     placing({{0, {0, 0, 32}}, {1, {0, 0, 0}}, {2, {0, 0, 64}}}));
    EXPECT_EQ(diff.unchanged, 2u);
    EXPECT_EQ(names(diff, a, b), (std::vector<std::string>{"w", "v"}));
    EXPECT_EQ(diff.moved[0].after_tensor, kNoTensor);
    EXPECT_EQ(diff.moved[1].before_tensor, kNoTensor);
    // Placed differently, x is one move, between A's tensor 0 and B's tensor 1.
    const PlanDiff moved = diff_plans(a, placing({{0, {0, 0, 96}}}), b, placing({{1, {0, 0, 0}}}));
    ASSERT_EQ(moved.moved.size(), 1u);
    EXPECT_EQ(moved.moved[0].before_tensor, 0);
    EXPECT_EQ(moved.moved[0].after_tensor, 1);
    EXPECT_EQ(names(moved, a, b), std::vector<std::string>{"x"});
}

} // namespace
} // namespace gallocsim
