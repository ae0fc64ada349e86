// `gallocsim policy`: rules, export, check and compare, through the command functions. The
// sizes asserted come from upstream, not from gallocsim: a golden file's `expected` plan (ggml
// d99724f2) and the real llama.cpp's buffer size recorded in the 8B capture's session.
#include "simulator/cli/graph_input.hpp"
#include "simulator/cli/policy_command.hpp"
#include "tests/cli_run.hpp"
#include "tests/test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace gallocsim::cli {
namespace {

using test_support::Result;
using test_support::run;
using ::testing::HasSubstr;

const std::string kGolden = GALLOCSIM_SHARED_DIR "/golden/upstream-view_inplace.json";
const std::string kCapture8b = GALLOCSIM_TEST_DATA_DIR "/captures/llama-3.1-8b-c4096-u512";

std::string write_policy(const std::string& name, const std::string& rules) {
    const auto path = test_support::scratch_path(name + ".json");
    std::ofstream(path) << R"({"format": "gallocsim-policy/1", "name": ")" << name
                        << R"(", "base": "llama.cpp-0c1e570", "rules": )" << rules << "}";
    return path.string();
}

nlohmann::json compare_json(std::vector<std::string> inputs, std::vector<std::string> policies) {
    PolicyCompareOptions options;
    options.inputs = std::move(inputs);
    options.policies = std::move(policies);
    options.json = true;
    const Result r = run(policy_compare, options);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

// The reference's plan of a golden file is upstream's: its sizes are the file's `expected`.
TEST(PolicyCompare, TheReferencePlansAGoldenFileAsUpstreamDid) {
    std::ifstream golden(kGolden);
    const nlohmann::json expected = nlohmann::json::parse(golden)["expected"];
    const nlohmann::json report = compare_json({kGolden}, {"ggml-f54604ef"});
    ASSERT_EQ(report["graphs"].size(), 1u);
    EXPECT_EQ(report["graphs"][0]["plans"][0]["buffer_sizes"], expected["buffer_sizes"]);
    EXPECT_EQ(report["policies"][0]["name"], "llama.cpp-0c1e570");
    EXPECT_EQ(report["policies"][1]["name"], "ggml-f54604ef");
}

// Llama-3.1-8B at 4k context, micro-batch 512: llama.cpp reserved 322,971,648 bytes (the
// session's buffer_sizes). With inplace_through_views, Qcur-0#3 = ROPE(RESHAPE(Qcur-0)) takes
// Qcur-0's 8 MiB slot instead of the tail (the trace of that plan, events 2372-2380), so the
// chunk's top, where kq-0 starts, is 8 MiB lower: 322,971,648 - 8,388,608 = 314,583,040. The
// bound (292.01 MiB: kq-0 256 MiB + 36.01 MiB live with it) is the same for both.
TEST(PolicyCompare, ThroughViewsSavesEightMebibytesOnTheLlama8bGraph) {
    const nlohmann::json report = compare_json({kCapture8b}, {write_policy("through-views", R"({"inplace_through_views": true})")});
    ASSERT_EQ(report["graphs"].size(), 2u);  // the ubatch graph and the one-token graph
    const nlohmann::json& big = report["graphs"][0];
    EXPECT_EQ(big["graph"], "llama-3.1-8b-c4096-u512 call 0");  // sessions count calls from 0
    EXPECT_EQ(big["nodes"], 1158);
    EXPECT_EQ(big["plans"][0]["total"], 322971648u);
    EXPECT_EQ(big["plans"][1]["total"], 322971648u - 8388608u);
    EXPECT_EQ(big["lower_bound"], 306192384u);
    EXPECT_EQ(report["policies"][1]["graphs_larger"], 0);
    EXPECT_EQ(report["policies"][1]["graphs_broken"], 0);
    EXPECT_EQ(report["policies"][1]["changes"][0]["rule"], "inplace_through_views");
}

// docs/examples/rope-through-view.json, by hand (alignment 32; x, a, q, qr 64 bytes, k 32, kq
// and out 1024): ggml puts x at 0, a at 64, q in x's freed slot at 0; qr cannot take q through
// the view q2, so it takes the tail at 128; k goes to q's freed slot at 0; kq takes the tail at
// 192: 1216 bytes. Through views, qr takes q at 0, k the tail at 128 (32 bytes), kq the tail at
// 160: 1184 bytes. The bound, at kq's step, is kq + qr + k = 1024 + 64 + 32 = 1120.
TEST(PolicyCompare, ThroughViewsOnTheDocsMiniatureOfLlamasQPath) {
    const nlohmann::json report =
        compare_json({GALLOCSIM_SOURCE_DIR "/docs/examples/rope-through-view.json"}, {GALLOCSIM_SOURCE_DIR "/docs/policies/through-views.json"});
    const nlohmann::json& graph = report["graphs"][0];
    EXPECT_EQ(graph["plans"][0]["total"], 1216);
    EXPECT_EQ(graph["plans"][1]["total"], 1184);
    EXPECT_EQ(graph["lower_bound"], 1120);
    // (1216 - 1120) excess, 32 of it recovered.
    EXPECT_DOUBLE_EQ(report["policies"][1]["share_of_excess_recovered"].get<double>(), 32.0 / 96.0);
}

// SwiGLU as llama.cpp builds it without a fused gate: s = GLU(gate, up), then z = s + y. By hand
// (f32 [8], 32 bytes each, alignment 32): x at 0, y at 32, gate at 64; x is freed once gate has
// run, so up takes [0, 32); ggml cannot run GLU in place, no free block is left, and s takes the
// tail at 96: 128 bytes. With GLU among the in-place ops (docs/policies/glu-in-place.json) s takes
// gate's memory at 64 (s is gate's last reader): 96 bytes. z runs in place of s either way.
TEST(PolicyCompare, GluInPlaceTakesTheGatesMemory) {
    const auto graph = test_support::scratch_path("swiglu.json");
    std::ofstream(graph) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "x", "type": "f32", "ne": [8], "flags": ["input"]},
                    {"name": "y", "type": "f32", "ne": [8], "flags": ["input"]},
                    {"name": "gate", "type": "f32", "ne": [8], "op": "CONT", "src": ["x"]},
                    {"name": "up", "type": "f32", "ne": [8], "op": "CONT", "src": ["y"]},
                    {"name": "s", "type": "f32", "ne": [8], "op": "GLU", "src": ["gate", "up"]},
                    {"name": "z", "type": "f32", "ne": [8], "op": "ADD", "src": ["s", "y"], "flags": ["output"]}],
        "leafs": ["x", "y"], "nodes": ["gate", "up", "s", "z"]})";
    const nlohmann::json report = compare_json({graph.string()}, {GALLOCSIM_SOURCE_DIR "/docs/policies/glu-in-place.json"});
    EXPECT_EQ(report["graphs"][0]["plans"][0]["total"], 128);
    EXPECT_EQ(report["graphs"][0]["plans"][1]["total"], 96);
    EXPECT_EQ(report["policies"][1]["changes"][0]["after"], "+GLU");
}

TEST(PolicyCompare, TheTableNamesEachPolicyAndWhatItChanges) {
    PolicyCompareOptions options;
    options.inputs = {kGolden};
    options.policies = {write_policy("first-fit", R"({"block_fit": "first"})")};
    const Result r = run(policy_compare, options);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("B = first-fit: block_fit best -> first\n"));
    EXPECT_THAT(r.out, HasSubstr("B (first-fit) against A: "));
}

// A policy that says "unsafe": true is read, and every report names it so: its letter's legend,
// a summary apart from the safe policies' under a line saying why, check's line, the JSON.
TEST(PolicyCompare, AnUnsafePolicyIsCountedApartAndMarked) {
    const auto path = test_support::scratch_path("mm.json");
    std::ofstream(path) << R"({"format": "gallocsim-policy/1", "name": "mm", "base": "llama.cpp-0c1e570", "unsafe": true,
                               "rules": {"inplace_ops": {"add": ["MUL_MAT"]}}})";
    PolicyCompareOptions options;
    options.inputs = {kGolden};
    options.policies = {write_policy("first-fit", R"({"block_fit": "first"})"), path.string()};
    const Result r = run(policy_compare, options);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("C = mm (unsafe): inplace_ops +MUL_MAT\n"));
    const std::size_t apart = r.out.find("\nUNSAFE policies: they run in place ops no ggml kernel can run over its source");
    ASSERT_NE(apart, std::string::npos) << r.out;
    EXPECT_LT(r.out.find("B (first-fit) against A: "), apart);            // the safe one before the line
    EXPECT_GT(r.out.find("C (mm (unsafe)) against A: "), apart);           // the unsafe one after it
    EXPECT_THAT(r.out, HasSubstr("  C (mm (unsafe)) runs in place: MUL_MAT\n"));
    options.json = true;
    const nlohmann::json report = nlohmann::json::parse(run(policy_compare, options).out);
    EXPECT_EQ(report["policies"][0]["unsafe"], false);
    EXPECT_EQ(report["policies"][1]["unsafe"], false);
    EXPECT_EQ(report["policies"][2]["unsafe"], true);
    EXPECT_EQ(report["policies"][2]["name"], "mm (unsafe)");
    std::ostringstream checked, check_err;
    EXPECT_EQ(policy_check({path.string()}, checked, check_err), 0) << check_err.str();
    EXPECT_EQ(checked.str(), path.string() + ": policy mm (unsafe), from llama.cpp-0c1e570: inplace_ops +MUL_MAT; UNSAFE: no "
                                           "ggml kernel can run MUL_MAT over its source, so no backend could run its plans\n");
}

// Without "unsafe", the same rule is bad input: exit 2, the file, the place and why.
TEST(PolicyCompare, AnOpNoKernelRunsInPlaceIsBadInput) {
    PolicyCompareOptions options;
    options.inputs = {kGolden};
    const std::string mm = write_policy("mm-safe", R"({"inplace_ops": {"add": ["MUL_MAT"]}})");
    options.policies = {mm};
    const Result r = run(policy_compare, options);
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr(mm + ": $.rules.inplace_ops.add[0]: MUL_MAT cannot run in place: "));
}

TEST(PolicyCompare, TheSvgHasABarPerGraphAndPolicy) {
    PolicyCompareOptions options;
    options.inputs = {kGolden};
    options.policies = {"ggml-f54604ef"};
    options.svg = test_support::scratch_path("policies.svg").string();
    ASSERT_EQ(run(policy_compare, options).code, 0);
    std::ifstream file(*options.svg);
    const std::string svg((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_THAT(svg, HasSubstr("data-policy=\"llama.cpp-0c1e570\""));
    EXPECT_THAT(svg, HasSubstr("data-policy=\"ggml-f54604ef\""));
}

TEST(PolicyCompare, ABadPolicyFileIsBadInputNamingTheFile) {
    PolicyCompareOptions options;
    options.inputs = {kGolden};
    const std::string bad = write_policy("bad", R"({"block_fit": 3})");
    options.policies = {bad};
    const Result r = run(policy_compare, options);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, bad + ": $.rules.block_fit: must be a string, got the number 3\n");
}

TEST(PolicyCompare, AnUnknownPolicyNameSaysWhatIsKnown) {
    PolicyCompareOptions options;
    options.inputs = {kGolden};
    options.policies = {"best-fit-ever"};
    const Result r = run(policy_compare, options);
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--policy best-fit-ever: "));  // the option it was given as (issue 53 item 9)
    EXPECT_THAT(r.err, HasSubstr("or a policy file (docs/policies.md)"));
}

// A state exported and checked: its file changes nothing from its base; against the newest it
// lacks the five changes after 254ea3e5 (profile.cpp's history; ops in ggml's op order).
TEST(PolicyCommand, AnExportedStateChecksAsChangingNothing) {
    const auto path = test_support::scratch_path("exported.json").string();
    ASSERT_EQ(run(policy_export, PolicyExportOptions{"ggml-254ea3e5", std::nullopt, path}).code, 0);
    std::ostringstream out, err;
    EXPECT_EQ(policy_check({path}, out, err), 0) << err.str();
    EXPECT_EQ(out.str(), path + ": policy ggml-254ea3e5, from ggml-254ea3e5: no rule differs (against the newest state, "
                                "llama.cpp-0c1e570: inplace_ops -CLAMP -FILL; tail_choice reuse_factor -> first_that_fits; "
                                "reallocation when_a_chunk_grows -> when_total_grows; free_extra_space freed_aligned -> kept; "
                                "external_buffer_is_allocated true -> false; has_reserve_n_size true -> false)\n");
}

TEST(PolicyCommand, CheckReportsEachBadFileAndGoesOn) {
    const std::string good = write_policy("good", R"({"fit_ties": "first"})");
    const std::string bad = write_policy("bad-ties", R"({"fit_ties": "middle"})");
    std::ostringstream out, err;
    EXPECT_EQ(policy_check({bad, good}, out, err), 2);
    EXPECT_EQ(err.str(), bad + ": $.rules.fit_ties: must be one of last, first, got \"middle\"\n");
    EXPECT_EQ(out.str(), good + ": policy good, from llama.cpp-0c1e570: fit_ties last -> first\n");
}

TEST(PolicyCommand, RulesListsEveryRuleAPolicyFileMaySet) {
    std::ostringstream out;
    policy_rules_list(out);
    for (const char* rule : {"inplace_ops:", "block_fit:", "fit_ties:", "inplace_through_views:", "chunks:", "tail_choice:",
                             "reallocation:", "free_extra_space:", "external_buffer_is_allocated:", "has_reserve_n_size:",
                             "replans_when_data_dropped:", "empty_buffers_are_dummies:"}) {
        EXPECT_THAT(out.str(), HasSubstr(std::string("\n") + rule)) << rule;
    }
}

// Every command that takes --ggml-version takes a policy file there (or as --policy).
TEST(PolicyCommand, APolicyFileIsAProfileForEveryCommand) {
    const std::string path = write_policy("largest", R"({"block_fit": "largest"})");
    const Rules rules = chosen_rules(path);
    EXPECT_EQ(rules.profile().name, "largest");
    EXPECT_EQ(rules.profile().block_fit, BlockFit::largest);
    EXPECT_NE(rules.policy(), nullptr);
}

} // namespace
} // namespace gallocsim::cli
