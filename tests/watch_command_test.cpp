// `gallocsim watch` on the command line, with programs that make no graph allocator call
// (/bin/sh): what it says of them, the exit codes and bad input. Watching real programs is
// tests/e2e/watch_program.sh (label upstream).
#include "simulator/live/program_run.hpp"
#include "tests/command_line_runner.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gallocsim::cli {
namespace {

namespace fs = std::filesystem;
using testing_support::run;

class WatchCommand : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = fs::temp_directory_path() / ("gallocsim-watch-test-" + std::to_string(::getpid()));
        fs::remove_all(folder_);
    }
    void TearDown() override { fs::remove_all(folder_); }
    // A build without the capture library (no ggml tree; the sanitizer builds) cannot watch:
    // then watch must say so, exit 2, and run nothing.
    bool refused_without_the_library(const testing_support::Outcome& outcome) {
        const live::FoundLibrary library = live::find_capture_library();
        if (library.path) {
            return false;
        }
        EXPECT_EQ(outcome.code, 2);
        EXPECT_EQ(outcome.err, "gallocsim watch: " + library.problem + "\n");
        return true;
    }
    fs::path folder_;
};

TEST_F(WatchCommand, returns_the_programs_exit_code_and_says_it_saw_no_call) {
    const auto outcome = run({"watch", "--out", folder_.string(), "--", "/bin/sh", "-c", "echo hello; exit 3"});
    if (refused_without_the_library(outcome)) {
        return;
    }
    EXPECT_EQ(outcome.code, 3);
    EXPECT_EQ(outcome.out, "");  // the program's own output is its own: it went to the real standard output
    EXPECT_NE(outcome.err.find("[watch] capturing /bin/sh into " + folder_.string() + "\n"), std::string::npos);
    EXPECT_NE(outcome.err.find("[watch] /bin/sh made no graph allocator call the capture saw"), std::string::npos);
    EXPECT_NE(outcome.err.find("[watch] 0 passed, 0 failed\n[watch] /bin/sh exited with 3\n"), std::string::npos);
}

TEST_F(WatchCommand, refuses_a_folder_that_holds_a_capture) {
    fs::create_directories(folder_);
    { std::ofstream(folder_ / "session-0.jsonl") << "{}\n"; }
    const auto outcome = run({"watch", "--out", folder_.string(), "--", "/bin/true"});
    if (refused_without_the_library(outcome)) {
        return;
    }
    EXPECT_EQ(outcome.code, 2);
    EXPECT_EQ(outcome.err, "gallocsim watch: " + folder_.string() + " already holds a capture; choose an empty or new folder\n");
}

TEST_F(WatchCommand, says_when_the_program_cannot_be_run) {
    const auto outcome = run({"watch", "--out", folder_.string(), "--", "/nonexistent/program"});
    if (refused_without_the_library(outcome)) {
        return;
    }
    EXPECT_EQ(outcome.code, 127);
    EXPECT_NE(outcome.err.find("gallocsim watch: cannot run /nonexistent/program: No such file or directory\n"),
              std::string::npos);
}

TEST_F(WatchCommand, an_unknown_version_is_bad_input) {
    const auto outcome = run({"watch", "--ggml-version", "0.0.1", "--out", folder_.string(), "--", "/bin/true"});
    EXPECT_EQ(outcome.code, 2);
    EXPECT_FALSE(fs::exists(folder_));  // refused before anything ran
}

} // namespace
} // namespace gallocsim::cli
