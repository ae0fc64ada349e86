// The command line as a whole (cli/command_line.hpp): help, --version, the exit-code scheme
// of cli/errors.hpp (0 done, 1 a check failed, 2 bad input or usage, never CLI11's own
// 105-109), unknown and missing commands, and the input forms: a folder is refused, "-"
// reads standard input.
#include "simulator/cli/command_line.hpp"
#include "simulator/cli/command_list.hpp"
#include "simulator/cli/errors.hpp"
#include "tests/command_line_runner.hpp"

#include "reference/profile.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/graph_file.hpp"

#include <sys/wait.h>

#include <CLI/CLI.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using testing_support::Outcome;
using testing_support::run;

TEST(CommandLine, VersionNamesTheProjectVersionAndTheRangeOfAllocatorVersions) {
    const Outcome r = run({"--version"});
    EXPECT_EQ(r.code, kDone);
    EXPECT_THAT(r.out, StartsWith(std::string("gallocsim ") + GALLOCSIM_VERSION + "\n"));  // CMake's project version
    // Thirteen states are too many for one line: it gives their count, the oldest and the newest
    // (the history's ends) and points at the command that lists them all.
    const auto profiles = allocator_profiles();
    EXPECT_THAT(r.out, HasSubstr(std::to_string(profiles.size()) + " states"));
    EXPECT_THAT(r.out, HasSubstr(std::string(profiles.front().name)));
    EXPECT_THAT(r.out, HasSubstr(std::string(profiles.back().name)));
    EXPECT_THAT(r.out, HasSubstr("gallocsim versions"));
}

TEST(CommandLine, HelpIsSuccess) {
    const Outcome r = run({"--help"});
    EXPECT_EQ(r.code, kDone);
    EXPECT_THAT(r.out, HasSubstr("Usage:"));
    EXPECT_EQ(run({"plan", "--help"}).code, kDone);
}

// Issue 53, items 4 and 8: CLI11 wraps a negative count (-3 became 18446744073709551613) and
// lets nan past a range check (--time-limit nan ran with a limit of -9.2e15 s). Every unsigned
// option refuses a negative number and every floating-point one nan and infinity, in one
// sentence; "-0" is zero, and a range check still says what it says.
TEST(CommandLine, NumbersAreRefusedAlike) {
    using testing_support::run;
    const auto negative = run({"trace", "seed", "--from", "-3"});
    EXPECT_EQ(negative.code, kBadInput);
    EXPECT_THAT(negative.err, ::testing::StartsWith("--from: must not be negative, got -3\n"));
    for (const char* seconds : {"nan", "NaN"}) {
        const auto refused = run({"compare", "seed", "--time-limit", seconds});
        EXPECT_EQ(refused.code, kBadInput) << seconds;
        EXPECT_THAT(refused.err, ::testing::StartsWith("--time-limit: must be a finite number, got " + std::string(seconds) + "\n"));
    }
    // Infinity is past the range, which says so first.
    EXPECT_THAT(run({"compare", "seed", "--time-limit", "inf"}).err,
                ::testing::StartsWith("--time-limit: Value inf not in range 0.000000 to 86400.000000\n"));
    EXPECT_THAT(run({"import-minimalloc", "x.csv", "--time-limit", "nan"}).err,
                ::testing::StartsWith("--time-limit: must be a finite number, got nan\n"));
    EXPECT_THAT(run({"compare", "seed", "--time-limit", "1e9"}).err,
                ::testing::StartsWith("--time-limit: Value 1e9 not in range 0.000000 to 86400.000000\n"));
    EXPECT_EQ(run({"trace", "seed", "--from", "-0", "--to", "1"}).err, "seed: --from 0 --to 1 is not a range of events from 1 to 17\n");
}

// Issue 53 item 9: an error names the option as it was given. One option with two names given
// twice is named by both (CLI11 said "At Most 1 required but received 2"); a version given to
// --against or to policy export is named by that, not by --ggml-version.
TEST(CommandLine, ErrorsNameTheOptionAsGiven) {
    using testing_support::run;
    const auto twice = run({"plan", "seed", "--ggml-version", "ggml-f54604ef", "--policy", "ggml-0a2b6b20"});
    EXPECT_EQ(twice.code, kBadInput);
    EXPECT_THAT(twice.err, ::testing::StartsWith("--ggml-version or --policy: given 2 times; give it once\n"));
    const auto against = run({"policy", "compare", "seed", "--policy", "ggml-0a2b6b20", "--against", "nosuch"});
    EXPECT_EQ(against.code, kBadInput);
    EXPECT_THAT(against.err, ::testing::StartsWith("--against nosuch: unknown version; known: "));
    const auto exported = run({"policy", "export", "nosuch"});
    EXPECT_EQ(exported.code, kBadInput);
    EXPECT_THAT(exported.err, ::testing::StartsWith("policy export nosuch: unknown version; known: "));
}

TEST(CommandLine, AnUnknownCommandIsNamedAndTheCommandsListed) {
    const Outcome r = run({"frobnicate"});
    EXPECT_EQ(r.code, kBadInput);
    EXPECT_THAT(r.err, HasSubstr("unknown command \"frobnicate\""));
    for (const char* command : {"plan", "conform", "trace", "walk", "compare", "capture"}) {
        EXPECT_THAT(r.err, HasSubstr(command));
    }
}

// The commands' names, in cli/command_list.hpp's order: each adder asked for its command.
std::vector<std::string> listed_commands() {
    CLI::App app;
    std::istringstream in;
    std::ostringstream out, err;
    const Console io{in, out, err};
    std::vector<std::string> names;
    for (SubcommandAdder add : kCommands) {
        names.push_back(add(app, io).app->get_name());
    }
    return names;
}

// The names --help lists under "Subcommands:", in order (a name starts in the third column;
// a description wrapped onto a line of its own would start further right).
std::vector<std::string> help_commands(const std::string& help) {
    std::vector<std::string> names;
    std::istringstream lines(help.substr(help.find("\nSubcommands:\n") + 1));
    std::string line;
    std::getline(lines, line);  // the heading
    while (std::getline(lines, line) && !line.empty()) {
        if (line.size() > 2 && line.starts_with("  ") && line[2] != ' ') {
            names.push_back(line.substr(2, line.find(' ', 2) - 2));
        }
    }
    return names;
}

// --help and the message about an unknown command list every command of the list, in its order.
TEST(CommandLine, HelpListsEveryCommandInTheListsOrder) {
    const std::vector<std::string> commands = listed_commands();
    const Outcome help = run({"--help"});
    ASSERT_EQ(help.code, kDone);
    EXPECT_EQ(help_commands(help.out), commands) << help.out;
    std::string listed;
    for (const std::string& command : commands) {
        listed += (listed.empty() ? "" : ", ") + command;
    }
    EXPECT_EQ(run({"frobnicate"}).err, "gallocsim: unknown command \"frobnicate\"; the commands are " + listed +
                                            " (gallocsim --help says what each does)\n");
}

// The executable, run as a process, lists the same.
TEST(CommandLine, TheExecutableHasEveryCommand) {
    const std::filesystem::path out = std::filesystem::path(::testing::TempDir()) / "gallocsim-help.txt";
    const std::string command = "\"" GALLOCSIM_EXE "\" --help >\"" + out.string() + "\"";
    ASSERT_EQ(std::system(command.c_str()), 0);
    std::ostringstream help;
    help << std::ifstream(out).rdbuf();
    std::filesystem::remove(out);
    EXPECT_EQ(help_commands(help.str()), listed_commands()) << help.str();
}

TEST(CommandLine, NoCommandListsTheCommands) {
    const Outcome r = run({});
    EXPECT_EQ(r.code, kBadInput);
    EXPECT_THAT(r.err, HasSubstr("no command given; the commands are plan, conform"));
}

// CLI11 would exit with 109 (an unexpected argument) and 106 (a required one missing).
TEST(CommandLine, UsageErrorsExitWithTwo) {
    EXPECT_EQ(run({"plan", "seed", "--bogus"}).code, kBadInput);
    EXPECT_EQ(run({"plan"}).code, kBadInput);
    EXPECT_EQ(run({"walk", "seed", "--checkpoint-every", "0"}).code, kBadInput);
    EXPECT_EQ(run({"plan", "seed", "--ggml-version", "ggml-1234"}).code, kBadInput);
}

TEST(CommandLine, AFolderIsNoGraphFile) {
    const std::filesystem::path folder = std::filesystem::temp_directory_path();
    const Outcome r = run({"plan", folder.string()});
    EXPECT_EQ(r.code, kBadInput);
    EXPECT_EQ(r.err, folder.string() + ": is a folder, but not a capture (no session-N.jsonl): not a graph file\n");
}

// `plan /dev/zero` used to read until memory ran out (std::bad_alloc, exit 3): a device is
// refused before it is read, as bad input.
TEST(CommandLine, ADeviceIsNoGraphFile) {
    for (const char* command : {"plan", "trace", "why"}) {
        const Outcome r = run({command, "/dev/zero"});
        EXPECT_EQ(r.code, kBadInput) << command;
        EXPECT_EQ(r.err, "/dev/zero: not a regular file (a device, a pipe or a socket); give a file\n") << command;
    }
    // conform counts a file it cannot read as failed, as it does a malformed one, and goes on.
    const Outcome conform = run({"conform", "/dev/zero"});
    EXPECT_EQ(conform.code, kFailed);
    EXPECT_NE(conform.out.find("FAIL /dev/zero: not a regular file"), std::string::npos) << conform.out;
}

// Issue 36, item 8: graph-format.md asks for at least one buffer type, and a graph with none
// has nowhere to put a tensor. Every command that reads a graph refuses `buffer_types: []` as
// bad input (exit 2), names the file and the JSON path and writes nothing on standard output;
// the same from standard input, named as such. (The expected text is the format's rule in the
// reader's words, "$.buffer_types: must list at least one buffer type".)
TEST(CommandLine, NoBufferTypesIsBadInputNamingTheFileAndThePlace) {
    const std::string graph = R"({"format": "ggml-graph/1", "buffer_types": [],
        "tensors": [{"name": "a", "ne": [4], "flags": ["input"]}], "leafs": ["a"], "nodes": []})";
    const std::filesystem::path path = std::filesystem::temp_directory_path() / "gallocsim-no-buffer-types.json";
    std::ofstream(path) << graph;
    for (const char* command : {"plan", "trace", "stats", "why", "compare", "export-minimalloc", "walk"}) {
        const Outcome from_file = run({command, path.string()});
        EXPECT_EQ(from_file.code, kBadInput) << command;
        EXPECT_EQ(from_file.out, "") << command;
        EXPECT_EQ(from_file.err, path.string() + ": $.buffer_types: must list at least one buffer type\n") << command;
        const Outcome from_stdin = run({command, "-"}, graph);
        EXPECT_EQ(from_stdin.code, kBadInput) << command;
        EXPECT_EQ(from_stdin.err, "standard input: $.buffer_types: must list at least one buffer type\n") << command;
    }
    std::filesystem::remove(path);
}

// Running out of memory is the machine's limit, not a bug: exit 1 and one sentence
// (cli/errors.hpp, report_out_of_memory), where std::bad_alloc once reached main() as
// "internal error: std::bad_alloc" and exit 3. First the path a command's body takes...
TEST(CommandLine, OutOfMemoryInACommandIsExitOneAndASentence) {
    std::ostringstream err;
    EXPECT_EQ(run_guarded(err, []() -> int { throw std::bad_alloc(); }), kFailed);
    EXPECT_EQ(err.str(), "gallocsim: out of memory: this input needs more memory than the process may use\n");
}

// ...then the program itself, under a limit on its address space (the shell's ulimit -v, in
// KiB). 100,000 KiB start it (plan seed needs about 50,000 in the default build, 40,000 in
// Release) and are far below what planning the 4,096-layer llama example needs (about 250,000
// and 180,000: its 860,000 events), so the plan runs out of memory part way and the program
// says so. AddressSanitizer reserves terabytes of address space, so no sanitized process
// starts under such a limit: a sanitized build (the sanitized and asan presets) has no such
// test, rather than one that always skips (CI fails on skips, .ci/ctest-all-run); the test
// above covers the path there.
#if defined(__SANITIZE_ADDRESS__)
#define GALLOCSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GALLOCSIM_TEST_ASAN 1
#endif
#endif
#ifndef GALLOCSIM_TEST_ASAN
TEST(CommandLine, TheProgramOutOfMemoryExitsWithOneAndASentence) {
    const std::string limit = "ulimit -v 100000";
    if (std::system((limit + " 2>/dev/null").c_str()) != 0) {
        GTEST_SKIP() << "/bin/sh cannot set ulimit -v here, so no memory limit can be put on the program";
    }
    const std::filesystem::path folder = ::testing::TempDir();
    const std::filesystem::path out = folder / "gallocsim-oom-out.txt", err = folder / "gallocsim-oom-err.txt";
    const auto run_limited = [&](const std::string& args) {
        const std::string command = limit + " && exec \"" GALLOCSIM_EXE "\" " + args + " >\"" + out.string() + "\" 2>\"" +
                                    err.string() + "\"";
        const int status = std::system(command.c_str());
        std::ostringstream text;
        text << std::ifstream(err).rdbuf();
        return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, "", text.str()};
    };
    const Outcome seed = run_limited("plan seed");
    ASSERT_EQ(seed.code, kDone) << "the limit is too small for gallocsim to start: " << seed.err;
    const Outcome big = run_limited("plan llama --layers 4096");
    EXPECT_EQ(big.code, kFailed) << big.err;
    EXPECT_EQ(big.err, "gallocsim: out of memory: this input needs more memory than the process may use\n");
    std::filesystem::remove(out);
    std::filesystem::remove(err);
}
#endif

// export-minimalloc's help names every column the CSV it writes may have (it once listed
// id,lower,upper,size,offset): to_minimalloc_csv writes id,lower,upper,size, then alignment
// when a tensor is aligned above 1 (every graph's are), then offset (tests/minimalloc_test.cpp
// checks the header itself).
TEST(CommandLine, ExportMinimallocHelpNamesEveryColumn) {
    const Outcome r = run({"export-minimalloc", "--help"});
    EXPECT_EQ(r.code, kDone);
    EXPECT_THAT(r.out, HasSubstr("(id,lower,upper,size,alignment,offset)"));
}

// Numbers the user typed are taken exactly or refused: 2^64 does not become 2^64 - 1, and a
// negative time limit is no limit.
TEST(CommandLine, OutOfRangeNumbersAreRefused) {
    const Outcome huge = run({"plan", "seed", "--max-size", "18446744073709551616"});
    EXPECT_EQ(huge.code, kBadInput);
    EXPECT_THAT(huge.err, HasSubstr("must be below 2^64 bytes, got 18446744073709551616"));
    EXPECT_EQ(run({"plan", "seed", "--max-size", "18446744073709551615"}).code, kDone);  // 2^64 - 1 is a size
    EXPECT_THAT(run({"plan", "seed", "--alignment", "32x"}).err, HasSubstr("must be a whole number of bytes, got 32x"));
    const Outcome negative = run({"compare", "seed", "--time-limit", "-1"});
    EXPECT_EQ(negative.code, kBadInput);
    // CLI11's range check (the option's CLI::Range(0.0, 86400.0)), worded by CLI11: its bounds as
    // std::to_string prints doubles, six decimals.
    EXPECT_THAT(negative.err, HasSubstr("--time-limit: Value -1 not in range 0.000000 to 86400.000000\n"));
    EXPECT_EQ(run({"compare", "seed", "--time-limit", "0"}).code, kDone);
}

// An output that cannot be created is the user's path to fix: exit 2, as the README says.
TEST(CommandLine, AnOutputThatCannotBeCreatedIsBadInput) {
    const Outcome r = run({"render", "seed", "-o", "/nonexistent/x.svg"});
    EXPECT_EQ(r.code, kBadInput);
    EXPECT_EQ(r.err, "/nonexistent/x.svg: cannot create the file: No such file or directory\n");
}

// What conform cannot take is named, with what to give instead, and exits 2 (not "0 passed,
// 0 failed" and exit 1).
TEST(CommandLine, ConformNamesWhatItCannotTake) {
    const std::filesystem::path empty = std::filesystem::path(::testing::TempDir()) / "gallocsim-empty-folder";
    std::filesystem::create_directories(empty);
    const Outcome nothing = run({"conform", empty.string()});
    EXPECT_EQ(nothing.code, kBadInput);
    EXPECT_THAT(nothing.err, HasSubstr(empty.string() + ": a folder with no graph files (*.json) and no capture folders in it"));
    EXPECT_EQ(nothing.out, "");  // nothing was checked, so no tally of nothing
    const std::string capture = std::string(GALLOCSIM_TEST_DATA_DIR) + "/captures/seed";
    const Outcome session = run({"conform", capture + "/session-0.jsonl"});
    EXPECT_EQ(session.code, kBadInput);
    EXPECT_THAT(session.err, HasSubstr("session-0.jsonl: part of the capture in " + capture + "; give the capture folder"));
    EXPECT_EQ(session.out, "");
    const Outcome planned = run({"plan", capture + "/session-0.jsonl"});
    EXPECT_EQ(planned.code, kBadInput);
    EXPECT_THAT(planned.err, HasSubstr("not a graph file; give the capture folder (--call SESSION:CALL picks a call)"));
}

// The GUI's saved session is no graph file, and is called what it is.
TEST(CommandLine, AGuiSessionIsNamedAsOne) {
    const Outcome r = run({"plan", "-"}, R"({"format": "gallocsim-session/1", "breakpoints": []})");
    EXPECT_EQ(r.code, kBadInput);
    EXPECT_THAT(r.err, HasSubstr("a GUI session (gallocsim-session/1), not a graph file: open it with gallocsim-gui"));
}

// plan --json names the rules it planned by, so the plan pasted as a file's `expected` is
// read back by conform under the same rules: the seed planned under the seed era passes.
TEST(CommandLine, PlanJsonRoundTripsThroughConform) {
    const Outcome planned = run({"plan", "seed", "--json", "--ggml-version", "ggml-f54604ef"});
    ASSERT_EQ(planned.code, kDone) << planned.err;
    nlohmann::json file = nlohmann::json::parse(run({"examples", "seed"}).out);
    file["expected"] = nlohmann::json::parse(planned.out);
    EXPECT_EQ(file["expected"]["source"], "gallocsim ggml-f54604ef");
    const auto path = std::filesystem::path(::testing::TempDir()) / "gallocsim-round-trip.json";
    std::ofstream(path) << file.dump();
    const Outcome conform = run({"conform", path.string()});
    EXPECT_EQ(conform.code, kDone) << conform.out << conform.err;
    EXPECT_THAT(conform.out, HasSubstr("1 passed, 0 failed"));
}

// A 1,000-character name no longer widens every row: the name column is at most 48
// columns, the long name cut to 47 and "…"; a graph without a name is called by its file.
TEST(CommandLine, LongNamesAreShortenedAndNamelessGraphsNamedByTheirFile) {
    const std::string long_name(1000, 'n');
    const auto path = std::filesystem::path(::testing::TempDir()) / "nameless.json";
    std::ofstream(path) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": ")" << long_name << R"(", "ne": [1]}, {"name": "b", "ne": [1]}],
        "leafs": [")" << long_name << R"(", "b"], "nodes": []})";
    const Outcome r = run({"plan", path.string()});
    ASSERT_EQ(r.code, kDone) << r.err;
    std::istringstream lines(r.out);
    std::string planned_by, header, first, second;
    std::getline(lines, planned_by);
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    EXPECT_THAT(first, StartsWith(std::string(47, 'n') + "\xe2\x80\xa6  leaf"));
    EXPECT_THAT(second, StartsWith("b" + std::string(47, ' ') + "  leaf"));
    EXPECT_THAT(planned_by, StartsWith("nameless: planned by "));
    EXPECT_THAT(run({"why", path.string()}).out, StartsWith("nameless: 1 buffer; planned by "));
    EXPECT_NE(run({"plan", path.string(), "--json"}).out.find(long_name), std::string::npos);  // whole in JSON
}

// A file's name may hold bytes that are not UTF-8 (0xFF here), which no JSON string can carry.
// A nameless graph is called by its file, and conform, diff and policy compare write the path:
// every --json report below handed such bytes to nlohmann, which threw, and the command ended
// with exit 3 and "internal error: [json.exception.type_error.316] invalid UTF-8 byte".
// Now the byte is U+FFFD, which the ASCII-only reports write as \ufffd.
TEST(CommandLine, AFileNameThatIsNotUtf8ReachesJsonReportsAsAReplacement) {
    const auto folder = std::filesystem::path(::testing::TempDir()) / "gallocsim-not-utf8";
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    const std::string path = (folder / "\xff.json").string();
    std::ofstream(path) << R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [1]}, {"name": "b", "ne": [1]}, {"name": "mul", "ne": [1], "op": "MUL", "src": ["a", "b"]}],
        "leafs": ["a", "b"], "nodes": ["mul"]})";
    const std::vector<std::vector<std::string>> commands{
        {"stats", path},   {"trace", path},       {"why", path},
        {"compare", path}, {"diff", path, "--max-size", "64"}, {"conform", path},
        {"policy", "compare", folder.string(), "--policy", "ggml-f54604ef"}};
    for (std::vector<std::string> command : commands) {
        command.push_back("--json");
        const Outcome r = run(command);
        EXPECT_EQ(r.code, kDone) << command[0] << ": " << r.err;
        EXPECT_THAT(r.err, Not(HasSubstr("json.exception"))) << command[0];
        EXPECT_THAT(r.out, HasSubstr("\\ufffd")) << command[0];
    }
    std::filesystem::remove_all(folder);
}

// A real model asked about by name: --preset gives the llama example Llama-3.1-8B's shapes (32
// layers, width 4096, 32 heads, feed-forward 14336, vocabulary 128,256: its config), and the
// header says every one; a flag given beside it wins; a preset of another example, or an
// unknown one, is a usage error that lists them.
TEST(CommandLine, PresetsShapeAnExampleLikeARealModel) {
    const Outcome r = run({"why", "llama", "--preset", "llama-3.1-8b", "--tokens", "8"});
    ASSERT_EQ(r.code, kDone) << r.err;
    EXPECT_THAT(r.out, StartsWith("llama-l32-e4096-h32-f14336-v128256-t8: 1 buffer; planned by "));
    EXPECT_THAT(run({"plan", "llama", "--preset", "llama-3.1-8b", "--layers", "2", "--json"}).err, ::testing::IsEmpty());
    const Outcome two = run({"trace", "llama", "--preset", "llama-3.1-8b", "--layers", "2", "--to", "1"});
    EXPECT_THAT(two.out, StartsWith("llama-l2-e4096-h32-f14336-v128256-t1: "));
    const Outcome other = run({"plan", "llama", "--preset", "gpt2"});
    EXPECT_EQ(other.code, kBadInput);
    EXPECT_EQ(other.err, "--preset gpt2 shapes the gpt2 example, not llama\n");
    const Outcome unknown = run({"plan", "llama", "--preset", "llama-9"});
    EXPECT_EQ(unknown.code, kBadInput);
    EXPECT_THAT(unknown.err, HasSubstr("--preset: unknown model \"llama-9\" (tinyllama-1.1b, llama-2-7b"));
    EXPECT_THAT(run({"examples"}).out, HasSubstr("--preset: gpt2 gpt2-xl\n"));
}

// The seed graph on standard input: a and b (4 bytes each, 32-aligned) at 0 and 32, mul in
// place of a, so one 64-byte buffer.
TEST(CommandLine, DashReadsTheGraphFromStandardInput) {
    const Outcome exported = run({"examples", "seed"});
    ASSERT_EQ(exported.code, kDone) << exported.err;
    const Outcome r = run({"plan", "-", "--json"}, exported.out);
    EXPECT_EQ(r.code, kDone) << r.err;
    const nlohmann::json plan = nlohmann::json::parse(r.out);
    EXPECT_EQ(plan["buffer_sizes"], nlohmann::json::array({64}));
    EXPECT_EQ(plan["tensors"]["b"]["offset"], 32);
    EXPECT_EQ(plan["tensors"]["mul"]["offset"], 0);
    EXPECT_EQ(run({"plan", "-"}, "{").code, kBadInput);
    EXPECT_THAT(run({"plan", "-"}, "{").err, StartsWith("standard input: "));
}

// Standard input is read once and planned as often as diff needs it: `diff - -` compares the
// seed with itself (nothing moves), `diff - --alignment 64` the seed with its 64-byte-aligned
// plan (b moves from 32 to 64, as the buffer flags test draws it).
TEST(CommandLine, DiffReadsStandardInputOnceForBothPlans) {
    const std::string seed = graph_file_to_json(make_example("seed"));
    const Outcome same = run({"diff", "-", "-", "--json"}, seed);
    ASSERT_EQ(same.code, kDone) << same.err;
    EXPECT_EQ(nlohmann::json::parse(same.out)["tensors"], nlohmann::json::array());
    const Outcome aligned = run({"diff", "-", "--alignment", "64", "--json"}, seed);
    ASSERT_EQ(aligned.code, kDone) << aligned.err;
    const nlohmann::json report = nlohmann::json::parse(aligned.out);
    EXPECT_EQ(report["moved"], 1);
    ASSERT_EQ(report["tensors"].size(), 1u) << aligned.out;
    EXPECT_EQ(report["tensors"][0]["name"], "b");
}

// A name with a bell and a right-to-left override, as a hostile graph file may hold it: the
// table shows both as escapes, and --json keeps the exact name (JSON escapes round-trip).
TEST(CommandLine, HostileNamesAreShownAsEscapes) {
    const std::string file = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
      "tensors": [{"name": "a\u0007b\u202ec", "type": "f32", "ne": [4], "flags": ["input"]},
                  {"name": "m", "type": "f32", "ne": [4], "op": "SCALE", "src": ["a\u0007b\u202ec"], "flags": ["output"]}],
      "leafs": ["a\u0007b\u202ec"], "nodes": ["m"]})";
    const Outcome table = run({"plan", "-"}, file);
    ASSERT_EQ(table.code, kDone) << table.err;
    EXPECT_THAT(table.out, HasSubstr("a\\x07b\\u202Ec  leaf"));
    EXPECT_EQ(table.out.find('\a'), std::string::npos);
    const nlohmann::json plan = nlohmann::json::parse(run({"plan", "-", "--json"}, file).out);
    EXPECT_TRUE(plan["tensors"].contains("a\x07" "b\xe2\x80\xae" "c"));  // U+202E in UTF-8
}

// trace --json writes its events itself (not through a JSON library): names holding a
// quote, a backslash, a tab, a newline, a bell, DEL, a right-to-left override and "é" come
// back exactly when the output is parsed, in the fields and in each event's tensor list.
TEST(CommandLine, TraceJsonKeepsEveryNameExactly) {
    const std::string file = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
      "tensors": [{"name": "q\"b\\t\tn\nbell\u0007del\u007frlo\u202e\u00e9", "type": "f32", "ne": [4], "flags": ["input"]},
                  {"name": "m", "type": "f32", "ne": [4], "op": "SCALE", "src": ["q\"b\\t\tn\nbell\u0007del\u007frlo\u202e\u00e9"], "flags": ["output"]}],
      "leafs": ["q\"b\\t\tn\nbell\u0007del\u007frlo\u202e\u00e9"], "nodes": ["m"]})";
    const std::string name = "q\"b\\t\tn\nbell\x07" "del\x7f" "rlo\xe2\x80\xae" "\xc3\xa9";
    const Outcome traced = run({"trace", "-", "--json"}, file);
    ASSERT_EQ(traced.code, kDone) << traced.err;
    const nlohmann::json doc = nlohmann::json::parse(traced.out);
    int named = 0;
    for (const nlohmann::json& event : doc["events"]) {
        EXPECT_TRUE(event["event"].is_number());
        for (const char* key : {"tensor", "parent"}) {
            if (event.contains(key) && event[key] != "m" && !event[key].is_null()) {
                EXPECT_EQ(event[key], name);
                ++named;
            }
        }
        for (const nlohmann::json& tensor : event["tensors"]) {
            EXPECT_TRUE(tensor == "m" || tensor == name) << tensor;
        }
    }
    EXPECT_GT(named, 2);  // allocated, counted, released or freed at least
}

// Names of several scripts: "é" is one column in two bytes, "日本" two wide characters in
// six bytes, "x" one. The kind column starts at the same terminal column on every row: the
// name column is as wide as its header "tensor" (6 columns, wider than "日本"'s 4), so each
// row is its name padded to 6 columns, then two spaces, then the kind.
// A capture folder goes wherever a graph goes. tests/data/captures/seed: session 0 reserves the
// seed graph (a, b: 4 floats each, 32 bytes aligned: 64), then alloc_graph three times, the last
// on seed-16 (16 floats each: a at 0, b at 64, mul in a's bytes: 128), so that call set the
// largest buffer; session 1 plans the seed graph again (64). The program reported ggml 0.21.0,
// the release of d99724f2 (shared/upstream-versions.md), whose allocator state is ggml-0a2b6b20:
// without --ggml-version the call is planned by it, as conform replays it.
TEST(CommandLine, ACaptureFolderPlansTheCallThatSetTheLargestBuffer) {
    const std::string capture = GALLOCSIM_SOURCE_DIR "/tests/data/captures/seed";
    const Outcome plan = run({"plan", capture});
    ASSERT_EQ(plan.code, kDone) << plan.err;
    EXPECT_THAT(plan.out, StartsWith("seed-mul-16 (seed, session 0, call 3 (ggml_gallocr_alloc_graph), which set the "
                                     "largest buffer: 128 B): planned by ggml-0a2b6b20; "));
    // 0.21.0 was tagged on more than one state (the version map's note), and the first line says so.
    EXPECT_THAT(plan.out, HasSubstr("(ggml 0.21.0 may be any allocator state from ggml-0a2b6b20 to "));
    EXPECT_THAT(plan.out, HasSubstr("\nb       leaf       0      0            64          64\n"));
    EXPECT_THAT(plan.out, HasSubstr("buffer 0 (CPU, alignment 32): 128 bytes"));
    // --call names another; every command that plans one graph takes the folder.
    const Outcome other = run({"stats", capture, "--call", "1:1", "--summary"});
    ASSERT_EQ(other.code, kDone) << other.err;
    EXPECT_THAT(other.out, StartsWith("seed-mul (seed, session 1, call 1 (ggml_gallocr_alloc_graph), as --call asks; "));
    EXPECT_THAT(other.out, HasSubstr("high-water mark: 64 bytes"));
    for (const char* command : {"why", "compare", "trace", "render"}) {
        const Outcome r = run({command, capture, "--ggml-version", "ggml-f54604ef"});
        EXPECT_EQ(r.code, kDone) << command << ": " << r.err;
    }
    EXPECT_EQ(run({"walk", capture, "-e", "q"}).code, kDone);
}

// What --call cannot pick is said with what it can: exit 2, nothing planned.
TEST(CommandLine, ACallTheCaptureLacksOrAFolderThatIsNoCaptureIsRefused) {
    const std::string capture = GALLOCSIM_SOURCE_DIR "/tests/data/captures/seed";
    const Outcome missing = run({"why", capture, "--call", "0:9"});
    EXPECT_EQ(missing.code, kBadInput);
    EXPECT_THAT(missing.err, HasSubstr("--call 0:9: the capture has no such call (calls: 0:0, 0:1, 0:2, 0:3, 1:0, 1:1)"));
    EXPECT_TRUE(missing.out.empty());
    EXPECT_THAT(run({"plan", capture, "--call", "three"}).err, HasSubstr("not SESSION:CALL"));
    EXPECT_EQ(run({"plan", "seed", "--call", "0:1"}).code, kBadInput);
    const Outcome docs = run({"plan", GALLOCSIM_SOURCE_DIR "/docs"});
    EXPECT_EQ(docs.code, kBadInput);
    EXPECT_THAT(docs.err, HasSubstr("is a folder, but not a capture"));
    const Outcome session = run({"plan", capture + "/session-0.jsonl"});
    EXPECT_EQ(session.code, kBadInput);
    EXPECT_THAT(session.err, HasSubstr("give the capture folder"));
}

TEST(CommandLine, PlanColumnsStayAlignedWithMultibyteNames) {
    const std::string file = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
      "tensors": [{"name": "é", "type": "f32", "ne": [4], "flags": ["input"]},
                  {"name": "日本", "type": "f32", "ne": [4], "op": "SCALE", "src": ["é"]},
                  {"name": "x", "type": "f32", "ne": [4], "op": "SCALE", "src": ["日本"], "flags": ["output"]}],
      "leafs": ["é"], "nodes": ["日本", "x"]})";
    const Outcome table = run({"plan", "-"}, file);
    ASSERT_EQ(table.code, kDone) << table.err;
    EXPECT_THAT(table.out, HasSubstr("\ntensor  kind"));  // "tensor" is 6 columns, wider than any name
    EXPECT_THAT(table.out, HasSubstr("é       leaf"));   // 1 column + 5 of padding + 2
    EXPECT_THAT(table.out, HasSubstr("日本    node"));  // 4 columns + 2 of padding + 2
    EXPECT_THAT(table.out, HasSubstr("\nx       node"));
}

} // namespace
} // namespace gallocsim::cli
