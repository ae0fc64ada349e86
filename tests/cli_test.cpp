// The step engine's commands, run in-process on the seed example: trace (text, JSON,
// ranges), walk (a scripted session) and stats, and their errors.
//
// The sentences themselves are explain_test's: here the commands are checked to print, for
// each step, what explain() says of it (ExplainedSteps), next to the step and event kind.
// Steps are found by their event (seed_steps().step_of(kind, tensors...)), so that the
// checks do not depend on how many events come before.
#include "simulator/cli/commands.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/cli/step_commands.hpp"
#include "simulator/model/examples.hpp"
#include "tests/cli_run.hpp"
#include "tests/golden_files.hpp"

#include "explained_steps.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gallocsim {
namespace {

using test_support::Result;
using test_support::run;
using test_support::run_walk;
using test_support::step_column;

Result run_trace(const cli::TraceOptions& options) {
    return run(cli::trace, options);
}

const test_support::ExplainedSteps& seed_steps() {
    static const test_support::ExplainedSteps steps(make_example("seed"));
    return steps;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        result.push_back(line);
    }
    return result;
}

TEST(TraceCommand, NumbersEveryEventFromOneWithItsExplanation) {
    const Result result = run_trace({.graph = {.input = "seed"}});
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.err, "");
    const auto text = lines(result.out);
    ASSERT_EQ(text.size(), 18u);
    EXPECT_EQ(text[0], "seed-mul: 17 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: "
                       "alignment 32, no max size");
    // The step, right-aligned in 6 columns, the event kind in 19, then the explanation: the
    // first event, mul's in-place reuse (line n is step n) and the last.
    const auto& steps = seed_steps();
    EXPECT_EQ(text[1], "     1  plan-started       " + steps[1]);
    const std::size_t reused = steps.step_of(EventKind::in_place_reused, "mul", "a");
    EXPECT_EQ(text[reused], step_column(reused) + "  in-place-reused    " + steps[reused]);
    EXPECT_EQ(text[17], "    17  tensor-initialised " + steps[17]);
}

// A trace points to the profile that planned it, and a policy's profile lives in the policy: the
// command must keep the policy until it has printed (issue 53: it freed it first, a heap use after
// free that the sanitized suite reports). The policy's name is the file's "name" field; one free
// block at the start, so first fit places a at 0 and b, after a's 32 aligned bytes, at 32, as best fit does.
TEST(TraceCommand, PrintsATracePlannedByAPolicyFile) {
    const Result result = run_trace({.graph = {.input = "seed", .ggml_version = GALLOCSIM_SOURCE_DIR "/docs/policies/first-fit.json"}});
    EXPECT_EQ(result.code, 0) << result.err;
    const auto text = lines(result.out);
    ASSERT_EQ(text.size(), 18u);
    EXPECT_NE(text[0].find("planned by policy first-fit"), std::string::npos) << text[0];
    EXPECT_NE(text[3].find("Leaf a needs 4 bytes (32 once aligned to 32) and goes at offset 0"), std::string::npos) << text[3];
    EXPECT_NE(text[4].find("Leaf b needs 4 bytes (32 once aligned to 32) and goes at offset 32"), std::string::npos) << text[4];
}

TEST(TraceCommand, ShowsARangeOfSteps) {
    // mul releasing b, then b freed: two events in a row.
    const auto& steps = seed_steps();
    const std::size_t released = steps.step_of(EventKind::parent_released, "b", "mul");
    const std::size_t freed = steps.step_of(EventKind::tensor_freed, "b");
    const Result result = run_trace({.graph = {.input = "seed"}, .from = released, .to = freed});
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.out, "seed-mul: 17 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size\n" +
                              step_column(released) + "  parent-released    " + steps[released] + "\n" +
                              step_column(freed) + "  tensor-freed       " + steps[freed] + "\n");
}

TEST(TraceCommand, WritesJsonForTools) {
    const Result result = run_trace({.graph = {.input = "seed"}, .json = true});
    ASSERT_EQ(result.code, 0);
    const auto doc = nlohmann::json::parse(result.out);
    EXPECT_EQ(doc["trace"]["format"], "gallocsim-trace/2");
    EXPECT_EQ(doc["trace"]["graph"], "seed-mul");
    EXPECT_EQ(doc["trace"]["events"], 17);
    EXPECT_FALSE(doc["trace"].contains("steps"));  // format 1's second name for the count
    // The seed's one buffer type sets no max size: null, as in a graph file.
    EXPECT_TRUE(doc["trace"]["buffers"][0]["max_size"].is_null());
    EXPECT_TRUE(doc["trace"]["error"].is_null());
    const auto& events = doc["events"];
    ASSERT_EQ(events.size(), 17u);
    const auto& steps = seed_steps();
    auto event = [&](std::size_t step) -> const nlohmann::json& { return events[step - 1]; };  // steps count from 1

    const std::size_t b_placed = steps.step_of(EventKind::leaf_allocated, "b");
    const auto& b = event(b_placed);
    EXPECT_EQ(b["event"], b_placed);
    EXPECT_FALSE(b.contains("step"));  // format 1's second name for the event number
    EXPECT_EQ(b["kind"], "leaf-allocated");
    EXPECT_EQ(b["stage"], "leafs");
    EXPECT_TRUE(b["node"].is_null());
    EXPECT_EQ(b["tensor"], "b");
    EXPECT_EQ(b["offset"], 32);
    EXPECT_EQ(b["size"], 32);
    EXPECT_EQ(b["alloc_size"], 4);
    EXPECT_EQ(b["choice"], "tail");
    EXPECT_EQ(b["reuse_factor"], -32);
    ASSERT_EQ(b["candidates"].size(), 1u);
    EXPECT_EQ(b["candidates"][0]["tail"], true);

    const auto& reused = event(steps.step_of(EventKind::in_place_reused, "mul", "a"));
    EXPECT_EQ(reused["kind"], "in-place-reused");
    EXPECT_EQ(reused["node"], "mul");
    EXPECT_EQ(reused["tensors"], (nlohmann::json{"mul", "a"}));
    EXPECT_EQ(reused["parent"], "a");
    EXPECT_TRUE(reused["view_source"].is_null());

    const std::size_t b_freed = steps.step_of(EventKind::tensor_freed, "b");
    const auto& freed = event(b_freed);
    EXPECT_EQ(freed["reason"], "last-consumer");
    EXPECT_EQ(freed["free"]["merge"], "next");
    EXPECT_EQ(freed["free"]["result"]["offset"], 32);
    EXPECT_EQ(freed["explanation"], steps[b_freed]);
    EXPECT_EQ(event(steps.step_of(EventKind::tensor_initialised, "mul"))["address"], 0x10000000);
}

TEST(TraceCommand, RejectsAStepRangeOutsideTheTrace) {
    const Result result = run_trace({.graph = {.input = "seed"}, .from = 5, .to = 18});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "seed: --from 5 --to 18 is not a range of events from 1 to 17\n");
    EXPECT_EQ(run_trace({.graph = {.input = "seed"}, .from = 9, .to = 3}).code, 2);
}

TEST(TraceCommand, ReportsAMissingFile) {
    const Result result = run_trace({.graph = {.input = "no/such/graph.json"}});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.err, "no/such/graph.json: no such file\n");
}

TEST(WalkCommand, StepsJumpsAndShowsTheState) {
    const auto& step = seed_steps();
    // j jumps to b's free; b b goes on to the next event that touches b, alloc_graph placing
    // it, and bb a back to alloc_graph placing a (it places a, b, mul in that order); p goes
    // to the event before that.
    const std::size_t freed = step.step_of(EventKind::tensor_freed, "b");
    const std::size_t b_placed = step.step_of(EventKind::tensor_initialised, "b");
    const std::size_t a_placed = step.step_of(EventKind::tensor_initialised, "a");
    auto n = [](std::size_t number) { return std::to_string(number); };
    const Result result = run_walk({.graph = {.input = "seed"}}, "n\nj " + n(freed) + "\ns\nb b\nbb a\np\nq\nn\n");
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.out,
              "Walking seed-mul: 17 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type "
              "CPU: alignment 32, no max size. Type h for help.\n"
              "At the start, before event 1 of 17.\n"
              "Next, event 1: " + step[1] + "\n"
              // n
              "Event 1 of 17 (leafs): " + step[1] + "\n"
              "Next, event 2: " + step[2] + "\n"
              // j (b freed)
              "Event " + n(freed) + " of 17 (node step 1 of 1, mul): " + step[freed] + "\n"
              "Next, event " + n(freed + 1) + ": " + step[freed + 1] + "\n"
              // s: a took slot [0, 32) and b [32, 64); b is freed and mul holds a's slot
              "After event " + n(freed) + ": 32 bytes live, high-water mark 64 bytes, 32 bytes free below it, "
              "50.0 % of it in holes (largest hole 32, fragmentation 0.00).\n"
              "Buffer 0 (CPU), chunk 0: high-water mark 64, free blocks: [32, unbounded)\n"
              "Live tensors (1):\n"
              "  mul: chunk 0, offset 0, 4 bytes, 0 consumers and 0 views left, in place of a\n"
              // b b
              "Event " + n(b_placed) + " of 17 (addresses): " + step[b_placed] + "\n"
              "Next, event " + n(b_placed + 1) + ": " + step[b_placed + 1] + "\n"
              // bb a
              "Event " + n(a_placed) + " of 17 (addresses): " + step[a_placed] + "\n"
              "Next, event " + n(a_placed + 1) + ": " + step[a_placed + 1] + "\n"
              // p
              "Event " + n(a_placed - 1) + " of 17 (buffers): " + step[a_placed - 1] + "\n"
              "Next, event " + n(a_placed) + ": " + step[a_placed] + "\n");
    // q ends the walk: the last n is never read.
}

TEST(WalkCommand, ExplainsWhatItCannotDo) {
    const Result result = run_walk({.graph = {.input = "seed"}}, "p\nj 99\nb nobody\nk bogus\nm 100\nzz\nl\nn\nb\nbb\n");
    const auto text = lines(result.out);
    ASSERT_EQ(text.size(), 14u);
    EXPECT_EQ(text[3], "Already at the start.");
    EXPECT_EQ(text[4], "j needs an event number from 0 to 17.");
    EXPECT_EQ(text[5], "No tensor named 'nobody'.");
    EXPECT_EQ(text[6].substr(0, 56), "Unknown event kind 'bogus'; kinds are: plan-started leaf");
    EXPECT_EQ(text[7], "The live bytes do not rise above 100 after this event.");
    EXPECT_EQ(text[8], "Unknown command 'zz' (h for help).");
    EXPECT_EQ(text[10], "That was the last event.");
    EXPECT_EQ(text[11], "Already at the last event.");
    // b and bb without a name (issue 53 item 11: once "No tensor named ''").
    EXPECT_EQ(text[12], "b needs a tensor: b TENSOR runs to the next event that touches TENSOR.");
    EXPECT_EQ(text[13], "bb needs a tensor: bb TENSOR runs back to the previous event that touches TENSOR.");
    // The end of the input ends the walk; a script whose commands could not all be done
    // says so with its exit code.
    EXPECT_EQ(result.code, cli::kBadInput);
}

// The seed's trace (tutorial): a and b allocated at events 3 and 4 before any node runs (node
// step 0); mul runs at node step 1 in a's bytes, and b is freed at event 12, leaving 32 bytes
// live below a high-water mark of 64: b's 32 bytes are a hole, half of the mark, and being one
// hole they are not scattered (fragmentation 1 - 32/32 = 0). The size is set when b is placed,
// with no hole.
TEST(StatsCommand, PerStepAndWholePlanFigures) {
    std::ostringstream out, err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}}, out, err), 0);
    const auto text = lines(out.str());
    ASSERT_EQ(text.size(), 26u);
    EXPECT_EQ(text[0], "seed-mul: 17 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: "
                       "alignment 32, no max size");
    EXPECT_EQ(text[1], " event  kind                node step          live    high-water          free   holes  largest free   frag");
    // Event e's row is line e + 1, after the title and the column heads.
    const auto& steps = seed_steps();
    const std::size_t a_placed = steps.step_of(EventKind::leaf_allocated, "a");
    const std::size_t b_placed = steps.step_of(EventKind::leaf_allocated, "b");
    const std::size_t b_freed = steps.step_of(EventKind::tensor_freed, "b");
    EXPECT_EQ(text[a_placed + 1], step_column(a_placed) +
                                      "  leaf-allocated              0            32            32             0   0.0 %             0   0.00");
    EXPECT_EQ(text[b_freed + 1], step_column(b_freed) +
                                     "  tensor-freed                1            32            64            32  50.0 %            32   0.00");
    EXPECT_EQ(text[19], "Whole plan (17 events, 1 node step):");
    EXPECT_EQ(text[20], "  peak live bytes: 64 bytes at event " + std::to_string(b_placed) + " (node step 0, leaf-allocated b)");
    EXPECT_EQ(text[21], "  high-water mark: 64 bytes, 1.00 times the peak live bytes");
    EXPECT_EQ(text[22], "  in holes when each buffer's size was set: 0 bytes, 0.0 % of the high-water mark (gallocsim why tells each hole)");
    EXPECT_EQ(text[25], "  allocations: 2 (0 best fit, 1 from a tail, 1 in a new chunk); in-place reuses: 1 (0 "
                        "candidates rejected); frees: 1 (+0 extra-space frees); outputs kept: 0");
}

TEST(StatsCommand, SummaryOnly) {
    std::ostringstream out, err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}, .summary_only = true}, out, err), 0);
    EXPECT_EQ(lines(out.str()).size(), 8u);
    EXPECT_EQ(cli::stats({.graph = {.input = "nope.json"}}, out, err), 2);
}

} // namespace
} // namespace gallocsim

namespace gallocsim {
namespace {

nlohmann::json json_of(const std::string& text) {
    return nlohmann::json::parse(text);
}

// The same seed figures as PerStepAndWholePlanFigures, as one JSON document: the peak of 64
// live bytes is first reached at event 4 (b allocated, node step 0); b is freed at event 12,
// so 32 bytes stay live and 32 free at the end; two allocations (a in a new chunk, b from
// the tail) and one in-place reuse.
TEST(StatsCommand, JsonCarriesTheSameFigures) {
    std::ostringstream out, err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}, .summary_only = true, .json = true}, out, err), 0);
    const nlohmann::json report = json_of(out.str());
    const auto& steps = seed_steps();
    const std::size_t b_placed = steps.step_of(EventKind::leaf_allocated, "b");
    const std::size_t b_freed = steps.step_of(EventKind::tensor_freed, "b");
    EXPECT_EQ(report["events"], 17);
    EXPECT_EQ(report["node_steps"], 1);
    EXPECT_EQ(report["peak_live"], (nlohmann::json{{"bytes", 64}, {"event", b_placed}, {"node_step", 0}}));
    EXPECT_EQ(report["high_water"], 64);
    EXPECT_EQ(report["at_end"]["live"], 32);
    EXPECT_EQ(report["at_end"]["free"], 32);
    EXPECT_EQ(report["allocations"]["total"], 2);
    EXPECT_EQ(report["allocations"]["new_chunk"], 1);
    EXPECT_EQ(report["in_place_reuses"], 1);
    EXPECT_FALSE(report.contains("rows"));

    std::ostringstream all, all_err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}, .json = true}, all, all_err), 0);
    const nlohmann::json rows = json_of(all.str())["rows"];
    ASSERT_EQ(rows.size(), 17u);
    const nlohmann::json& freed = rows[b_freed - 1];  // rows count from 0, steps from 1
    EXPECT_EQ(freed["event"], b_freed);
    EXPECT_EQ(freed["kind"], "tensor-freed");
    EXPECT_EQ(freed["node_step"], 1);
    EXPECT_EQ(freed["live"], 32);
}

// Every golden file passes, so conform's JSON counts 200 passes and lists each as one verdict.
TEST(ConformCommand, JsonListsEveryVerdict) {
    if (!std::filesystem::is_directory(test_support::golden_dir())) {
        GTEST_SKIP() << "no golden corpus at " << test_support::golden_dir();
    }
    std::ostringstream out, err;
    cli::ConformOptions options;
    options.paths = {test_support::golden_dir().string()};
    options.json = true;
    ASSERT_EQ(cli::conform(options, out, err), 0) << err.str();
    const nlohmann::json report = json_of(out.str());
    EXPECT_EQ(report["passed"], 200);
    EXPECT_EQ(report["failed"], 0);
    ASSERT_EQ(report["verdicts"].size(), 200u);
    EXPECT_EQ(report["verdicts"][0]["result"], "pass");
}

// Two example files with no `expected` plan: nothing to compare, so both are skipped, and the
// text says why before the tally (which stays the last line); -v lists them instead.
TEST(ConformCommand, SaysWhyFilesWithoutAnExpectedPlanAreSkipped) {
    const auto folder = std::filesystem::path(::testing::TempDir()) / "conform-no-expected";
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "seed.json") << graph_file_to_json(make_example("seed"));
    std::ofstream(folder / "mlp.json") << graph_file_to_json(make_example("mlp"));
    std::ostringstream out, err;
    cli::ConformOptions options;
    options.paths = {folder.string()};
    ASSERT_EQ(cli::conform(options, out, err), 0) << err.str();
    EXPECT_EQ(out.str(),
              "2 graph files have no `expected` plan to compare with, so conform skipped them (-v lists them; "
              "`gallocsim plan FILE --json` writes a plan in that shape)\n"
              "0 passed, 0 failed, 2 skipped\n");
}

// Two zero-element tensors: a zero-size buffer, which gives a has no address, where upstream
// aborts in alloc_graph (docs/divergences.md). One verdict: the error and exit 1, no table.
TEST(PlanCommand, AFailedPlanPrintsNoTable) {
    const auto path = std::filesystem::path(::testing::TempDir()) / "zero-elements.json";
    std::ofstream(path) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [0]}, {"name": "b", "ne": [0], "op": "SCALE", "src": ["a"], "flags": ["output"]}],
        "leafs": ["a"], "nodes": ["b"]})";
    std::ostringstream out, err;
    EXPECT_EQ(cli::plan({.graph = {.input = path.string()}}, out, err), 1);
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str(), path.string() + ": tensor a already has memory (a buffer but no address: it sits in a zero-size "
                                         "buffer) (upstream aborts here)\n");
}

// A fit-pass graph (a weight in a buffer without data): plan says why ggml only sizes it and
// gives reserve_n_size's bytes, exit 0. 32 bytes: RunPlan.ATensorInABufferWithoutDataIsOnlySized
// works the same graph by hand.
TEST(PlanCommand, AGraphOfANoAllocLoadIsSized) {
    const auto path = std::filesystem::path(::testing::TempDir()) / "fit-pass.json";
    std::ofstream(path) << R"({"format": "ggml-graph/2", "name": "fit", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [8]}, {"name": "e", "ne": [8], "data": "buffer"},
                    {"name": "y", "ne": [8], "op": "ADD", "src": ["a", "e"], "flags": ["output"]}],
        "leafs": ["a", "e"], "nodes": ["y"]})";
    std::ostringstream out, err;
    EXPECT_EQ(cli::plan({.graph = {.input = path.string()}}, out, err), 0);
    EXPECT_EQ(out.str(), "fit: tensor e is in a buffer without data (data: \"buffer\": a no_alloc load, as llama.cpp's fit "
                         "pass makes), so ggml only sizes this graph (ggml_gallocr_reserve_n_size): alloc_graph would "
                         "abort on it.\n"
                         "reserve_n_size on fit (plans, allocates nothing):\n"
                         "buffer 0 (CPU, alignment 32): 32 bytes\n");
    EXPECT_EQ(err.str(), "");
}

// Issue 36, item 8, the other side: a zero-element tensor in a buffer that holds bytes plans as
// ggml plans it, exit 0. Worked by hand from ggml-alloc.c: a's alloc size is ggml_nbytes = 0,
// and a request of 0 bytes takes the first free block, the tail of chunk 0 at offset 0, without
// moving it; b (4 f32 = 16 bytes, 32 aligned) then also goes at 0; c reads b twice, so it is not
// b's last reader and gets fresh bytes at the tail, 32; the buffer is 64 bytes. alloc_graph then
// gives a base + 0 inside a 64-byte buffer, which ggml_backend_tensor_alloc accepts (the abort
// is only for a buffer of 0 bytes, which has no base: AFailedPlanPrintsNoTable above).
TEST(PlanCommand, AZeroElementTensorBesideBytesPlansAsGgmlDoes) {
    const auto path = std::filesystem::path(::testing::TempDir()) / "zero-beside-bytes.json";
    std::ofstream(path) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [0], "flags": ["input"]}, {"name": "b", "ne": [4], "flags": ["input"]},
                    {"name": "c", "ne": [4], "op": "ADD", "src": ["b", "b"], "flags": ["output"]}],
        "leafs": ["a", "b"], "nodes": ["c"]})";
    std::ostringstream out, err;
    ASSERT_EQ(cli::plan({.graph = {.input = path.string()}, .json = true}, out, err), 0) << err.str();
    const auto plan = nlohmann::json::parse(out.str());
    EXPECT_EQ(plan["alloc_graph"], true);
    EXPECT_EQ(plan["buffer_sizes"], nlohmann::json::parse("[64]"));
    EXPECT_EQ(plan["tensors"]["a"]["offset"], 0);
    EXPECT_EQ(plan["tensors"]["b"]["offset"], 0);
    EXPECT_EQ(plan["tensors"]["c"]["offset"], 32);
}

} // namespace
} // namespace gallocsim
