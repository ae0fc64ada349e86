// The analysis commands as the command line runs them: their output and exit codes.
#include "simulator/cli/analysis_commands.hpp"
#include "simulator/cli/commands.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gallocsim::cli {
namespace {

struct Result {
    int code;
    std::string out;
    std::string err;
};

template <typename Command, typename Options>
Result run(Command command, const Options& options) {
    std::ostringstream out, err;
    const int code = command(options, out, err);
    return {code, out.str(), err.str()};
}

// One planner's row of compare's table: "  <name>  <bytes>  <to bound>  <to no reuse>  [note]".
struct Row {
    std::size_t bytes = 0;
    double to_bound = 0;
    double to_no_reuse = 0;
    std::string note;
};

Row row(const std::string& table, const std::string& name) {
    const auto at = table.find("  " + name + "  ");
    if (at == std::string::npos) {
        ADD_FAILURE() << "no row " << name << " in\n" << table;
        return {};
    }
    const auto end = table.find('\n', at);
    std::istringstream line(table.substr(at + name.size() + 2, end - at - name.size() - 2));
    Row r;
    line >> r.bytes >> r.to_bound >> r.to_no_reuse >> std::ws;
    std::getline(line, r.note);
    return r;
}

GraphInput input(std::string name) {
    GraphInput in;
    in.input = std::move(name);
    return in;
}

// The seed graph: ggml needs 64 bytes (mul runs in place of a), every alternative 96.
TEST(CompareCommand, PrintsEachPlannerAgainstTheBounds) {
    const Result r = run(compare, CompareOptions{input("seed"), 1.0});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out,
              "seed-mul: 1 nodes, 2 leafs\n"
              "\n"
              "buffer type CPU (alignment 32): 3 tensors with memory of their own\n"
              "  planner                              bytes / lower bound  / no reuse\n"
              "  ggml (gallocr)                          64         0.667       0.667\n"
              "  greedy by size                          96         1.000       1.000\n"
              "  first fit, execution order              96         1.000       1.000\n"
              "  exact (branch and bound)                96         1.000       1.000  optimal\n"
              "  lower bound                             96         1.000       1.000  peak of live bytes, at step 1 (mul)\n"
              "  no reuse                                96         1.000       1.000\n"
              "\n"
              "The alternatives lay each buffer type out in one arena: no chunks (max_size) and no in-place\n"
              "reuse. ggml may split a buffer into chunks, and may hand a parent's memory to its last\n"
              "consumer, so it can go below the lower bound, which assumes no in-place reuse.\n"
              "checker: ggml's plan keeps every rule\n");
}

TEST(CompareCommand, ReportsChunksAndTakesExampleOptions) {
    CompareOptions options{input("llama"), 0.5};
    options.graph.model.tokens = 4;
    options.graph.buffers.max_size = 4096;
    const Result r = run(compare, options);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("llama-l1-e64-t4: 34 nodes, 14 leafs"), std::string::npos) << r.out;
    // The figures agree with each other and with `plan` on the same input, rather than with
    // numbers copied from a run: ggml's bytes are its chunks summed as plan reports them, its
    // chunk count is plan's, and each ratio is bytes over the lower bound's and no reuse's.
    const Row ggml = row(r.out, "ggml (gallocr)");
    const Row bound = row(r.out, "lower bound");
    const Row no_reuse = row(r.out, "no reuse");
    const Result planned = run(plan, PlanOptions{.graph = options.graph});
    std::size_t chunks_total = 0, chunk_count = 0;
    std::istringstream chunk_list(planned.out.substr(planned.out.rfind(" chunks: ") + 9));
    for (std::size_t size = 0; chunk_list >> size; ++chunk_count) {
        chunks_total += size;
    }
    EXPECT_GT(chunk_count, 1u);  // 4096-byte chunks cannot hold the plan in one
    EXPECT_EQ(ggml.bytes, chunks_total);
    EXPECT_EQ(ggml.note, "in " + std::to_string(chunk_count) + " chunks");
    EXPECT_NEAR(ggml.to_bound, static_cast<double>(ggml.bytes) / static_cast<double>(bound.bytes), 0.0005);
    EXPECT_NEAR(ggml.to_no_reuse, static_cast<double>(ggml.bytes) / static_cast<double>(no_reuse.bytes), 0.0005);
    EXPECT_EQ(bound.to_bound, 1.0);
    EXPECT_EQ(no_reuse.to_no_reuse, 1.0);
}

TEST(CompareCommand, BadInputExitsWithTwoAndSaysWhy) {
    Result r = run(compare, CompareOptions{input("no-such-file.json"), 1.0});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "no-such-file.json: no such file\n");
    CompareOptions heads{input("mlp"), 1.0};
    heads.graph.model.heads = 2;
    r = run(compare, heads);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "example \"mlp\": does not take heads\n");
    CompareOptions alignment{input("seed"), 1.0};
    alignment.graph.buffers.alignment = 48;
    EXPECT_EQ(run(compare, alignment).err, "--alignment must be a power of two, got 48\n");
}

// A max_size of 32 splits the seed plan in two chunks: b moves to the second.
TEST(DiffCommand, ShowsSizesChunksAndMovedTensors) {
    DiffOptions options{input("seed"), "", {}};
    options.after_buffers.max_size = 32;
    const Result r = run(diff, options);
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out,
              "A: seed\n"
              "B: seed, max_size 32\n"
              "\n"
              "buffer 0 (CPU): 64 -> 64 bytes (+0, +0.0%), chunks [64] -> [32, 32]\n"
              "1 tensor moved, 2 unchanged\n"
              "\n"
              "tensor  A buffer:chunk:offset   B buffer:chunk:offset\n"
              "b       0:0:32                  0:1:0\n");
}

TEST(DiffCommand, ComparesTwoGraphsByTensorName) {
    const Result r = run(diff, DiffOptions{input("seed"), "sched-issue", {}});
    EXPECT_EQ(r.code, 0);
    // No name is in both graphs: seed's a, b, mul are only in A, sched-issue's five only in B.
    EXPECT_NE(r.out.find("buffer 0 (CPU): 64 -> 96 bytes (+32, +50.0%), chunks [64] -> [96]\n"
                         "0 tensors moved, 0 unchanged, 3 only in A, 5 only in B\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("a2      -                       0:0:32"), std::string::npos) << r.out;
}

TEST(RenderCommand, WritesSvgAndChecksTheStep) {
    RenderOptions options{input("sched-issue"), "-", "ggml", std::nullopt};
    Result r = run(render, options);
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(r.out.starts_with("<svg "));
    options.planner = "greedy";
    options.memory_map_at = 1;
    r = run(render, options);
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("greedy plan at step 1 (ab)"), std::string::npos);
    options.memory_map_at = 3;
    r = run(render, options);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "--memory-map-at 3: the plan has steps 0 to 2\n");
    options.planner = "best";
    EXPECT_EQ(run(render, options).err, "--planner: unknown planner \"best\" (ggml, greedy, first-fit or exact)\n");
}

TEST(MiniMallocCommands, ExportThenImport) {
    const auto csv = std::filesystem::temp_directory_path() / "gallocsim-sched-issue.csv";
    ExportMiniMallocOptions out_options{input("sched-issue"), csv.string(), "", true};
    ASSERT_EQ(run(export_minimalloc, out_options).code, 0);
    std::ifstream file(csv);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(text.str(),
              "id,lower,upper,size,alignment,offset\n"
              "c,0,3,32,32,0\n"
              "a2,0,2,32,32,32\n"
              "b2,0,2,32,32,64\n"
              "ab,1,3,32,32,32\n"
              "result,2,3,32,32,0\n");
    // ggml's offsets share bytes at the in-place hand-offs, which the format calls overlaps.
    const Result r = run(import_minimalloc, ImportMiniMallocOptions{csv.string(), 1.0});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("  offsets in the file                     96         0.750       0.600  INVALID\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  exact (branch and bound)               128         1.000       0.800  optimal\n"), std::string::npos);
    EXPECT_NE(r.out.find("break 2 rule(s); 2 of them hand-offs"), std::string::npos);
    std::filesystem::remove(csv);
}

// x and y live at the same single step: a plain overlap, not a hand-off.
TEST(MiniMallocCommands, ImportReportsOverlapsInTheFilesOffsets) {
    const auto csv = std::filesystem::temp_directory_path() / "gallocsim-overlap.csv";
    std::ofstream(csv) << "id,lower,upper,size,offset\nx,0,1,5,3\ny,0,1,5,0\n";
    const Result r = run(import_minimalloc, ImportMiniMallocOptions{csv.string(), 1.0});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("the file's offsets break 1 rule(s):\n  overlap: tensors 'y' (bytes [0, 5)) and 'x' (bytes [3, 8))"),
              std::string::npos)
        << r.out;
    std::filesystem::remove(csv);
}

TEST(MiniMallocCommands, ExportAsksWhichBufferTypeWhenThereAreSeveral) {
    ExportMiniMallocOptions options{input("llama"), "-", "", false};
    options.graph.model.buffers = "split";
    Result r = run(export_minimalloc, options);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "llama: tensors live in 2 buffer types (CUDA0, CPU); choose one with --buffer-type\n");
    options.buffer_type = "CPU";
    r = run(export_minimalloc, options);
    EXPECT_EQ(r.code, 0);
    // Sizes are aligned; inp_pos is last read by Qcur-0's rope (step 14), inp_embd by ffn_inp-0 (23).
    EXPECT_EQ(r.out,
              "id,lower,upper,size,alignment\n"
              "inp_tokens,0,2,32,32\n"
              "inp_pos,0,15,32,32\n"
              "inp_embd,1,24,256,32\n");
}

TEST(ExamplesCommand, ExportsWithParameters) {
    ModelFlags flags;
    flags.layers = 3;
    flags.weights = "q8_0";
    std::ostringstream out, err;
    EXPECT_EQ(export_example("llama", flags, "-", out, err), 0);
    const GraphFile file = parse_graph_file(out.str(), "exported");
    EXPECT_EQ(file.graph.nodes.size(), 3 * 30u + 4);
    EXPECT_EQ(file.context.find("blk.2.attn_q.weight")->type, DataType::q8_0);
    flags.weights = "q9";
    EXPECT_EQ(export_example("llama", flags, "-", out, err), 2);
    EXPECT_EQ(err.str(), "--weights: unknown type \"q9\" (f32, f16, q4_0, q8_0, q4_k, ...)\n");
}

} // namespace
} // namespace gallocsim::cli
