// A graph whose nodes read a node run after them is planned as ggml plans it, and said to be
// what it is: once, as a note on standard error, and as `warnings` in --json (plan, trace, stats,
// why, conform). Exit codes are those of any graph ggml plans. A graph file that names a source
// outside the graph, or a view before its root, is still refused (exit 2).
#include "simulator/cli/errors.hpp"
#include "tests/command_line_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace gallocsim::cli {
namespace {

using nlohmann::json;
using testing_support::Outcome;
using testing_support::run;
namespace fs = std::filesystem;

std::string write(const std::string& name, const std::string& text) {
    const fs::path path = fs::path(::testing::TempDir()) / name;
    std::ofstream(path) << text;
    return path.string();
}

// nodes: d (node 1) = MUL(c, a) runs before c (node 2) = ADD(a, b).
const std::string kEarlyRead = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
    "tensors": [{"name": "a", "ne": [4]}, {"name": "b", "ne": [4]},
                {"name": "c", "ne": [4], "op": "ADD", "src": ["a", "b"]},
                {"name": "d", "ne": [4], "op": "MUL", "src": ["c", "a"], "flags": ["output"]}],
    "leafs": ["a", "b"], "nodes": ["d", "c"]})";

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++count;
    }
    return count;
}

void expect_the_one_warning(const json& warnings) {
    ASSERT_EQ(warnings.size(), 1u) << warnings;
    EXPECT_EQ(warnings[0]["kind"], "reads-later-node");
    EXPECT_EQ(warnings[0]["node"], "d");
    EXPECT_EQ(warnings[0]["node_step"], 1);
    EXPECT_EQ(warnings[0]["source"], "c");
    EXPECT_EQ(warnings[0]["source_node_step"], 2);
}

TEST(GraphOrderCommands, EachCommandNotesTheEarlyReadOnceAndPlansIt) {
    const std::string file = write("early-read.json", kEarlyRead);
    const std::string note = "note: " + file + ": d (node 1 of 2) reads c, which runs after it (node 2 of 2)";
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"plan", file}, {"trace", file}, {"stats", file}, {"why", file}}) {
        const Outcome outcome = run(args);
        EXPECT_EQ(outcome.code, kDone) << args[0] << ": " << outcome.err;
        EXPECT_EQ(occurrences(outcome.err, note), 1u) << args[0] << ": " << outcome.err;
        EXPECT_EQ(occurrences(outcome.err, "note: "), 1u) << args[0] << ": " << outcome.err;
    }
}

TEST(GraphOrderCommands, JsonReportsListTheWarning) {
    const std::string file = write("early-read.json", kEarlyRead);
    for (const char* command : {"plan", "trace", "stats", "why"}) {
        const Outcome outcome = run({command, file, "--json"});
        ASSERT_EQ(outcome.code, kDone) << command << ": " << outcome.err;
        expect_the_one_warning(json::parse(outcome.out)["warnings"]);
    }
}

// b and c are each given memory twice (explain_test draws why): two placed-again events.
TEST(GraphOrderCommands, TheTraceHasAnEventForEachSecondPlace) {
    const Outcome outcome = run({"trace", write("early-read.json", kEarlyRead), "--json"});
    ASSERT_EQ(outcome.code, kDone) << outcome.err;
    const json report = json::parse(outcome.out);
    std::vector<std::string> placed_again;
    for (const json& event : report["events"]) {
        if (event["kind"] == "placed-again") {
            placed_again.push_back(event["tensors"][0].get<std::string>());
        }
    }
    EXPECT_EQ(placed_again, (std::vector<std::string>{"b", "c"}));
}

// A graph in order says nothing, and its reports' lists are empty (plan's has none).
TEST(GraphOrderCommands, AGraphInOrderHasNoNote) {
    for (const char* command : {"trace", "stats", "why"}) {
        const Outcome outcome = run({command, "seed", "--json"});
        ASSERT_EQ(outcome.code, kDone);
        EXPECT_EQ(outcome.err, "") << command;
        EXPECT_EQ(json::parse(outcome.out)["warnings"], json::array()) << command;
    }
    const Outcome plan = run({"plan", "seed", "--json"});
    EXPECT_FALSE(json::parse(plan.out).contains("warnings"));
}

// plan --json, pasted as the file's `expected`, conforms; conform notes the order once.
TEST(GraphOrderCommands, ConformPassesTheGraphAndNotesItsOrder) {
    const std::string planned =
        run({"plan", write("early-read.json", kEarlyRead), "--json", "--ggml-version", "ggml-d99724f2"}).out;
    json graph = json::parse(kEarlyRead);
    graph["expected"] = json::parse(planned);
    graph["expected"]["source"] = "ggml d99724f2";  // the golden corpus's source: that state's rules
    const fs::path folder = fs::path(::testing::TempDir()) / "early-read-corpus";
    fs::create_directories(folder);
    std::ofstream(folder / "early-read.json") << graph.dump();
    const Outcome text = run({"conform", folder.string()});
    EXPECT_EQ(text.code, kDone) << text.err;
    EXPECT_NE(text.out.find("1 passed, 0 failed"), std::string::npos) << text.out;
    EXPECT_EQ(occurrences(text.err, "note: "), 1u) << text.err;
    const Outcome report = run({"conform", folder.string(), "--json"});
    const json warnings = json::parse(report.out)["warnings"];
    expect_the_one_warning(warnings);
    EXPECT_EQ(warnings[0]["subject"], (folder / "early-read.json").string());
}

// What ggml cannot plan stays an error naming the file, the place and the problem.
TEST(GraphOrderCommands, ASourceOutsideTheGraphOrAViewBeforeItsRootIsRefused) {
    const std::string outside = write("outside.json", R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "SCALE", "src": ["a"]}],
        "leafs": [], "nodes": ["b"]})");
    const Outcome refused = run({"plan", outside});
    EXPECT_EQ(refused.code, kBadInput);
    EXPECT_NE(refused.err.find(outside + ": $.nodes[0] (tensor 'b'): source 'a' is neither a leaf nor a node of the graph"),
              std::string::npos) << refused.err;
    const std::string view_first = write("view-first.json", R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "SCALE", "src": ["a"]},
                    {"name": "v", "ne": [2], "op": "VIEW", "src": ["b"], "view_src": "b"}],
        "leafs": ["a"], "nodes": ["v", "b"]})");
    const Outcome view = run({"plan", view_first});
    EXPECT_EQ(view.code, kBadInput);
    EXPECT_NE(view.err.find("views 'b' before it is computed"), std::string::npos) << view.err;
}

} // namespace
} // namespace gallocsim::cli
