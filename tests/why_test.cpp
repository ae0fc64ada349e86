// `gallocsim why`: where each buffer's size was set, what was live, the holes, and the
// bound. The seed's answer is worked out by hand; on every golden file the answer must add
// up: what was live plus the holes is the high-water mark, and the plan is never below the
// in-place-aware bound. The command runs as typed (why has no header of its own:
// cli/command_list.hpp declares only its adder).
#include "simulator/analysis/why_report.hpp"
#include "simulator/cli/errors.hpp"
#include "tests/command_line_runner.hpp"
#include "tests/golden_files.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <filesystem>

namespace gallocsim::cli {
namespace {

using nlohmann::json;
using testing_support::Outcome;
using testing_support::run;

json why_json(const std::string& input) {
    const Outcome why = run({"why", input, "--json"});
    EXPECT_EQ(why.code, kDone) << why.err;
    return json::parse(why.out);
}

// The seed's trace: 1 plan-started, 2 chunk-created, 3 a allocated at 0, 4 b allocated at
// 32: the high-water mark reaches 64, the buffer's size, at event 4, before any node runs.
//
//   0        32       64
//   [   a    |   b    )     live: a and b, 32 bytes each; no hole
//
// mul then runs in a's bytes, so with ggml's in-place decision the bound is 64 too (a+mul
// and b), and greedy by size on those blocks also needs 64.
TEST(WhyCommand, SeedSizeIsSetWhenBothLeafsAreLive) {
    const json report = why_json("seed");
    ASSERT_EQ(report["buffers"].size(), 1u);
    const json& buffer = report["buffers"][0];
    EXPECT_EQ(buffer["size"], 64);
    EXPECT_EQ(buffer["peak"]["event"], 4);
    EXPECT_EQ(buffer["peak"]["node_step"], 0);
    EXPECT_EQ(buffer["peak"]["node"], nullptr);
    ASSERT_EQ(buffer["live"].size(), 2u);
    EXPECT_EQ(buffer["live"][0]["name"], "a");
    EXPECT_EQ(buffer["live"][0]["bytes"], 32);
    EXPECT_EQ(buffer["live"][1]["name"], "b");
    EXPECT_EQ(buffer["holes_bytes"], 0);
    EXPECT_EQ(buffer["lower_bound"], 64);
    EXPECT_EQ(buffer["best_alternative"], 64);
}

// What each live tensor costs on its own: the plan made again with it outside the buffer.
// docs/examples/rope-through-view.json (alignment 32) by hand: x at 0, a at 64, q in x's slot
// at 0, qr at the tail (128), k in q's slot at 0, a's slot [32, 128) a hole below qr, kq at the
// tail (192): 1216 bytes, set when kq is placed, with kq, qr and k live.
//   - without kq: out (ADD) cannot run in place of it and needs 1024 bytes of its own; qr is
//     freed after kq's step, so the tail starts at 32: 32 + 1024 = 1056.
//   - without qr: q's slot is free once the view q2 is done, k takes [0, 32), a's [64, 128)
//     joins the tail at 32, and kq goes there: 1056.
//   - without k: qr still sits at 128 above the [0, 128) hole and kq at 192: 1216, no saving.
TEST(WhyCommand, EachLargeLiveTensorSaysWhatThePlanWouldBeWithoutIt) {
    const json report = why_json(GALLOCSIM_SOURCE_DIR "/docs/examples/rope-through-view.json");
    const json& live = report["buffers"][0]["live"];
    ASSERT_EQ(live.size(), 3u);
    EXPECT_EQ(live[0]["name"], "kq");
    EXPECT_EQ(live[0]["size_without_it"], 1056);
    EXPECT_EQ(live[1]["name"], "qr");
    EXPECT_EQ(live[1]["size_without_it"], 1056);
    EXPECT_EQ(live[2]["name"], "k");
    EXPECT_EQ(live[2]["size_without_it"], 1216);
}

// What a hole costs: the plan made again without the tensor whose release left it. A chain
// of copies, alignment 32, every size a multiple of 32 (f32):
//   x  input [8]   32 bytes, allocated first at 0
//   a = CONT(x)   64 bytes: the tail, [32, 96); then x has no consumer left and is freed
//   b = CONT(a)  128 bytes: [0, 32) is too small, so the tail, [96, 224): the size, 224
//   c = CONT(b)   32 bytes, output: in a's freed bytes
//
//   0    32        96                   224
//   [hole|    a    |          b         )     set when b is placed; x's release left the hole
//
// Without x in the buffer (external, as weights are): a at 0, b at [64, 192), c at 0: 192
// bytes, so the hole costs 32. (CONT never runs in place.)
TEST(WhyCommand, EachHoleSaysWhatThePlanWouldBeWithoutTheTensorThatLeftIt) {
    const auto path = test_support::scratch_path("why-hole.json");
    {
        std::ofstream file(path);
        file << R"({"format": "ggml-graph/1", "name": "copies",
            "buffer_types": [{"name": "CPU", "alignment": 32}],
            "tensors": [{"name": "x", "type": "f32", "ne": [8], "flags": ["input"]},
                        {"name": "a", "type": "f32", "ne": [16], "op": "CONT", "src": ["x"]},
                        {"name": "b", "type": "f32", "ne": [32], "op": "CONT", "src": ["a"]},
                        {"name": "c", "type": "f32", "ne": [8], "op": "CONT", "src": ["b"], "flags": ["output"]}],
            "leafs": ["x"], "nodes": ["a", "b", "c"]})";
    }
    const json report = why_json(path.string());
    std::filesystem::remove(path);
    const json& buffer = report["buffers"][0];
    EXPECT_EQ(buffer["size"], 224);
    ASSERT_EQ(buffer["holes"].size(), 1u);
    const json& hole = buffer["holes"][0];
    EXPECT_EQ(hole["offset"], 0);
    EXPECT_EQ(hole["bytes"], 32);
    ASSERT_EQ(hole["runs"].size(), 1u);
    EXPECT_EQ(hole["runs"][0]["last_holder"], "x");
    ASSERT_EQ(hole["makers"].size(), 1u);
    EXPECT_EQ(hole["makers"][0]["tensor"], "x");
    EXPECT_EQ(hole["makers"][0]["size_without_it"], 192);
    EXPECT_EQ(hole["passed_over_by"]["tensor"], "b");  // 128 bytes: larger than the hole
    EXPECT_EQ(hole["passed_over_by"]["bytes"], 128);
}

// A hole is told by its bytes, not by the last free that touched it (docs/examples/carved-hole.json).
// Alignment 32, f32:
//   x  input [32]  128 bytes at [0, 128)
//   k = CONT(x)     32 bytes, output, at the tail [128, 160); x has no consumer left: [0, 128) free
//   p = CONT(k)     32 bytes: best fit, [0, 32)
//   q = CONT(p)     32 bytes: best fit in [32, 128), so [32, 64); p is freed: [0, 32) free again
//   s = CONT(q)     32 bytes: the smaller of [0, 32) and [64, 128), so [0, 32); q is freed and
//                   joins [64, 128): the hole [32, 128)
//   r = CONT(s)    256 bytes: no hole holds it, the tail [160, 416): the size, 416
//
//   0      32     64             128     160                      416
//   |  s   | q's  |     x's      |   k   |            r           )   at r's placement
//           \___ the hole: x's block; q's bytes were carved from it
//
// So the hole has two runs, [32, 64) q's (carved from x's block) and [64, 128) x's; x made all
// 96 bytes of it, q 32. The next request that grew the buffer after q's free is r (256 bytes).
// Without x in the buffer: k [0, 32), p [32, 64), q [64, 96), p freed, s in p's [32, 64), q
// freed into the tail, r at [64, 320): 320 bytes. Without q: p is freed at q's step, so [0, 128)
// is whole again, s takes [0, 32) and r still goes to the tail at 160: 416, nothing saved.
TEST(WhyCommand, AHoleIsToldByItsBytesAndTheRequestThatPassedItBy) {
    const std::string path = GALLOCSIM_SOURCE_DIR "/docs/examples/carved-hole.json";
    const json report = why_json(path);
    const Outcome text = run({"why", path});
    const json& buffer = report["buffers"][0];
    EXPECT_EQ(buffer["size"], 416);
    ASSERT_EQ(buffer["holes"].size(), 1u);
    const json& hole = buffer["holes"][0];
    EXPECT_EQ(hole["offset"], 32);
    EXPECT_EQ(hole["bytes"], 96);
    ASSERT_EQ(hole["runs"].size(), 2u);
    EXPECT_EQ(hole["runs"][0]["offset"], 32);
    EXPECT_EQ(hole["runs"][0]["bytes"], 32);
    EXPECT_EQ(hole["runs"][0]["last_holder"], "q");
    EXPECT_EQ(hole["runs"][1]["offset"], 64);
    EXPECT_EQ(hole["runs"][1]["bytes"], 64);
    EXPECT_EQ(hole["runs"][1]["last_holder"], "x");
    EXPECT_EQ(hole["passed_over_by"]["tensor"], "r");
    EXPECT_EQ(hole["passed_over_by"]["bytes"], 256);
    ASSERT_EQ(hole["makers"].size(), 2u);
    EXPECT_EQ(hole["makers"][0]["tensor"], "x");
    EXPECT_EQ(hole["makers"][0]["bytes"], 96);
    EXPECT_EQ(hole["makers"][0]["size_without_it"], 320);
    EXPECT_EQ(hole["makers"][1]["tensor"], "q");
    EXPECT_EQ(hole["makers"][1]["bytes"], 32);
    EXPECT_EQ(hole["makers"][1]["size_without_it"], 416);
    EXPECT_NE(text.out.find("[32, 64) 32 B: q's memory, given back at event "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("; carved from x's block"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("it stayed a hole: the next request that grew the buffer after it was complete, r (256 B, "),
              std::string::npos)
        << text.out;
}

// The peak by kind. The rope example's mark (above: kq, qr and k live) by op: kq is a REPEAT
// of 16 x 16 f32 (1024 bytes), qr a SCALE of 4 x 4 (64), k a SUM_ROWS of one f32 (32, aligned).
// Its names carry no layer number, which the split by layer says rather than inventing one.
TEST(WhyCommand, SplitsThePeakByOpAndSaysWhenNamesCarryNoLayer) {
    const json report = why_json(GALLOCSIM_SOURCE_DIR "/docs/examples/rope-through-view.json");
    const json& by_op = report["buffers"][0]["live_by_op"];
    ASSERT_EQ(by_op.size(), 3u);
    EXPECT_EQ(by_op[0], (json{{"name", "REPEAT"}, {"bytes", 1024}, {"tensors", 1}}));
    EXPECT_EQ(by_op[1], (json{{"name", "SCALE"}, {"bytes", 64}, {"tensors", 1}}));
    EXPECT_EQ(by_op[2], (json{{"name", "SUM_ROWS"}, {"bytes", 32}, {"tensors", 1}}));
    EXPECT_TRUE(report["buffers"][0]["live_by_layer"].empty());
    const Outcome text = run({"why", GALLOCSIM_SOURCE_DIR "/docs/examples/rope-through-view.json"});
    EXPECT_NE(text.out.find("no live tensor's name carries a layer number"), std::string::npos) << text.out;
}

// By layer, on Llama-3.1-8B at 4096 context and 512-token batches: its buffer is set when
// layer 0's kq (the attention scores, 4096 keys x 512 queries x 32 heads, f32: 256 MiB) is
// placed, beside layer 0's roped Q (128 x 32 heads x 512 tokens, f32: 8 MiB); everything else
// live then is an input or the embeddings, whose names carry no layer.
TEST(WhyCommand, SplitsTheEightBPeakByLayer) {
    const json report = why_json(GALLOCSIM_SOURCE_DIR "/tests/data/captures/llama-3.1-8b-c4096-u512/graphs/445f3a36b2baa70c.json");
    const json& by_layer = report["buffers"][0]["live_by_layer"];
    ASSERT_EQ(by_layer.size(), 2u);
    EXPECT_EQ(by_layer[0], (json{{"name", "layer 0"}, {"bytes", (256 + 8) << 20}, {"tensors", 2}}));
    EXPECT_EQ(by_layer[1]["name"], "no layer");
}

// llama.cpp names a layer's tensors name-N; ggml's suffixes and our "#2" for a repeated name
// come after it. A number elsewhere in a name is not a layer.
TEST(WhyReport, ReadsTheLayerFromLlamaCppNames) {
    EXPECT_EQ(layer_of_name("attn_norm-3"), 3);
    EXPECT_EQ(layer_of_name("Qcur-12#3"), 12);
    EXPECT_EQ(layer_of_name("kq-0 (view)"), 0);
    EXPECT_EQ(layer_of_name("cache_k_l31 (view)"), std::nullopt);
    EXPECT_EQ(layer_of_name("node_5"), std::nullopt);
    EXPECT_EQ(layer_of_name("-3"), std::nullopt);
    EXPECT_EQ(layer_of_name("x-"), std::nullopt);
    EXPECT_EQ(layer_of_name("x-1234567"), std::nullopt);  // longer than any layer count: not one
}

// Where the bound is reached can be far from where the buffer's size was set. In a one-layer
// llama of width 64 over 32 tokens with a 4096-word vocabulary, the last node (node step 34
// of 34) is the output projection: it writes the logits, 4096 x 32 f32 = 524,288 bytes,
// while it reads the final norm, 64 x 32 f32 = 8,192 bytes (the norm's chain ran in place,
// so it is one block); the weight is outside the buffer. Nothing else is live then, and no
// other step holds more: the bound is those two blocks, 532,480 bytes.
TEST(WhyCommand, NamesWhereTheBoundIsReachedAndWhatIsLiveThere) {
    const Outcome why = run({"why", "llama", "--tokens", "32", "--vocab", "4096", "--json"});
    ASSERT_EQ(why.code, kDone) << why.err;
    const json report = json::parse(why.out);
    const json& at = report["buffers"][0]["lower_bound_at"];
    EXPECT_EQ(report["buffers"][0]["lower_bound"], 532480);
    EXPECT_EQ(at["node_step"], 34);
    EXPECT_EQ(at["node"], "result_output");
    ASSERT_EQ(at["live"].size(), 2u);
    EXPECT_EQ(at["live"][0]["blocks"], "result_output");
    EXPECT_EQ(at["live"][0]["bytes"], 524288);
    EXPECT_EQ(at["live"][1]["bytes"], 8192);
    const Outcome text = run({"why", "llama", "--tokens", "32", "--vocab", "4096"});
    ASSERT_EQ(text.code, kDone) << text.err;
    EXPECT_NE(text.out.find("the bound is reached at node step 34 (result_output running), with 2 blocks live: "
                            "result_output 512.00 KiB, "),
              std::string::npos)
        << text.out;
}

TEST(WhyCommand, TextNamesTheEventTheLiveTensorsAndTheBound) {
    const Outcome why = run({"why", "seed"});
    ASSERT_EQ(why.code, kDone) << why.err;
    const std::string& text = why.out;
    EXPECT_NE(text.find("its high-water mark was set at event 4 of 17 (leaf-allocated), node step 0 of 1"), std::string::npos)
        << text;
    EXPECT_NE(text.find("until its last consumer mul (node step 1)"), std::string::npos) << text;
    EXPECT_NE(text.find("the plan meets the bound"), std::string::npos) << text;
}

// Below each chunk's high-water mark every byte is a live tensor's or free: live + holes
// = size, whatever the graph; and no plan with ggml's in-place decisions needs less than
// the bound.
TEST(WhyCommand, EveryGoldenAnswerAddsUp) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        const Outcome why = run({"why", path.string(), "--json"});
        if (why.code == kFailed) {
            return;  // the file's plan fails (its expected result says so)
        }
        ASSERT_EQ(why.code, kDone) << why.err;
        // The document outlives the loop: a range-for over a member of a temporary would read
        // the temporary after its end (the asan preset caught that).
        const json answer = json::parse(why.out);
        for (const json& buffer : answer["buffers"]) {
            if (buffer["peak"].is_null()) {
                continue;
            }
            std::size_t live = 0;
            for (const json& tensor : buffer["live"]) {
                live += tensor["bytes"].get<std::size_t>();
            }
            EXPECT_EQ(live + buffer["holes_bytes"].get<std::size_t>(), buffer["size"].get<std::size_t>()) << buffer.dump();
            EXPECT_LE(buffer["lower_bound"].get<std::size_t>(), buffer["size"].get<std::size_t>());
        }
    });
}

TEST(WhyCommand, BadInputExitsWithTwo) {
    const Outcome why = run({"why", "no-such.json"});
    EXPECT_EQ(why.code, kBadInput);
    EXPECT_EQ(why.err, "no-such.json: no such file\n");
}

// The two-backend graph of tests/data/captures/two-backends (its README works the plan by
// hand). Its scheduler splits: nodes 1-2 (v, u) on Vulkan0, then split 1 from node 3, which
// begins with one input (the dependency view of r and the copy) and computes w on Vulkan_Host.
// Vulkan0 reaches 80 bytes in two chunks while v and u are live (node step 2), both of split 0;
// Vulkan_Host reaches 128 when w is placed beside the copy, both of split 1.
TEST(WhyCommand, TwoBackendsNameTheSchedulerSplitOfEachLiveTensor) {
    const json report = why_json(std::string(GALLOCSIM_TEST_DATA_DIR) + "/captures/two-backends/graphs/split.json");
    EXPECT_EQ(report["splits"], json::parse(R"([
        {"first_node_step": 1, "last_node_step": 2, "inputs": 0, "buffer": 0},
        {"first_node_step": 3, "last_node_step": 6, "inputs": 1, "buffer": 1}])"));
    ASSERT_EQ(report["buffers"].size(), 2u);
    const json& gpu = report["buffers"][0];
    EXPECT_EQ(gpu["chunk_sizes"], json::parse("[32, 48]"));
    EXPECT_EQ(gpu["peak"]["node_step"], 2);
    ASSERT_EQ(gpu["live"].size(), 2u);
    EXPECT_EQ(gpu["live"][0]["name"], "u");
    EXPECT_EQ(gpu["live"][0]["split"], 0);
    EXPECT_EQ(gpu["live"][1]["name"], "v");
    EXPECT_EQ(gpu["live"][1]["split"], 0);
    const json& host = report["buffers"][1];
    EXPECT_EQ(host["size"], 128);
    ASSERT_EQ(host["live"].size(), 2u);
    EXPECT_EQ(host["live"][0]["split"], 1);
    EXPECT_EQ(host["live"][1]["split"], 1);
}

// A graph the scheduler did not cut (no op NONE node) has no splits to show.
TEST(WhyCommand, GraphWithoutSchedulerInputsHasNoSplits) {
    const json report = why_json("seed");
    EXPECT_EQ(report["splits"], json::array());
    EXPECT_EQ(report["buffers"][0]["live"][0]["split"], nullptr);
}

// Issue 36, item 8: two zero-element tensors (a leaf and SCALE of it) in one buffer type. Every
// tensor needs 0 bytes, so reserve plans a buffer of 0 bytes whose high-water mark never rises;
// the tensors were planned there, so "nothing was planned in it" was false. Then alloc_graph
// meets a twice in a zero-size buffer, which has no address: where upstream aborts, the plan
// fails (exit 1) and the error follows the report (docs/divergences.md).
TEST(WhyCommand, ABufferOfOnlyZeroByteTensorsIsNotCalledEmpty) {
    const std::string graph = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [0]}, {"name": "c", "ne": [0], "op": "SCALE", "src": ["a"], "flags": ["output"]}],
        "leafs": ["a"], "nodes": ["c"]})";
    const Outcome why = run({"why", "-"}, graph);
    EXPECT_EQ(why.code, kFailed);
    EXPECT_NE(why.out.find("buffer 0 (CPU, alignment 32): 0 bytes\n  no tensor in it ever took a byte\n"), std::string::npos)
        << why.out;
    EXPECT_EQ(why.err, "standard input: tensor a already has memory (a buffer but no address: it sits in a zero-size buffer) "
                       "(upstream aborts here)\n");
}

} // namespace
} // namespace gallocsim::cli
