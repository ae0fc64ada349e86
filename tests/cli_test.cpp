// The step engine's commands, run in-process on the seed example: trace (text, JSON,
// ranges), walk (a scripted session) and stats, and their errors.
//
// The sentences themselves are explain_test's: here the commands are checked to print, for
// each step, what explain() says of it (ExplainedSteps), next to the step and event kind.
#include "simulator/cli/commands.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/cli/step_commands.hpp"
#include "simulator/model/examples.hpp"
#include "tests/golden_files.hpp"

#include "explained_steps.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace gallocsim {
namespace {

struct Output {
    int code = 0;
    std::string out;
    std::string err;
};

Output run_trace(cli::TraceOptions options) {
    std::ostringstream out, err;
    const int code = cli::trace(options, out, err);
    return {code, out.str(), err.str()};
}

Output run_walk(const std::string& script) {
    std::istringstream in(script);
    std::ostringstream out, err;
    const auto reader = cli::stream_line_reader(in, out, /*show_prompt=*/false);
    const int code = cli::walk({.graph = {.input = "seed"}}, *reader, out, err);
    return {code, out.str(), err.str()};
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
    const Output result = run_trace({.graph = {.input = "seed"}});
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.err, "");
    const auto text = lines(result.out);
    ASSERT_EQ(text.size(), 18u);
    EXPECT_EQ(text[0], "seed-mul: 17 events, 1 node step");
    // The step, right-aligned in 6 columns, the event kind in 19, then the explanation.
    EXPECT_EQ(text[1], "     1  plan-started       " + seed_steps()[1]);
    EXPECT_EQ(text[9], "     9  in-place-reused    " + seed_steps()[9]);
    EXPECT_EQ(text[17], "    17  tensor-initialised " + seed_steps()[17]);
}

TEST(TraceCommand, ShowsARangeOfSteps) {
    const Output result = run_trace({.graph = {.input = "seed"}, .from = 11, .to = 12});
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.out, "seed-mul: 17 events, 1 node step\n"
                          "    11  parent-released    " + seed_steps()[11] + "\n"
                          "    12  tensor-freed       " + seed_steps()[12] + "\n");
}

TEST(TraceCommand, WritesJsonForTools) {
    const Output result = run_trace({.graph = {.input = "seed"}, .json = true});
    ASSERT_EQ(result.code, 0);
    const auto doc = nlohmann::json::parse(result.out);
    EXPECT_EQ(doc["trace"]["format"], "gallocsim-trace/1");
    EXPECT_EQ(doc["trace"]["graph"], "seed-mul");
    EXPECT_EQ(doc["trace"]["events"], 17);
    EXPECT_EQ(doc["trace"]["steps"], 17);  // the same count, kept from before events had their name
    EXPECT_TRUE(doc["trace"]["error"].is_null());
    const auto& events = doc["events"];
    ASSERT_EQ(events.size(), 17u);

    const auto& b = events[3];
    EXPECT_EQ(b["event"], 4);
    EXPECT_EQ(b["step"], 4);
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

    const auto& reused = events[8];
    EXPECT_EQ(reused["kind"], "in-place-reused");
    EXPECT_EQ(reused["node"], "mul");
    EXPECT_EQ(reused["tensors"], (nlohmann::json{"mul", "a"}));
    EXPECT_EQ(reused["parent"], "a");
    EXPECT_TRUE(reused["view_source"].is_null());

    const auto& freed = events[11];
    EXPECT_EQ(freed["reason"], "last-consumer");
    EXPECT_EQ(freed["free"]["merge"], "next");
    EXPECT_EQ(freed["free"]["result"]["offset"], 32);
    EXPECT_EQ(freed["explanation"], seed_steps()[12]);
    EXPECT_EQ(events[16]["address"], 0x10000000);
}

TEST(TraceCommand, RejectsAStepRangeOutsideTheTrace) {
    const Output result = run_trace({.graph = {.input = "seed"}, .from = 5, .to = 18});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "seed: --from 5 --to 18 is not a range of events from 1 to 17\n");
    EXPECT_EQ(run_trace({.graph = {.input = "seed"}, .from = 9, .to = 3}).code, 2);
}

TEST(TraceCommand, ReportsAMissingFile) {
    const Output result = run_trace({.graph = {.input = "no/such/graph.json"}});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.err, "no/such/graph.json: no such file\n");
}

TEST(WalkCommand, StepsJumpsAndShowsTheState) {
    const Output result = run_walk("n\nj 12\ns\nb b\nbb a\np\nq\nn\n");
    EXPECT_EQ(result.code, 0);
    const auto& step = seed_steps();
    EXPECT_EQ(result.out,
              "Walking seed-mul: 17 events, 1 node step. Type h for help.\n"
              "At the start, before event 1 of 17.\n"
              "Next, event 1: " + step[1] + "\n"
              // n
              "Event 1 of 17 (leafs): " + step[1] + "\n"
              "Next, event 2: " + step[2] + "\n"
              // j 12
              "Event 12 of 17 (node step 1 of 1, mul): " + step[12] + "\n"
              "Next, event 13: " + step[13] + "\n"
              // s: a took slot [0, 32) and b [32, 64); b is freed at step 12 and mul holds a's slot
              "After event 12: 32 bytes live, high-water mark 64 bytes, 32 bytes free below it (largest block 32), "
              "fragmentation 0.00.\n"
              "Buffer 0 (CPU), chunk 0: high-water mark 64, free blocks: [32, unbounded)\n"
              "Live tensors (1):\n"
              "  mul: chunk 0, offset 0, 4 bytes, 0 consumers and 0 views left, in place of a\n"
              // b b: b is next touched when alloc_graph places it (steps 15-17 place a, b, mul)
              "Event 16 of 17 (addresses): " + step[16] + "\n"
              "Next, event 17: " + step[17] + "\n"
              // bb a
              "Event 15 of 17 (addresses): " + step[15] + "\n"
              "Next, event 16: " + step[16] + "\n"
              // p
              "Event 14 of 17 (buffers): " + step[14] + "\n"
              "Next, event 15: " + step[15] + "\n");
    // q ends the walk: the last n is never read.
}

TEST(WalkCommand, ExplainsWhatItCannotDo) {
    const Output result = run_walk("p\nj 99\nb nobody\nk bogus\nm 100\nzz\nl\nn\n");
    const auto text = lines(result.out);
    ASSERT_EQ(text.size(), 12u);
    EXPECT_EQ(text[3], "Already at the start.");
    EXPECT_EQ(text[4], "j needs an event number from 0 to 17.");
    EXPECT_EQ(text[5], "No tensor named 'nobody'.");
    EXPECT_EQ(text[6].substr(0, 56), "Unknown event kind 'bogus'; kinds are: plan-started leaf");
    EXPECT_EQ(text[7], "The live bytes do not rise above 100 after this event.");
    EXPECT_EQ(text[8], "Unknown command 'zz' (h for help).");
    EXPECT_EQ(text[10], "That was the last event.");
    EXPECT_EQ(text[11], "Already at the last event.");
    // The end of the input ends the walk; a script whose commands could not all be done
    // says so with its exit code.
    EXPECT_EQ(result.code, cli::kBadInput);
}

// The seed's trace (tutorial): a and b allocated at events 3 and 4 before any node runs (node
// step 0); mul runs at node step 1 in a's bytes, and a is freed at event 12, leaving 32 bytes
// live below a high-water mark of 64.
TEST(StatsCommand, PerStepAndWholePlanFigures) {
    std::ostringstream out, err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}}, out, err), 0);
    const auto text = lines(out.str());
    ASSERT_EQ(text.size(), 25u);
    EXPECT_EQ(text[0], "seed-mul: 17 events, 1 node step");
    EXPECT_EQ(text[1], " event  kind                node step          live    high-water          free  largest free   frag");
    EXPECT_EQ(text[4], "     3  leaf-allocated              0            32            32             0             0   0.00");
    EXPECT_EQ(text[13], "    12  tensor-freed                1            32            64            32            32   0.00");
    EXPECT_EQ(text[19], "Whole plan (17 events, 1 node step):");
    EXPECT_EQ(text[20], "  peak live bytes: 64 at event 4 (node step 0, leaf-allocated b)");
    EXPECT_EQ(text[21], "  high-water mark: 64 bytes, 1.00 times the peak live bytes");
    EXPECT_EQ(text[24], "  allocations: 2 (0 best fit, 1 from a tail, 1 in a new chunk); in-place reuses: 1 (0 "
                        "candidates rejected); frees: 1 (+0 extra-space frees); outputs kept: 0");
}

TEST(StatsCommand, SummaryOnly) {
    std::ostringstream out, err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}, .summary_only = true}, out, err), 0);
    EXPECT_EQ(lines(out.str()).size(), 7u);
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
// live bytes is first reached at event 4 (b allocated, node step 0); a is freed at event 12,
// so 32 bytes stay live and 32 free at the end; two allocations (a in a new chunk, b from
// the tail) and one in-place reuse.
TEST(StatsCommand, JsonCarriesTheSameFigures) {
    std::ostringstream out, err;
    ASSERT_EQ(cli::stats({.graph = {.input = "seed"}, .summary_only = true, .json = true}, out, err), 0);
    const nlohmann::json report = json_of(out.str());
    EXPECT_EQ(report["events"], 17);
    EXPECT_EQ(report["node_steps"], 1);
    EXPECT_EQ(report["peak_live"], (nlohmann::json{{"bytes", 64}, {"event", 4}, {"node_step", 0}}));
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
    EXPECT_EQ(rows[11]["event"], 12);
    EXPECT_EQ(rows[11]["kind"], "tensor-freed");
    EXPECT_EQ(rows[11]["node_step"], 1);
    EXPECT_EQ(rows[11]["live"], 32);
}

// Every golden file passes, so conform's JSON counts 200 passes and lists each as one verdict.
TEST(ConformCommand, JsonListsEveryVerdict) {
    if (!std::filesystem::is_directory(testing::golden_dir())) {
        GTEST_SKIP() << "no golden corpus at " << testing::golden_dir();
    }
    std::ostringstream out, err;
    cli::ConformOptions options;
    options.paths = {testing::golden_dir().string()};
    options.json = true;
    ASSERT_EQ(cli::conform(options, out, err), 0) << err.str();
    const nlohmann::json report = json_of(out.str());
    EXPECT_EQ(report["passed"], 200);
    EXPECT_EQ(report["failed"], 0);
    ASSERT_EQ(report["verdicts"].size(), 200u);
    EXPECT_EQ(report["verdicts"][0]["result"], "pass");
}

} // namespace
} // namespace gallocsim
