// Bugs the fuzzers and properties found in gallocsim, each fixed, each kept as a test.
#include "fuzz/independent_checks.hpp"
#include "reference/builder.hpp"
#include "simulator/executor/planned_run.hpp"
#include "simulator/model/plan.hpp"

#include <gtest/gtest.h>

namespace gallocsim::fuzz {
namespace {

// The independent checks' in-place op set (written from ggml-alloc.c) and the newest
// profile's (reference/profile.cpp, built up commit by commit) are the same set, op by op.
TEST(Findings, IndependentInPlaceOpsAreTheNewestProfiles) {
    for (std::size_t i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        EXPECT_EQ(may_run_in_place(op), newest_profile().can_inplace(op)) << op_name(op);
    }
}

// Found by fuzz_graph_file (a mutated golden file): a node that names itself as a source
// (legal in graph files: ggml_cast's CPY does) and whose op may run in place was "reused
// in place" over itself. It was marked allocated just before the in-place search, so it
// counted as its own parent; it took its own unset address, chunk 0 offset 0, and was
// never allocated, lying over whatever else was there. Upstream has the same code path
// (ggml's API cannot build such a node); gallocsim now skips the node itself as a parent.
//
//   x (input, 32 B);  t = SQR(t), read by nothing else;  u = SQR(x)
//
//   before:  0        32           after:  0        32       64
//            +--------+                    +--------+--------+
//            | x = t  |                    | x = u  |   t    |
//            +--------+                    +--------+--------+
//   t's result lay over x at step 1, and u read x at step 2.
TEST(Findings, NodeNamingItselfAsSourceIsNotPlacedOverItself) {
    GraphFile file;
    file.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
    file.buffers = {0};
    GraphBuilder b(file.context);
    Tensor& x = b.new_tensor(DataType::f32, {8}, "x");
    set_input(x);
    Tensor& t = b.new_tensor(DataType::f32, {8}, "t");
    t.op = Op::SQR;
    t.src[0] = &t;
    Tensor& u = b.unary_op(Op::SQR, x);
    u.name = "u";
    set_output(u);
    build_forward_expand(file.graph, t);
    build_forward_expand(file.graph, u);
    ASSERT_EQ(file.graph.nodes, (std::vector<Tensor*>{&t, &u}));

    const PlanRun run = run_plan(file);
    ASSERT_TRUE(run.plan.alloc_graph) << run.error;
    const std::vector<std::pair<std::string, Placement>> expected{
        {"x", {0, 0, 0}}, {"t", {0, 0, 32}}, {"u", {0, 0, 0}}};
    std::vector<std::pair<std::string, Placement>> placed;
    for (const auto& [id, place] : run.plan.tensors) {
        placed.emplace_back(tensor_name(file.context, id), place);
    }
    EXPECT_EQ(placed, expected);
    EXPECT_EQ(run.plan.buffer_sizes, (std::vector<std::size_t>{64}));
    EXPECT_TRUE(overlap_violations(run.planned.graph, Lifetimes(run.planned.graph)).empty());
}

// Found by fuzz_graph_file: a number too large for a double ("3E339136") made nlohmann
// throw out_of_range, not parse_error, and it escaped the loader as a json exception
// instead of a GraphFileError naming the file.
TEST(Findings, NumberTooLargeForADoubleIsAGraphFileError) {
    try {
        parse_graph_file(R"({"format": "ggml-graph/1", "name": 3E339136})", "big.json");
        FAIL() << "no error";
    } catch (const GraphFileError& error) {
        EXPECT_STREQ(error.what(), "big.json: invalid JSON: number overflow parsing '3E339136'");
    }
}

// Found by Execution.PlanComputesWhatTheNoReuseOracleComputes: when every tensor with
// outside memory (`data: true`) has zero bytes, the executor's buffer for them had zero
// bytes and so no base address; they got no address, and setting up a view of one failed
// ("its source c0 has no memory yet"). The buffer now has at least one byte.
//
//   c0: external, f32 [1, 0] (0 bytes);  w1: f32 [1];  v2 = ADD_inplace(c0, w1), a view of c0
TEST(Findings, ExecutorRunsAGraphWhoseOutsideTensorsAreEmpty) {
    GraphFile file;
    file.buffer_types.push_back({"CPU", 4, std::nullopt, AllocSizeRule::nbytes});
    file.buffers = {0};
    GraphBuilder b(file.context);
    Tensor& c0 = b.new_tensor(DataType::f32, {1, 0}, "c0");
    file.mark_external(c0);
    Tensor& w1 = b.new_tensor(DataType::f32, {1}, "w1");
    Tensor& v2 = b.binary_inplace(Op::ADD, c0, w1);
    v2.name = "v2";
    build_forward_expand(file.graph, v2);

    Executor executor(Backend::cpu);
    const PlannedRun run = plan_and_run(file, Planner::gallocr, executor, {.poison = true});
    EXPECT_TRUE(run.result.ok()) << run.result.error;
}

} // namespace
} // namespace gallocsim::fuzz
