// The executor on the CPU: plans judged by what they compute. The seed graph's product
// lands where `a` was; a llama-style graph computes the same bits in gallocr's plan as in
// the no-reuse oracle's; and a plan that overlaps two live tensors by hand is caught by
// that comparison once poisoning is on, even where the overwrite wrote the right values.
#include "reference/builder.hpp"
#include "reference/graph_allocator.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/working_graph.hpp"
#include "simulator/executor/graph_tensors.hpp"
#include "simulator/executor/oracle.hpp"
#include "simulator/executor/planned_run.hpp"
#include "tests/test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

namespace gallocsim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

float read_float(const Tensor& tensor) {
    float value = 0;
    EXPECT_EQ(tensor.buffer->get_tensor(tensor, std::as_writable_bytes(std::span(&value, 1)), 0), Status::success);
    return value;
}

// --- The seed graph ---------------------------------------------------------------------

// gallocr's plan for the seed graph: one 64-byte buffer, mul in a's place.
//
//   0            32           64
//   +------------+------------+
//   | a = 3      | b = 7      |   before mul runs
//   +------------+------------+
//   | mul = 21   | b = 7      |   after: mul wrote over a, its only reader
//   +------------+------------+
TEST(ExecutorSeed, ComputesThreeTimesSevenInAsPlace) {
    WorkingGraph file = working_copy(seed_example());
    CpuBufferType cpu;
    GraphAllocator allocator(cpu);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();
    ASSERT_EQ(allocator.buffer_size(0), 64u);
    const Tensor& a = *file.context.find("a");
    const Tensor& mul = *file.context.find("mul");
    ASSERT_EQ(mul.data, a.data);

    Executor executor(Backend::cpu);
    const ExecutionResult result = executor.run(file.graph, {.values = {{"a", {3}}, {"b", {7}}}});

    ASSERT_TRUE(result.ok()) << result.error;
    ASSERT_EQ(result.outputs.size(), 1u);
    EXPECT_EQ(result.outputs[0].name, "mul");
    EXPECT_THAT(result.outputs[0].floats(), ElementsAre(21.0f));
    EXPECT_EQ(read_float(a), 21.0f);  // a's bytes now hold the product
    EXPECT_EQ(read_float(*file.context.find("b")), 7.0f);
}

TEST(ExecutorSeed, TheOraclePutsMulInItsOwnPlace) {
    WorkingGraph file = working_copy(seed_example());
    CpuBufferType cpu;
    OracleAllocator oracle(cpu);
    ASSERT_TRUE(oracle.alloc_graph(file.graph)) << oracle.last_error();
    //   0       32      64      96
    //   | a     | b     | mul   |
    EXPECT_EQ(oracle.buffer_size(), 96u);
    EXPECT_EQ(oracle.offset_of(*file.context.find("a")), 0u);
    EXPECT_EQ(oracle.offset_of(*file.context.find("b")), 32u);
    EXPECT_EQ(oracle.offset_of(*file.context.find("mul")), 64u);

    Executor executor(Backend::cpu);
    const ExecutionResult result = executor.run(file.graph, {.values = {{"a", {3}}, {"b", {7}}}});
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_THAT(result.outputs[0].floats(), ElementsAre(21.0f));
    EXPECT_EQ(read_float(*file.context.find("a")), 3.0f);  // untouched: nothing shares memory
}

// --- A llama-style graph ------------------------------------------------------------------

class LlamaOnCpu : public ::testing::Test {
protected:
    WorkingGraph llama = working_copy(llama_example({.layers = 2, .embd = 64, .heads = 4, .ff = 160, .tokens = 5, .vocab = 96, .mask = true}));
    Executor cpu{Backend::cpu};
};

TEST_F(LlamaOnCpu, GallocrPlanComputesTheOracleOutputsBitForBit) {
    const PlannedRun gallocr = plan_and_run(llama.graph, Planner::gallocr, cpu, {.poison = true});
    const PlannedRun oracle = plan_and_run(llama.graph, Planner::oracle, cpu, {.poison = true});
    ASSERT_TRUE(gallocr.result.ok()) << gallocr.result.error;
    ASSERT_TRUE(oracle.result.ok()) << oracle.result.error;

    ASSERT_EQ(gallocr.result.outputs.size(), 1u);
    const TensorValue& logits = gallocr.result.outputs[0];
    EXPECT_EQ(logits.name, "result_output");
    EXPECT_EQ(logits.ne, (std::array<std::int64_t, 4>{96, 5, 1, 1}));
    for (const float value : logits.floats()) {
        ASSERT_TRUE(std::isfinite(value));
    }
    EXPECT_THAT(compare_values(oracle.result.outputs, gallocr.result.outputs), IsEmpty());
    EXPECT_LT(gallocr.planned_bytes, oracle.planned_bytes);  // the plan did reuse memory
}

// The comparison means something only if gallocr's plan shares memory: results written
// over their parents (in place), and results placed where dead tensors were.
TEST_F(LlamaOnCpu, GallocrPlanSharesMemoryInPlaceAndOverTime) {
    CpuBufferType type;
    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(llama.graph)) << allocator.last_error();
    int in_place = 0;
    int reused = 0;  // results placed over a tensor that is not one of their sources
    for (std::size_t i = 0; i < llama.graph.nodes.size(); ++i) {
        const Tensor* node = llama.graph.nodes[i];
        if (node->is_view()) {
            continue;
        }
        const auto is_source = [&](const Tensor* t) { return std::ranges::find(node->src, t) != node->src.end(); };
        for (std::size_t j = 0; j < i; ++j) {
            const Tensor* earlier = llama.graph.nodes[j];
            if (!earlier->is_view() && earlier->data == node->data) {
                (is_source(earlier) ? in_place : reused) += 1;
            }
        }
    }
    EXPECT_GT(in_place, 5);
    EXPECT_GT(reused, 5);
}

TEST_F(LlamaOnCpu, RunsRepeatBitForBitAndTheSeedMatters) {
    const PlannedRun first = plan_and_run(llama.graph, Planner::gallocr, cpu, {.seed = 7});
    const PlannedRun second = plan_and_run(llama.graph, Planner::gallocr, cpu, {.seed = 7});
    const PlannedRun other = plan_and_run(llama.graph, Planner::gallocr, cpu, {.seed = 8});
    ASSERT_TRUE(first.result.ok()) << first.result.error;
    EXPECT_THAT(compare_values(first.result.outputs, second.result.outputs), IsEmpty());
    EXPECT_THAT(compare_values(first.result.outputs, other.result.outputs), ElementsAre(HasSubstr("result_output")));
}

TEST_F(LlamaOnCpu, PoisoningChangesNothingInACorrectPlan) {
    const PlannedRun plain = plan_and_run(llama.graph, Planner::gallocr, cpu);
    const PlannedRun poisoned = plan_and_run(llama.graph, Planner::gallocr, cpu, {.poison = true});
    ASSERT_TRUE(plain.result.ok()) << plain.result.error;
    EXPECT_THAT(compare_values(plain.result.outputs, poisoned.result.outputs), IsEmpty());
}

// plan_and_run leaves the graph as it found it, so it can be planned again: no memory but
// the weights' outside data (the working copy's placeholder), as before.
TEST_F(LlamaOnCpu, PlanAndRunLeavesNoMemoryBehind) {
    ASSERT_TRUE(plan_and_run(llama.graph, Planner::gallocr, cpu).result.ok());
    for (const Tensor* tensor : graph_tensors(llama.graph)) {
        const bool weight = tensor->name.ends_with(".weight");
        EXPECT_EQ(tensor->data, weight ? external_data_placeholder() : nullptr) << tensor->name;
        EXPECT_EQ(tensor->buffer, nullptr) << tensor->name;
    }
}

// --- Wrong plans, made by hand --------------------------------------------------------------

// x is read twice: by t = cont(x) and, after t is dead, by out = sqr(t) + x. A plan that
// puts t over x (both live) is wrong. The oracle's plan and the wrong one, 32-byte slots:
//
//   oracle   0      32     64     96     128
//            | x    | t    | u    | out  |
//   wrong    | x=t  |      | u    | out  |   t written over x, which `out` reads later
class WrongPlan : public ::testing::Test {
protected:
    void build(bool copy) {
        x = &b.new_tensor(DataType::f32, {8}, "x");
        set_input(*x);
        t = copy ? &b.cont(*x) : &b.scale(*x, 2.0f);
        t->name = "t";
        Tensor& u = b.unary_op(Op::SQR, *t);
        u.name = "u";
        Tensor& out = b.add(u, *x);
        out.name = "out";
        set_output(out);
        build_forward_expand(graph, out);
        ASSERT_TRUE(oracle.alloc_graph(graph)) << oracle.last_error();
        ASSERT_EQ(oracle.offset_of(*t), 32u);
        right = executor.run(graph, {.poison = true});
        ASSERT_TRUE(right.ok()) << right.error;
        t->data = x->data;  // the wrong plan
    }

    Context context;
    GraphBuilder b{context};
    Graph graph;
    CpuBufferType cpu;
    OracleAllocator oracle{cpu};
    Executor executor{Backend::cpu};
    Tensor* x = nullptr;
    Tensor* t = nullptr;
    ExecutionResult right;
};

// t = cont(x) writes x's own values over x: without poisoning nothing shows.
TEST_F(WrongPlan, AnOverlapThatWritesTheSameValuesIsCaughtOnlyWithPoisoning) {
    ASSERT_NO_FATAL_FAILURE(build(/*copy=*/true));
    const ExecutionResult unpoisoned = executor.run(graph);
    ASSERT_TRUE(unpoisoned.ok()) << unpoisoned.error;
    EXPECT_THAT(compare_values(right.outputs, unpoisoned.outputs), IsEmpty());

    // With poisoning, t's bytes (x's) are poisoned once u has read t; out then reads NaN.
    const ExecutionResult poisoned = executor.run(graph, {.poison = true});
    ASSERT_TRUE(poisoned.ok()) << poisoned.error;
    EXPECT_THAT(compare_values(right.outputs, poisoned.outputs), ElementsAre(HasSubstr("tensor 'out': element 0 is -nan")));
}

// t = 2x over x changes what out reads: caught with or without poisoning.
TEST_F(WrongPlan, AnOverlapThatWritesOtherValuesIsCaughtEitherWay) {
    ASSERT_NO_FATAL_FAILURE(build(/*copy=*/false));
    for (const bool poison : {false, true}) {
        const ExecutionResult wrong = executor.run(graph, {.poison = poison});
        ASSERT_TRUE(wrong.ok()) << wrong.error;
        EXPECT_THAT(compare_values(right.outputs, wrong.outputs), ElementsAre(HasSubstr("tensor 'out': element 0"))) << poison;
    }
}

// --- Graph files ----------------------------------------------------------------------------

using test_support::golden_dir;

class GoldenLlamaTiny : public ::testing::TestWithParam<const char*> {};

// llama-tiny-t1 has f32 weights, llama-tiny-t32 f16 ones; both are `data: true`, so the
// executor gives them memory for the run and takes it back.
TEST_P(GoldenLlamaTiny, GallocrPlanComputesTheOracleOutputsBitForBit) {
    const auto path = golden_dir() / GetParam();
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " not found";
    }
    GraphFile file = load_graph_file(path);
    Executor cpu(Backend::cpu);
    const PlannedRun gallocr = plan_and_run(file, Planner::gallocr, cpu, {.poison = true});
    const PlannedRun oracle = plan_and_run(file, Planner::oracle, cpu, {.poison = true});
    ASSERT_TRUE(gallocr.result.ok()) << gallocr.result.error;
    ASSERT_TRUE(oracle.result.ok()) << oracle.result.error;
    ASSERT_NE(gallocr.result.find("result_output"), nullptr);
    EXPECT_THAT(compare_values(oracle.result.outputs, gallocr.result.outputs), IsEmpty());
    EXPECT_EQ(gallocr.planned_bytes, file.expected->buffer_sizes.at(0));  // the file's own plan
    for (const Tensor& tensor : file.context.tensors()) {  // planned and run on a copy: the file holds no address
        EXPECT_EQ(tensor.data, nullptr) << tensor.name;
        EXPECT_EQ(tensor.buffer, nullptr) << tensor.name;
    }
}

INSTANTIATE_TEST_SUITE_P(Files, GoldenLlamaTiny, ::testing::Values("llama-tiny-t1.json", "llama-tiny-t32.json"));

// Multiply-adds of the file's MUL_MATs, to keep the sweep below fast.
std::int64_t mul_mat_work(const GraphFile& file) {
    std::int64_t work = 0;
    for (const Tensor& tensor : file.context.tensors()) {
        if (tensor.op == Op::MUL_MAT && tensor.src[0] != nullptr) {
            work += element_count(tensor) * tensor.src[0]->ne[0];
        }
    }
    return work;
}

// Every small graph of the corpus that the executor can run computes the same bits in
// gallocr's plan as in the oracle's, with poisoning. The rest are refused for a reason
// (k-quant weights, quantized CPY destinations), never for a wrong result.
TEST(GoldenCorpus, SmallExecutableGraphsComputeTheOracleOutputs) {
    if (!std::filesystem::exists(golden_dir())) {
        GTEST_SKIP() << golden_dir() << " not found";
    }
    Executor cpu(Backend::cpu);
    int agreed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(golden_dir())) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        GraphFile file = load_graph_file(entry.path());
        std::int64_t elements = 0;
        for (const Tensor& tensor : file.context.tensors()) {
            elements += element_count(tensor);
        }
        if (mul_mat_work(file) > 1'000'000 || elements > 1'000'000) {
            continue;
        }
        const std::string name = entry.path().filename().string();
        const PlannedRun gallocr = plan_and_run(file, Planner::gallocr, cpu, {.poison = true});
        if (!gallocr.result.ok()) {
            EXPECT_THAT(gallocr.result.error, HasSubstr("not executable: ")) << name;
            continue;
        }
        const PlannedRun oracle = plan_and_run(file, Planner::oracle, cpu, {.poison = true});
        ASSERT_TRUE(oracle.result.ok()) << name << ": " << oracle.result.error;
        EXPECT_THAT(compare_values(oracle.result.outputs, gallocr.result.outputs), IsEmpty()) << name;
        ++agreed;
    }
    EXPECT_GE(agreed, 50);
}

} // namespace
} // namespace gallocsim
