// `gallocsim conform` on capture folders: one pass or fail per captured call, cut-short and
// broken captures included. The seed capture's values are reasoned in
// tests/data/captures/seed/README.md (and below where a test uses them).

#include "simulator/cli/commands.hpp"
#include "simulator/cli/step_commands.hpp"
#include "simulator/model/capture_session.hpp"
#include "tests/test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gallocsim {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kCaptures = fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures";
const fs::path kSeed = kCaptures / "seed";

void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
}

// A copy of the seed capture to break, removed afterwards.
class BrokenSeed : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = fs::temp_directory_path() /
                  ("gallocsim-capture-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(folder_);
        fs::copy(kSeed, folder_, fs::copy_options::recursive);
    }
    void TearDown() override { fs::remove_all(folder_); }

    fs::path session0() const { return folder_ / "session-0.jsonl"; }
    void replace_in_session0(const std::string& from, const std::string& to) {
        std::string text = test_support::read_text(session0());
        const auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
        write(session0(), text);
    }

    struct Conformed {
        int exit_code;
        std::string out;
        std::string last_line;
    };
    Conformed conform(const std::string& ggml_version = {}) const {
        std::ostringstream out, err;
        const int code = cli::conform({.paths = {folder_.string()}, .ggml_version = ggml_version}, out, err);
        std::string text = out.str();
        const auto end = text.find_last_not_of('\n');
        const auto start = text.rfind('\n', end);
        return {code, text, text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1)};
    }

    fs::path folder_;
};

TEST(CaptureConform, SeedPassesCallByCall) {
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {kSeed.string()}, .verbose = true}, out, err), 0);
    EXPECT_THAT(out.str(), HasSubstr("PASS " + (kSeed / "session-0.jsonl").string() +
                                     " call 1 (ggml_gallocr_alloc_graph, graphs/seed.json; buffer 0: 64 B)\n"));
    // Four calls in session 0 and two in session 1, each one pass.
    EXPECT_THAT(out.str(), ::testing::EndsWith("6 passed, 0 failed\n"));
}

// A split graph on two buffer types, worked by hand in tests/data/captures/two-backends/README.md:
// a dependency view before its source, chunks on Vulkan0, and Vulkan_Host's 32 extra bytes.
TEST(CaptureConform, TwoBackendsPassCallByCall) {
    const fs::path folder = kCaptures / "two-backends";
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {folder.string()}, .verbose = true}, out, err), 0) << out.str() << err.str();
    EXPECT_THAT(out.str(), HasSubstr("PASS " + (folder / "session-0.jsonl").string() +
                                     " call 1 (ggml_gallocr_alloc_graph, graphs/split.json; buffers 0: 80 B, 1: 160 B)\n"));
    EXPECT_THAT(out.str(), ::testing::EndsWith("2 passed, 0 failed\n"));
}

// Without the buffer type's extra bytes, replay's Vulkan_Host buffer is the plan's 128 bytes, not
// the 160 ggml reported: the call fails on exactly that size.
TEST(CaptureConform, TwoBackendsFailWithoutTheExtraBytes) {
    const fs::path folder = fs::temp_directory_path() / "gallocsim-capture-two-backends-no-extra";
    fs::remove_all(folder);
    fs::copy(kCaptures / "two-backends", folder, fs::copy_options::recursive);
    std::string text = test_support::read_text(folder / "session-0.jsonl");
    for (auto at = text.find(", \"buffer_extra\": [0, 32]"); at != std::string::npos;
         at = text.find(", \"buffer_extra\": [0, 32]")) {
        text.erase(at, std::string(", \"buffer_extra\": [0, 32]").size());
    }
    write(folder / "session-0.jsonl", text);
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {folder.string()}}, out, err), 1);
    EXPECT_THAT(out.str(), HasSubstr("FAIL " + (folder / "session-0.jsonl").string() +
                                     " call 1 (ggml_gallocr_alloc_graph, graphs/split.json; buffers 0: 80 B, 1: 160 B)\n"
                                     "  buffer_sizes: expected [80, 160], got [80, 128]\n"));
    EXPECT_THAT(out.str(), ::testing::EndsWith("0 passed, 2 failed\n"));
    fs::remove_all(folder);
}

TEST_F(BrokenSeed, OneWrongOffsetIsExactlyOneMismatch) {
    // Call 1 says b went to 64; the plan put it at 32.
    replace_in_session0(R"("b": {"buffer": 0, "chunk": 0, "offset": 32}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}}}
{"call": 2)",
                        R"("b": {"buffer": 0, "chunk": 0, "offset": 64}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}}}
{"call": 2)");
    const Conformed result = conform();
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.out, HasSubstr("FAIL " + session0().string() + " call 1 (ggml_gallocr_alloc_graph, graphs/seed.json; buffer 0: 64 B)\n"
                                      "  tensor 'b' offset: expected 64, got 32\n"));
    EXPECT_EQ(result.last_line, "5 passed, 1 failed");
}

// The session names its places; a name the call's graph lacks is read as a place the plan did
// not make, and b, which the plan placed, as unexpected.
TEST_F(BrokenSeed, APlaceUnderANameTheGraphLacksGotNoMemory) {
    replace_in_session0(R"("b": {"buffer": 0, "chunk": 0, "offset": 32}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}}}
{"call": 2)",
                        R"("zz": {"buffer": 0, "chunk": 0, "offset": 32}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}}}
{"call": 2)");
    const Conformed result = conform();
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.out, HasSubstr("FAIL " + session0().string() + " call 1 (ggml_gallocr_alloc_graph, graphs/seed.json; buffer 0: 64 B)\n"
                                      "  tensor 'zz': expected at buffer 0, chunk 0, offset 32, but it got no memory\n"
                                      "  tensor 'b': expected no memory, got buffer 0, chunk 0, offset 32\n"));
    EXPECT_EQ(result.last_line, "5 passed, 1 failed");
}

TEST_F(BrokenSeed, CutLastLineKeepsTheCallsBefore) {
    std::string text = test_support::read_text(session0());
    text.resize(text.rfind("\"tensors\""));  // the program stopped in the middle of call 3's line
    write(session0(), text);
    const CaptureSession session = load_capture_session(session0(), folder_);
    EXPECT_EQ(session.calls.size(), 3u);
    EXPECT_EQ(session.truncated,
              "line 5 is not complete JSON (the program stopped while writing it): call 3 and any calls after it are missing");
    const Conformed result = conform();
    EXPECT_THAT(result.out, HasSubstr("FAIL " + session0().string() + ": " + session.truncated + "\n"));
    EXPECT_EQ(result.last_line, "5 passed, 1 failed");  // calls 0-2 and session 1's two, then the missing part
}

// A session line that is no JSON is worded as a graph file's invalid JSON (json_input's
// json_error_text), never with nlohmann's "[json.exception.parse_error.101]". The second comma
// in {"call": 0,, is the line's 12th character, where an object key should start; the place
// is the file's line 2 and that column (nlohmann's "line 1" is of the one line it parsed).
// The session is not read, so its calls are not counted: session 1's two pass.
TEST_F(BrokenSeed, ALineThatIsNoJsonIsNamedWithoutTheLibrarysPrefix) {
    replace_in_session0(R"({"call": 0, "function")", R"({"call": 0,, "function")");
    const Conformed result = conform();
    EXPECT_THAT(result.out, HasSubstr("FAIL " + session0().string() +
                                      ": line 2: not JSON: parse error at column 12: syntax error while parsing object key - "
                                      "unexpected ','; expected string literal\n"));
    EXPECT_THAT(result.out, Not(HasSubstr("json.exception")));
    EXPECT_EQ(result.last_line, "2 passed, 1 failed");
}

// capture-log.jsonl the same: a line before the last (the last may be cut short as the program
// ended) that is no JSON is named with its line and place. "[1" ends after its 2 characters,
// where nlohmann wanted a value or ']': column 3.
TEST_F(BrokenSeed, ABadCaptureLogLineIsNamedWithoutTheLibrarysPrefix) {
    write(folder_ / "capture-log.jsonl", "[1\n{\"pid\": 1, \"event\": \"exit\", \"allocators\": 2, \"calls\": 6}\n");
    const Capture capture = load_capture(folder_);
    ASSERT_EQ(capture.errors.size(), 1u);
    EXPECT_EQ(capture.errors[0], (folder_ / "capture-log.jsonl").string() +
                                     ": line 1: not JSON: parse error at column 3: syntax error while parsing array - "
                                     "unexpected end of input; expected ']'");
}

TEST_F(BrokenSeed, MissingGraphFileStopsTheSessionThere) {
    fs::remove(folder_ / "graphs" / "seed-f16.json");
    const Conformed result = conform();
    EXPECT_THAT(result.out, HasSubstr("FAIL " + session0().string() + " call 2 (ggml_gallocr_alloc_graph, graphs/seed-f16.json; buffer 0: 64 B)\n  " +
                                      session0().string() + ": line 4: $.graph: graphs/seed-f16.json is missing from the capture\n"));
    // Call 3 depends on what call 2 left; it is not replayed.
    EXPECT_THAT(result.out, HasSubstr("SKIP " + session0().string() + " call 3 (ggml_gallocr_alloc_graph, graphs/seed-16.json; buffer 0: 128 B): "
                                      "not replayed: the graph of call 2 could not be loaded\n"));
    EXPECT_EQ(result.last_line, "4 passed, 1 failed, 1 skipped");
}

TEST_F(BrokenSeed, CutGraphFileIsSaidToBeCut) {
    const fs::path graph = folder_ / "graphs" / "seed-16.json";
    std::string text = test_support::read_text(graph);
    text.resize(100);
    write(graph, text);
    const Conformed result = conform();
    EXPECT_THAT(result.out, HasSubstr(session0().string() + ": line 5: $.graph: graphs/seed-16.json is cut short (100 bytes, "
                                      "and its JSON does not end)\n"));
    EXPECT_EQ(result.last_line, "5 passed, 1 failed");
}

TEST_F(BrokenSeed, NodeCountThatDoesNotMatchTheGraph) {
    replace_in_session0(R"({"call": 0, "function": "ggml_gallocr_reserve_n", "graph": "graphs/seed.json", "nodes": 1)",
                        R"({"call": 0, "function": "ggml_gallocr_reserve_n", "graph": "graphs/seed.json", "nodes": 3)");
    const Conformed result = conform();
    EXPECT_THAT(result.out, HasSubstr(session0().string() + ": line 2: $.nodes: the call planned 3 nodes, graphs/seed.json has 1 node\n"));
    EXPECT_EQ(result.last_line, "2 passed, 1 failed, 3 skipped");
}

TEST_F(BrokenSeed, UnknownAllocSizeIsNotReplayable) {
    replace_in_session0(R"("replanned": false, "alloc_size": ["nbytes"], "buffer_sizes": [64], "chunk_sizes": [[64]], "tensors": {"a": {"buffer": 0, "chunk": 0, "offset": 0}, "b": {"buffer": 0, "chunk": 0, "offset": 32}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}}}
{"call": 2)",
                        R"("replanned": false, "alloc_size": ["unknown"], "alloc_size_example": {"tensor": "a", "nbytes": 4, "alloc_size": 8}, "buffer_sizes": [64], "chunk_sizes": [[64]], "tensors": {"a": {"buffer": 0, "chunk": 0, "offset": 0}, "b": {"buffer": 0, "chunk": 0, "offset": 32}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}}}
{"call": 2)");
    const Conformed result = conform();
    // The example as the session wrote it (its fields in the file's order, without blanks).
    EXPECT_THAT(result.out, HasSubstr("call 1 (ggml_gallocr_alloc_graph, graphs/seed.json; buffer 0: 64 B): not replayable: buffer type 'CPU' "
                                      "sized tensors by a rule the format cannot name ({\"tensor\":\"a\",\"nbytes\":4,\"alloc_size\":8})\n"));
    EXPECT_EQ(result.last_line, "3 passed, 0 failed, 3 skipped");
}

TEST_F(BrokenSeed, AVersionNothingCanBeInferredFromIsAUsageErrorUnlessOneIsChosen) {
    // ggml 0.1.0 was never a ggml version (semantic versions began with 0.9.0, and the capture
    // of this session recorded no functions): which allocator ran is the user's to say, so
    // conform stops before replaying anything, exit 2, and says how.
    replace_in_session0(R"("ggml_version": "0.21.0")", R"("ggml_version": "0.1.0")");
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {folder_.string()}}, out, err), 2);
    EXPECT_EQ(err.str(), session0().string() + ": ggml reports version 0.1.0, older than any ggml version there was; "
                                               "pass --ggml-version (" + std::string(known_profile_names()) + ")\n");
    // Chosen by hand, every call replays (the seed graphs have no op whose rule differs).
    EXPECT_EQ(conform("ggml-d99724f2").last_line, "6 passed, 0 failed");
}

TEST(CaptureConform, ClampInPlaceMakesTheVersionMatter) {
    // tiny-olmo's graphs clamp q, k and v; under llama.cpp 0c1e570 each CLAMP takes its parent's
    // memory, under d99724f2 it gets new memory, so the places the program got cannot all be
    // reproduced by the older rule (its 4 alloc_graph calls place every tensor).
    const std::string olmo = (kCaptures / "tiny-olmo").string();
    std::ostringstream by_version, older, err;
    EXPECT_EQ(cli::conform({.paths = {olmo}}, by_version, err), 0);
    EXPECT_THAT(by_version.str(), ::testing::EndsWith("7 passed, 0 failed\n"));
    EXPECT_EQ(cli::conform({.paths = {olmo}, .ggml_version = "ggml-d99724f2"}, older, err), 1);
    EXPECT_THAT(older.str(), HasSubstr("call 3 (ggml_gallocr_alloc_graph"));
}

TEST(CaptureConform, GoldenCorpusAndCaptureTogether) {
    const fs::path golden = test_support::golden_dir();
    if (!fs::is_directory(golden)) {
        GTEST_SKIP() << golden << " not found";
    }
    std::ostringstream out, err;
    EXPECT_EQ(cli::conform({.paths = {golden.string(), kSeed.string()}}, out, err), 0);
    EXPECT_THAT(out.str(), ::testing::EndsWith("206 passed, 0 failed\n"));
}
} // namespace
} // namespace gallocsim
