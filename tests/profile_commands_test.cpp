// Allocator versions on the command line: conform picks each file's profile from its source,
// unknown versions are listed, diff names the rule that moved a tensor. The rules themselves
// are tested in profile_test.cpp.
#include "simulator/cli/analysis_commands.hpp"
#include "simulator/cli/commands.hpp"
#include "simulator/cli/step_commands.hpp"
#include "tests/command_line_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim {
namespace {

// --- the command line -------------------------------------------------------------------

class ProfileCommands : public ::testing::Test {
protected:
    std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                ("gallocsim-profile-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override { std::filesystem::create_directories(dir); }
    void TearDown() override { std::filesystem::remove_all(dir); }

    // The CLAMP graph with an `expected` plan from `source`: c at `c_offset`, buffer `size`.
    std::string clamp_file(const std::string& name, const std::string& source, int c_offset, int size) {
        const std::filesystem::path path = dir / name;
        std::ofstream(path) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
          "tensors": [{"name": "a", "type": "f32", "ne": [8], "flags": ["input"]},
                      {"name": "c", "type": "f32", "ne": [8], "op": "CLAMP", "src": ["a"], "flags": ["output"]}],
          "leafs": ["a"], "nodes": ["c"],
          "expected": {"source": ")" << source << R"(", "reserve": true, "alloc_graph": true,
            "buffer_sizes": [)" << size << R"(], "chunk_sizes": [[)" << size << R"(]],
            "tensors": {"a": {"buffer": 0, "chunk": 0, "offset": 0}, "c": {"buffer": 0, "chunk": 0, "offset": )"
                                   << c_offset << "}}}}";
        return path.string();
    }
};

// conform plans each file by the version its source names: the same graph passes with c in
// place when llama.cpp made it, and beside a when ggml d99724f2 did.
TEST_F(ProfileCommands, ConformPicksTheProfileFromEachFilesSource) {
    const std::string llama_file = clamp_file("llama.json", "llama.cpp 0c1e570 (ggml 0.25.3)", 0, 32);
    const std::string ggml_file = clamp_file("ggml.json", "ggml d99724f2", 32, 64);
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {llama_file, ggml_file}}, out, err), 0) << out.str() << err.str();
    EXPECT_EQ(out.str(), "2 passed, 0 failed\n");

    // Forcing one version makes the other file fail, and says which version planned it.
    std::ostringstream forced;
    EXPECT_EQ(cli::conform({.paths = {llama_file, ggml_file}, .ggml_version = "ggml-d99724f2"}, forced, err), 1);
    EXPECT_NE(forced.str().find("FAIL " + llama_file + " (planned as ggml-0a2b6b20)"), std::string::npos) << forced.str();
    EXPECT_NE(forced.str().find("1 passed, 1 failed"), std::string::npos) << forced.str();
}

TEST_F(ProfileCommands, ConformRefusesAnUnknownSourceUnlessAVersionIsGiven) {
    const std::string file = clamp_file("new.json", "ggml 0.30.0", 32, 64);
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {file}}, out, err), 1);
    const std::string text = out.str();
    EXPECT_NE(text.find("expected.source \"ggml 0.30.0\" is no ggml version gallocsim knows"), std::string::npos) << text;
    for (const char* known : {"\"ggml d99724f2\" (ggml-0a2b6b20)", "\"llama.cpp 0c1e570 (ggml 0.25.3)\" (llama.cpp-0c1e570)",
                              "\"ggml f54604ef\" (ggml-f54604ef)", "--ggml-version"}) {
        EXPECT_NE(text.find(known), std::string::npos) << known << "\n" << text;
    }
    std::ostringstream given;
    EXPECT_EQ(cli::conform({.paths = {file}, .ggml_version = "ggml-d99724f2"}, given, err), 0) << given.str();
}

TEST_F(ProfileCommands, AnUnknownVersionListsTheKnownOnes) {
    std::ostringstream out, err;
    EXPECT_EQ(cli::plan({.graph = {.input = "seed", .ggml_version = "ggml-1234"}}, out, err), 2);
    EXPECT_EQ(err.str(), "--ggml-version ggml-1234: unknown version; known: a state (" + std::string(known_profile_names()) +
                             "), a ggml release that carries exactly one of them (0.9.1, 0.13.1, 0.25.3, ...), a llama.cpp "
                             "build bNNNN (b3143 or later), or a ggml or llama.cpp commit the map knows; or a policy file "
                             "(docs/policies.md)\n");
    // A ggml version the map places between two states is not enough to choose by: the tags v0.9.4
    // and v0.9.5 hold different states (version_map_test.cpp).
    std::ostringstream conform_err;
    EXPECT_EQ(cli::conform({.paths = {dir.string()}, .ggml_version = "0.9.4"}, out, conform_err), 2);
    EXPECT_NE(conform_err.str().find("ggml 0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one"), std::string::npos)
        << conform_err.str();
    // The same words whichever command is given it: plan takes it as conform does.
    std::ostringstream plan_err;
    EXPECT_EQ(cli::plan({.graph = {.input = "seed", .ggml_version = "0.9.4"}}, out, plan_err), 2);
    EXPECT_NE(plan_err.str().find("could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one"), std::string::npos) << plan_err.str();
    // A llama.cpp build and a commit are taken as versions are (values from version_map_test.cpp).
    std::ostringstream build_out, build_err;
    EXPECT_EQ(cli::plan({.graph = {.input = "seed", .ggml_version = "b6568"}}, build_out, build_err), 0) << build_err.str();
    std::ostringstream commit_err;
    EXPECT_EQ(cli::plan({.graph = {.input = "seed", .ggml_version = "abcdef12"}}, out, commit_err), 2);
    EXPECT_NE(commit_err.str().find("not a commit the map knows; name a ggml version or a llama.cpp build bNNNN"),
              std::string::npos) << commit_err.str();
}

// diff A under one version and B under another: the sizes, the moved tensor and the rule.
TEST_F(ProfileCommands, DiffNamesTheRuleThatMovedATensor) {
    const std::string file = clamp_file("clamp.json", "ggml d99724f2", 32, 64);
    cli::DiffOptions options;
    options.before.input = file;
    options.ggml_versions = {"ggml-d99724f2", "llama.cpp-0c1e570"};
    std::ostringstream out, err;
    EXPECT_EQ(cli::diff(options, out, err), 0) << err.str();
    const std::string text = out.str();
    // One upstream change lies between the two: llama.cpp #27644, which put CLAMP in place.
    for (const char* line : {"A: " , ", ggml version ggml-0a2b6b20\nB: ", ", ggml version llama.cpp-0c1e570\n",
                             "buffer 0 (CPU): 64 -> 32 bytes (-32, -50.0%), chunks [64] -> [32]\n", "1 tensor moved, 1 unchanged\n",
                             "upstream changes between ggml-0a2b6b20 and llama.cpp-0c1e570 that changed this plan (each applied "
                             "alone, oldest first):\n- llama.cpp #27644, 2026-08-24: CLAMP may run in place (ggml_clamp makes a "
                             "new tensor instead of a view of its input)\n  here: buffer 0 64 -> 32 bytes; c takes a's memory; "
                             "1 tensor moves\n"}) {
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    }
    options.ggml_versions = {"ggml-d99724f2", "llama.cpp-0c1e570", "ggml-f54604ef"};
    std::ostringstream three_err;
    EXPECT_EQ(cli::diff(options, out, three_err), 2);
    EXPECT_NE(three_err.str().find("at most two"), std::string::npos) << three_err.str();
}

// One side named (--policy or --ggml-version once): plan B by it, plan A by the default state,
// and the header names both. clamp.json's c = CLAMP(a) runs in place only in the newest state
// (DiffNamesTheRuleThatMovedATensor), so B = ggml-d99724f2 gives the buffer back its 32 bytes.
TEST_F(ProfileCommands, DiffWithOneSideNamedComparesItWithTheDefault) {
    const std::string file = clamp_file("clamp-one.json", "ggml d99724f2", 32, 64);
    cli::DiffOptions options;
    options.before.input = file;
    options.ggml_versions = {"ggml-d99724f2"};
    std::ostringstream out, err;
    EXPECT_EQ(cli::diff(options, out, err), 0) << err.str();
    const std::string text = out.str();
    for (const char* line : {", ggml version llama.cpp-0c1e570 (the default)\nB: ", ", ggml version ggml-0a2b6b20\n",
                             "buffer 0 (CPU): 32 -> 64 bytes (+32, +100.0%)"}) {
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    }
    // A policy file on one side is named as a policy.
    const std::filesystem::path policy = dir / "no-clamp.json";
    std::ofstream(policy) << R"({"format": "gallocsim-policy/1", "name": "no-clamp", "base": "llama.cpp-0c1e570",
                                 "rules": {"inplace_ops": {"remove": ["CLAMP"]}}})";
    options.ggml_versions = {policy.string()};
    std::ostringstream policy_out;
    EXPECT_EQ(cli::diff(options, policy_out, err), 0) << err.str();
    EXPECT_NE(policy_out.str().find(", ggml version llama.cpp-0c1e570 (the default)\nB: "), std::string::npos) << policy_out.str();
    EXPECT_NE(policy_out.str().find(", policy no-clamp\n"), std::string::npos) << policy_out.str();
    EXPECT_NE(policy_out.str().find("buffer 0 (CPU): 32 -> 64 bytes"), std::string::npos) << policy_out.str();
}

// The chunk graph of MaxSizeSplitsIntoChunksOnlySinceChunksCame, written without max_size:
// with two versions, --max-size 96 applies to both plans. n moves from 0:96 to chunk 1 at 0,
// m from 0:128 to chunk 1 at 32; a, b and k stay (see that test for the steps).
TEST_F(ProfileCommands, DiffOfTwoVersionsAppliesBufferOptionsToBothAndNamesChunks) {
    const std::filesystem::path path = dir / "chunks.json";
    std::ofstream(path) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
      "tensors": [{"name": "a", "type": "f32", "ne": [8]}, {"name": "b", "type": "f32", "ne": [16]},
                  {"name": "n", "type": "f32", "ne": [8], "op": "NORM", "src": ["a"]},
                  {"name": "m", "type": "f32", "ne": [16], "op": "NORM", "src": ["b"]},
                  {"name": "k", "type": "f32", "ne": [24], "op": "CONCAT", "src": ["n", "m"], "flags": ["output"]}],
      "leafs": ["a", "b"], "nodes": ["n", "m", "k"]})";
    cli::DiffOptions options;
    options.before.input = path.string();
    options.after_buffers.max_size = 96;
    options.ggml_versions = {"ggml-f54604ef", "ggml-d99724f2"};
    std::ostringstream out, err;
    EXPECT_EQ(cli::diff(options, out, err), 0) << err.str();
    const std::string text = out.str();
    // Of the eleven changes between the two, only 254ea3e5's chunks change this plan: the
    // reuse factor (058128a6) picks the same tail for k as the first tail that fits, chunk 0's
    // (chunk 1 has none left), and no op of the graph may run in place.
    for (const char* line : {", ggml version ggml-f54604ef, max_size 96\nB: ", ", ggml version ggml-0a2b6b20, max_size 96\n",
                             "buffer 0 (CPU): 192 -> 192 bytes (+0, +0.0%), chunks [192] -> [96, 96]\n",
                             "2 tensors moved, 3 unchanged\n",
                             "that changed this plan (each applied alone, oldest first):\n- 254ea3e5 (llama.cpp #15815), "
                             "2025-09-24: a buffer type's plan is split into chunks of at most its max size",
                             "\n  here: buffer 0 192 -> 192 bytes in 2 chunks instead of 1; 2 tensors move\n"}) {
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    }
    EXPECT_EQ(text.find("\n- ", text.find("\n- ") + 1), std::string::npos) << "one change only:\n" << text;
}

// `gallocsim versions ARGS...` as typed (versions has no header of its own: cli/command_list.hpp
// declares only its adder).
cli::testing_support::Outcome versions(std::vector<std::string> args) {
    args.insert(args.begin(), "versions");
    return cli::testing_support::run(std::move(args));
}

} // namespace

// `gallocsim versions`: the states, the rules each has and the version map, as reference/
// holds them; with a version, the state the map gives it (the expectations are the version
// map's, worked out in version_map_test.cpp).
TEST_F(ProfileCommands, VersionsListsTheStatesAndPlacesAVersion) {
    const cli::testing_support::Outcome all = versions({});
    EXPECT_EQ(all.code, 0) << all.err;
    const std::string& text = all.out;
    EXPECT_NE(text.find("13 states of ggml's graph allocator, oldest first."), std::string::npos) << text;
    // The tail choice: no chunks in the first five states, the first fitting tail in the next
    // three (254ea3e5 to 9dea367c), the reuse factor from 058128a6 on.
    EXPECT_NE(text.find("tail choice                 -        -        -        -        -        first    first    first"
                        "    reuse    reuse    reuse    reuse    reuse\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("                               also named ggml-d99724f2\n"), std::string::npos) << text;

    const auto whisper = versions({"0.13.1"});
    EXPECT_EQ(whisper.code, 0);
    EXPECT_EQ(whisper.out, "ggml 0.13.1: ggml-0a2b6b20\n");
    const auto tag = versions({"--commit", "72632094"});
    EXPECT_EQ(tag.code, 0);
    EXPECT_EQ(tag.out, "ggml commit 72632094: ggml-254ea3e5\n");
    // What --ggml-version would refuse, versions answers with the reason and with what conform
    // makes of a capture that reports it.
    const auto span = versions({"0.9.4"});
    EXPECT_EQ(span.code, 0);
    // The second line is conform's own note for such a capture (VersionMatch::note, one sentence
    // for every front end): 0.9.4 spans 254ea3e5 (its tag) to 0a2b6b20 (0.9.5's state), the oldest used.
    EXPECT_EQ(span.out, "ggml 0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one\n(a capture whose ggml reports "
                        "0.9.4: ggml 0.9.4 may be any allocator state from ggml-254ea3e5 to ggml-0a2b6b20: planned as the "
                        "oldest, ggml-254ea3e5)\n");
    EXPECT_EQ(versions({"0.26.0"}).out, "ggml 0.26.0 is not a release the map knows (0.9.1 to 0.25.3, `gallocsim versions` "
                                        "lists them); name one of them, a state or a llama.cpp build bNNNN\n(a capture "
                                        "whose ggml reports 0.26.0: ggml 0.26.0 is not in the version map: planned as the "
                                        "nearest known version below it, 0.25.3 (llama.cpp-0c1e570))\n");
    const auto none = versions({"0.1.0"});
    EXPECT_EQ(none.code, 2);
    EXPECT_EQ(none.err, "ggml reports version 0.1.0, older than any ggml version there was\n");
    // llama.cpp builds and commits (version_map_test.cpp has the history behind the values).
    EXPECT_EQ(versions({"b6567"}).out, "llama.cpp build b6567: ggml-3b145175\n");
    EXPECT_EQ(versions({"b6568"}).out, "llama.cpp build b6568: ggml-254ea3e5\n");
    EXPECT_EQ(versions({"f54604ef"}).out, "ggml commit f54604ef: ggml-f54604ef\n");
    const auto unknown_commit = versions({"abcdef12"});
    EXPECT_EQ(unknown_commit.code, 2);
    EXPECT_EQ(unknown_commit.err, "commit abcdef12: not a commit the map knows; name a ggml version or a llama.cpp build bNNNN\n");
    const auto json = versions({"--json"});
    EXPECT_EQ(json.code, 0);
    const auto doc = nlohmann::json::parse(json.out);
    ASSERT_EQ(doc["states"].size(), 13u);
    EXPECT_EQ(doc["states"][0]["name"], "ggml-f54604ef");
    EXPECT_EQ(doc["states"][12]["change"]["pr"], "llama.cpp #27644");
}

} // namespace gallocsim
