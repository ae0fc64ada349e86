// What each op computes, on small graphs with given values and exact answers; the type
// conversions the kernels share; and the errors of graphs the executor cannot run.
#include "reference/builder.hpp"
#include "simulator/executor/kernels.hpp"
#include "simulator/executor/planned_run.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gallocsim {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

using Values = std::map<std::string, std::vector<float>, std::less<>>;

class Ops : public ::testing::Test {
protected:
    Tensor& input(DataType type, std::initializer_list<std::int64_t> ne, const std::string& name) {
        Tensor& tensor = b.new_tensor(type, ne, name);
        set_input(tensor);
        return tensor;
    }

    // Marks the tensors as outputs, plans their graph with gallocr on the CPU and runs it.
    ExecutionResult run(std::initializer_list<Tensor*> outputs, Values values) {
        for (Tensor* output : outputs) {
            set_output(*output);
            build_forward_expand(graph, *output);
        }
        ExecutionOptions options;
        options.values = std::move(values);
        return plan_and_run(graph, Planner::gallocr, cpu, options).result;
    }

    // The elements of the named result (empty, with a failure, when the run failed).
    static std::vector<float> floats(const ExecutionResult& result, const std::string& name) {
        EXPECT_TRUE(result.ok()) << result.error;
        const TensorValue* value = result.find(name);
        EXPECT_NE(value, nullptr) << name;
        return value != nullptr ? value->floats() : std::vector<float>{};
    }

    std::vector<float> run_one(Tensor& output, Values values) {
        return floats(run({&output}, std::move(values)), output.name);
    }

    static Tensor& named(Tensor& tensor, const std::string& name) {
        tensor.name = name;
        return tensor;
    }

    Context context;
    GraphBuilder b{context};
    Graph graph;
    Executor cpu{Backend::cpu};
};

// --- Element-wise ------------------------------------------------------------------------------

// a is 3 x 2; b (3 x 1) repeats over a's rows, c (1 x 2) over its columns.
TEST_F(Ops, BinaryOpsRepeatTheSecondOperand) {
    Tensor& a = input(DataType::f32, {3, 2}, "a");
    Tensor& add = named(b.add(a, input(DataType::f32, {3, 1}, "b")), "add");
    Tensor& mul = named(b.mul(a, input(DataType::f32, {1, 2}, "c")), "mul");
    const ExecutionResult result = run({&add, &mul}, {{"a", {1, 2, 3, 4, 5, 6}}, {"b", {10, 20, 30}}, {"c", {2, 3}}});
    EXPECT_THAT(floats(result, "add"), ElementsAre(11, 22, 33, 14, 25, 36));
    EXPECT_THAT(floats(result, "mul"), ElementsAre(2, 4, 6, 12, 15, 18));
}

TEST_F(Ops, ScalarOps) {
    Tensor& x = input(DataType::f32, {4}, "x");
    Tensor& s = input(DataType::f32, {1}, "s");
    Tensor& sqr = named(b.unary_op(Op::SQR, x), "sqr");
    Tensor& root = named(b.unary_op(Op::SQRT, x), "sqrt");
    Tensor& half = named(b.scale(x, 0.5f), "half");
    Tensor& plus = named(b.add1(x, s), "plus");
    Tensor& ratio = named(b.div(x, x), "ratio");
    Tensor& difference = named(b.sub(x, x), "difference");
    Tensor& filled = named(b.fill(x, 2.5f), "filled");
    Tensor& log = named(b.unary_op(Op::LOG, x), "log");
    const ExecutionResult result =
        run({&sqr, &root, &half, &plus, &ratio, &difference, &filled, &log}, {{"x", {1, 4, 9, 16}}, {"s", {10}}});
    EXPECT_THAT(floats(result, "sqr"), ElementsAre(1, 16, 81, 256));
    EXPECT_THAT(floats(result, "sqrt"), ElementsAre(1, 2, 3, 4));
    EXPECT_THAT(floats(result, "half"), ElementsAre(0.5, 2, 4.5, 8));
    EXPECT_THAT(floats(result, "plus"), ElementsAre(11, 14, 19, 26));
    EXPECT_THAT(floats(result, "ratio"), ElementsAre(1, 1, 1, 1));
    EXPECT_THAT(floats(result, "difference"), ElementsAre(0, 0, 0, 0));
    EXPECT_THAT(floats(result, "filled"), ElementsAre(2.5, 2.5, 2.5, 2.5));
    EXPECT_THAT(floats(result, "log"), Pointwise(FloatNear(1e-6f), {0.0f, std::log(4.0f), std::log(9.0f), std::log(16.0f)}));
}

TEST_F(Ops, UnaryKinds) {
    Tensor& x = input(DataType::f32, {3}, "x");
    Tensor& relu = named(b.unary(x, UnaryOp::RELU), "relu");
    Tensor& silu = named(b.unary(x, UnaryOp::SILU), "silu");
    Tensor& gelu = named(b.unary(x, UnaryOp::GELU), "gelu");
    Tensor& neg = named(b.unary(x, UnaryOp::NEG), "neg");
    const ExecutionResult result = run({&relu, &silu, &gelu, &neg}, {{"x", {-1, 0, 1}}});
    EXPECT_THAT(floats(result, "relu"), ElementsAre(0, 0, 1));
    EXPECT_THAT(floats(result, "silu"), Pointwise(FloatNear(1e-6f), {-0.26894142f, 0.0f, 0.73105858f}));
    EXPECT_THAT(floats(result, "gelu"), Pointwise(FloatNear(1e-6f), {-0.15880801f, 0.0f, 0.84119199f}));
    EXPECT_THAT(floats(result, "neg"), ElementsAre(1, -0.0f, -1));
}

// An *_inplace result is a view of its first operand: the sum lands in a's memory.
TEST_F(Ops, InPlaceOpsWriteIntoTheirFirstOperand) {
    Tensor& a = input(DataType::f32, {2}, "a");
    Tensor& sum = named(b.binary_inplace(Op::ADD, a, input(DataType::f32, {2}, "b")), "sum");
    const ExecutionResult result = run({&sum}, {{"a", {1, 2}}, {"b", {10, 20}}});
    EXPECT_THAT(floats(result, "sum"), ElementsAre(11, 22));
    EXPECT_THAT(floats(result, "a"), ElementsAre(11, 22));  // the root, flagged output with its view
}

// --- Matrix product ------------------------------------------------------------------------------

// dst(i, j) = dot(row i of a, row j of b): a has 3 rows of 2, b 2 rows of 2.
TEST_F(Ops, MulMatDotsRowsOfBothOperands) {
    Tensor& a = input(DataType::f32, {2, 3}, "a");
    Tensor& product = named(b.mul_mat(a, input(DataType::f32, {2, 2}, "b")), "product");
    EXPECT_THAT(run_one(product, {{"a", {1, 2, 3, 4, 5, 6}}, {"b", {1, 1, 0, 1}}}), ElementsAre(3, 7, 11, 2, 4, 6));
}

// One row of a serves all three batches of b.
TEST_F(Ops, MulMatRepeatsTheFirstOperandOverBatches) {
    Tensor& a = input(DataType::f32, {2, 1, 1}, "a");
    Tensor& product = named(b.mul_mat(a, input(DataType::f32, {2, 1, 3}, "b")), "product");
    EXPECT_THAT(run_one(product, {{"a", {1, 2}}, {"b", {1, 0, 0, 1, 1, 1}}}), ElementsAre(1, 2, 3));
}

// A transposed operand is read through its strides: its rows are a's columns.
TEST_F(Ops, MulMatReadsATransposedView) {
    Tensor& a = input(DataType::f32, {2, 2}, "a");
    Tensor& product = named(b.mul_mat(b.transpose(a), input(DataType::f32, {2, 1}, "b")), "product");
    EXPECT_THAT(run_one(product, {{"a", {1, 2, 3, 4}}, {"b", {1, 0}}}), ElementsAre(1, 2));
}

// A q8_0 weight, filled with seeded blocks, times x: the dot of the dequantized blocks.
TEST_F(Ops, MulMatDequantizesQ8_0Weights) {
    Tensor& w = b.new_tensor(DataType::q8_0, {32, 2}, "w");
    Tensor& x = input(DataType::f32, {32, 1}, "x");
    Tensor& product = named(b.mul_mat(w, x), "product");
    std::vector<float> ones(32, 1.0f);
    const std::vector<float> got = run_one(product, {{"x", ones}});
    const std::vector<std::byte> blocks = fill_image(w, {.seed = ExecutionOptions{}.seed});
    std::vector<float> want(2, 0.0f);
    for (int row = 0; row < 2; ++row) {
        double sum = 0;
        for (int j = 0; j < 32; ++j) {
            sum += kernels::dequantize(DataType::q8_0, reinterpret_cast<const unsigned char*>(blocks.data()) + 34 * row, j);
        }
        want[static_cast<std::size_t>(row)] = static_cast<float>(sum);
    }
    EXPECT_EQ(got, want);
    EXPECT_NE(want[0], 0.0f);
}

// --- Normalisations and rotation ---------------------------------------------------------------

TEST_F(Ops, SoftMaxScalesMasksAndNormalises) {
    Tensor& x = input(DataType::f32, {2, 1}, "x");
    Tensor& mask = input(DataType::f32, {2, 1}, "mask");
    Tensor& plain = named(b.soft_max(x), "plain");
    Tensor& masked = named(b.soft_max(x, &mask, 1.0f), "masked");
    Tensor& scaled = named(b.soft_max(x, nullptr, 0.0f), "scaled");
    const float inf = std::numeric_limits<float>::infinity();
    const ExecutionResult result = run({&plain, &masked, &scaled}, {{"x", {0, std::log(3.0f)}}, {"mask", {0, -inf}}});
    EXPECT_THAT(floats(result, "plain"), Pointwise(FloatNear(1e-7f), {0.25f, 0.75f}));
    EXPECT_THAT(floats(result, "masked"), ElementsAre(1, 0));
    EXPECT_THAT(floats(result, "scaled"), ElementsAre(0.5, 0.5));
}

TEST_F(Ops, RmsNormDividesByTheRootMeanSquare) {
    Tensor& norm = named(b.rms_norm(input(DataType::f32, {2}, "x"), 0.0f), "norm");
    const float rms = std::sqrt(12.5f);
    EXPECT_THAT(run_one(norm, {{"x", {3, 4}}}), Pointwise(FloatNear(1e-6f), {3 / rms, 4 / rms}));
}

// Two tokens at positions 0 and 1: the first pair stays, the second turns by 1 radian
// (the first pair's angle is position * freq_base^0).
TEST_F(Ops, RopeTurnsPairsByPosition) {
    Tensor& x = input(DataType::f32, {2, 1, 2}, "x");
    Tensor& turned = named(b.rope(x, input(DataType::i32, {2}, "pos")), "turned");
    EXPECT_THAT(run_one(turned, {{"x", {1, 0, 1, 0}}, {"pos", {0, 1}}}),
                Pointwise(FloatNear(1e-6f), {1.0f, 0.0f, std::cos(1.0f), std::sin(1.0f)}));
}

TEST_F(Ops, SumRowsAndMean) {
    Tensor& a = input(DataType::f32, {3, 2}, "a");
    Tensor& sums = named(b.sum_rows(a), "sums");
    Tensor& means = named(b.mean(a), "means");
    const ExecutionResult result = run({&sums, &means}, {{"a", {1, 2, 3, 4, 5, 6}}});
    EXPECT_THAT(floats(result, "sums"), ElementsAre(6, 15));
    EXPECT_THAT(floats(result, "means"), ElementsAre(2, 5));
}

// --- Rows, copies and layout ---------------------------------------------------------------------

TEST_F(Ops, GetRowsPicksRowsByIndex) {
    Tensor& a = input(DataType::f32, {2, 3}, "a");
    Tensor& rows = input(DataType::i32, {2}, "rows");
    Tensor& picked = named(b.get_rows(a, rows), "picked");
    Tensor& from_half = named(b.get_rows(b.cast(a, DataType::f16), rows), "from_half");
    const ExecutionResult result = run({&picked, &from_half}, {{"a", {1, 2, 3, 4, 5, 6}}, {"rows", {2, 0}}});
    EXPECT_THAT(floats(result, "picked"), ElementsAre(5, 6, 1, 2));
    EXPECT_THAT(floats(result, "from_half"), ElementsAre(5, 6, 1, 2));
}

TEST_F(Ops, GetRowsRefusesAnIndexOutOfRange) {
    Tensor& picked = named(b.get_rows(input(DataType::f32, {2, 3}, "a"), input(DataType::i32, {1}, "rows")), "picked");
    const ExecutionResult result = run({&picked}, {{"rows", {3}}});
    EXPECT_EQ(result.error, "GET_ROWS picked: a row index is out of range");
}

// SET_ROWS writes row 1 of the cache; rows no index names keep their values.
TEST_F(Ops, SetRowsWritesRowsIntoItsDestination) {
    Tensor& cache = input(DataType::f32, {2, 3}, "cache");
    Tensor& written = named(b.set_rows(cache, input(DataType::f32, {2, 1}, "values"), input(DataType::i32, {1}, "rows")), "written");
    const ExecutionResult result = run({&written}, {{"cache", {0, 1, 2, 3, 4, 5}}, {"values", {9, 8}}, {"rows", {1}}});
    EXPECT_THAT(floats(result, "written"), ElementsAre(0, 1, 9, 8, 4, 5));
}

TEST_F(Ops, ConcatAndPad) {
    Tensor& a = input(DataType::f32, {2, 1}, "a");
    Tensor& rows = named(b.concat(a, input(DataType::f32, {2, 2}, "b"), 1), "rows");
    Tensor& columns = named(b.concat(a, input(DataType::f32, {1, 1}, "c"), 0), "columns");
    Tensor& padded = named(b.pad(a, {1, 1, 0, 0}), "padded");
    const ExecutionResult result = run({&rows, &columns, &padded}, {{"a", {1, 2}}, {"b", {3, 4, 5, 6}}, {"c", {7}}});
    EXPECT_THAT(floats(result, "rows"), ElementsAre(1, 2, 3, 4, 5, 6));
    EXPECT_THAT(floats(result, "columns"), ElementsAre(1, 2, 7));
    EXPECT_THAT(floats(result, "padded"), ElementsAre(1, 2, 0, 0, 0, 0));
}

// cont(transpose(a)) lays a's columns out as rows.
TEST_F(Ops, ContOfATransposeReordersElements) {
    Tensor& columns = named(b.cont(b.transpose(input(DataType::f32, {3, 2}, "a"))), "columns");
    EXPECT_THAT(run_one(columns, {{"a", {1, 2, 3, 4, 5, 6}}}), ElementsAre(1, 4, 2, 5, 3, 6));
}

// 1/3 in f16 is 0x3555 = 0.333251953125; back in f32 it stays that.
TEST_F(Ops, CastsConvertAndRound) {
    Tensor& half = named(b.cast(input(DataType::f32, {1}, "x"), DataType::f16), "half");
    Tensor& back = named(b.cast(half, DataType::f32), "back");
    const ExecutionResult result = run({&back}, {{"x", {1.0f / 3.0f}}});
    EXPECT_THAT(floats(result, "back"), ElementsAre(0.333251953125f));
}

// CPY into a view of dst: the copy's result is that view, and dst's root holds the bytes.
TEST_F(Ops, CpyWritesIntoAView) {
    Tensor& dst = input(DataType::f32, {4}, "dst");
    Tensor& copy = named(b.cpy(input(DataType::f32, {2}, "a"), b.view_1d(dst, 2, 8)), "copy");
    const ExecutionResult result = run({&copy}, {{"dst", {0, 0, 0, 0}}, {"a", {7, 8}}});
    EXPECT_THAT(floats(result, "copy"), ElementsAre(7, 8));
    EXPECT_THAT(floats(result, "dst"), ElementsAre(0, 0, 7, 8));
}

// --- Errors ------------------------------------------------------------------------------------------

TEST_F(Ops, AnOpWithoutKernelIsNotExecutable) {
    Tensor& a = input(DataType::f32, {4}, "a");
    Tensor sorted;
    sorted.name = "sorted";
    sorted.type = DataType::i32;
    sorted.ne = a.ne;
    sorted.nb = contiguous_strides(DataType::i32, sorted.ne);
    sorted.op = Op::ARGSORT;
    sorted.src[0] = &a;
    const ExecutionResult result = run({&context.add(std::move(sorted))}, {});
    EXPECT_EQ(result.error, "not executable: ARGSORT sorted: the executor has no kernel for this op");
}

TEST_F(Ops, KQuantWeightsAndQuantizedResultsAreNotExecutable) {
    Tensor& w = b.new_tensor(DataType::q4_k, {256, 2}, "w");
    Tensor& product = named(b.mul_mat(w, input(DataType::f32, {256, 1}, "x")), "product");
    EXPECT_EQ(run({&product}, {}).error, "not executable: MUL_MAT product: cannot read q4_k source w");

    Graph other;
    Tensor& quantized = named(b.cast(input(DataType::f32, {32}, "y"), DataType::q8_0), "quantized");
    set_output(quantized);
    build_forward_expand(other, quantized);
    EXPECT_EQ(plan_and_run(other, Planner::gallocr, cpu).result.error,
              "not executable: CPY quantized: cannot write a q8_0 result");
}

TEST_F(Ops, ShapesThatDoNotFitAreNotExecutable) {
    Tensor& joined = named(b.concat(input(DataType::f32, {2, 1}, "a"), input(DataType::f32, {2, 1}, "b"), 1), "joined");
    joined.ne = {3, 2, 1, 1};
    joined.nb = contiguous_strides(DataType::f32, joined.ne);
    EXPECT_EQ(run({&joined}, {}).error,
              "not executable: CONCAT joined: [2, 1, 1, 1] and [2, 1, 1, 1] do not concatenate to [3, 2, 1, 1]");
}

TEST_F(Ops, GivenValuesMustNameAFilledTensorAndFitIt) {
    Tensor& x = input(DataType::f32, {2}, "x");
    Tensor& doubled = named(b.scale(x, 2.0f), "doubled");
    EXPECT_EQ(run({&doubled}, {{"y", {1, 2}}}).error, "values given for 'y', which is not a tensor the executor fills");
    EXPECT_EQ(plan_and_run(graph, Planner::gallocr, cpu, {.values = {{"doubled", {1, 2}}}}).result.error,
              "values given for 'doubled', which is not a tensor the executor fills");
    EXPECT_EQ(plan_and_run(graph, Planner::gallocr, cpu, {.values = {{"x", {1}}}}).result.error,
              "values given for 'x': 1 for 2 elements");
}

TEST_F(Ops, AGraphWithoutRealMemoryIsRefused) {
    Tensor& doubled = named(b.scale(input(DataType::f32, {2}, "x"), 2.0f), "doubled");
    set_output(doubled);
    build_forward_expand(graph, doubled);
    EXPECT_EQ(cpu.run(graph).error, "tensor x has no memory: plan the graph first (alloc_graph)");

    BufferTypeSettings settings;
    settings.name = "fake";  // fake base addresses (the default): plans only, no memory
    ConfigurableBufferType fake(settings);
    BufferType* const types[] = {&fake};
    EXPECT_EQ(plan_and_run(graph, types, {}, {}, Planner::gallocr, cpu).result.error,
              "tensor x lives in a fake buffer, which is not CPU memory the executor can use");
}

TEST(ExecutorBackends, CudaIsRefusedWithItsReasonWhenUnavailable) {
    if (backend_available(Backend::cuda)) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    Context context;
    GraphBuilder b(context);
    Graph graph;
    Tensor& x = b.new_tensor(DataType::f32, {2}, "x");
    build_forward_expand(graph, b.scale(x, 2.0f));
    Executor cuda(Backend::cuda);
    const PlannedRun run = plan_and_run(graph, Planner::gallocr, cuda);
    EXPECT_FALSE(run.result.ok());
    EXPECT_THAT(run.result.error, HasSubstr("CUDA"));
    EXPECT_EQ(backend_unavailable_reason(Backend::cpu), "");
}

// --- Conversions the kernels share --------------------------------------------------------------

TEST(KernelConversions, FloatToHalfRoundsToNearestEven) {
    using kernels::float_to_half;
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);           // the largest half
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);           // rounds down to it
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);           // ties to even: infinity
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);      // the smallest subnormal
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);      // half of it ties to even: zero
    EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);      // 1.5 units ties to even: 2
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // halfway between 1 and the next: even
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
    EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
    EXPECT_EQ(float_to_half(std::nanf("")) & 0x7c00, 0x7c00);
    EXPECT_NE(float_to_half(std::nanf("")) & 0x03ff, 0);
}

TEST(KernelConversions, EveryHalfSurvivesARoundTrip) {
    for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const auto half = static_cast<std::uint16_t>(bits);
        const float value = kernels::half_to_float(half);
        if (std::isnan(value)) {
            continue;
        }
        ASSERT_EQ(kernels::float_to_half(value), half) << std::hex << bits;
    }
    EXPECT_EQ(kernels::half_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(kernels::half_to_float(0x3555), 0.333251953125f);
}

TEST(KernelConversions, Bf16KeepsTheTopSixteenBitsRounded) {
    EXPECT_EQ(kernels::float_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(kernels::float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie to even
    EXPECT_EQ(kernels::float_to_bf16(1.0f + std::ldexp(3.0f, -8)), 0x3f82);
    EXPECT_EQ(kernels::bf16_to_float(0xc040), -3.0f);
}

TEST(KernelConversions, QuantizedBlocksDequantize) {
    // q8_0: scale 0.5 (half 0x3800), then 32 signed quants.
    unsigned char q8[34] = {0x00, 0x38};
    q8[2 + 3] = static_cast<unsigned char>(-4);
    EXPECT_EQ(kernels::dequantize(DataType::q8_0, q8, 3), -2.0f);
    EXPECT_EQ(kernels::dequantize(DataType::q8_0, q8, 4), 0.0f);
    // q4_0: scale 1, element j < 16 in the low nibble of byte j, j >= 16 in the high one; minus 8.
    unsigned char q4[18] = {0x00, 0x3c};
    q4[2 + 5] = 0xf0;
    EXPECT_EQ(kernels::dequantize(DataType::q4_0, q4, 5), -8.0f);
    EXPECT_EQ(kernels::dequantize(DataType::q4_0, q4, 21), 7.0f);
    // q5_0: the fifth bit of element j is bit j of qh; minus 16.
    unsigned char q5[22] = {0x00, 0x3c, 0x00, 0x00, 0x02, 0x00};
    EXPECT_EQ(kernels::dequantize(DataType::q5_0, q5, 17), 0.0f);
    EXPECT_EQ(kernels::dequantize(DataType::q5_0, q5, 16), -16.0f);
}

TEST(KernelConversions, FloatToIntegerSaturatesAndMapsNanToZero) {
    using kernels::to_integer;
    EXPECT_EQ(to_integer<std::int8_t>(300.0f, -128.0, 127.0), 127);
    EXPECT_EQ(to_integer<std::int8_t>(-2.7f, -128.0, 127.0), -2);
    EXPECT_EQ(to_integer<std::int32_t>(std::nanf(""), -2147483648.0, 2147483647.0), 0);
}

} // namespace
} // namespace gallocsim
