// `gallocsim capture` and libgallocsim_capture.so on real ggml programs (the probes beside
// this file, run against the pip-built ggml of build/upstream). Skipped, with the reason,
// when the capture library or those libraries are not built.
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using gallocsim::test_support::read_text;

// Without the capture library or the pip-built ggml every test is skipped, with the reason.
#ifdef GALLOCSIM_CAPTURE_SKIP
#define REQUIRE_CAPTURE() GTEST_SKIP() << GALLOCSIM_CAPTURE_SKIP
#define GALLOCSIM_EXE ""
#define GALLOCSIM_CAPTURE_LIBRARY ""
#define GALLOCSIM_CAPTURE_PROBE ""
#define GALLOCSIM_CAPTURE_PROBE_DLOPEN ""
#define GALLOCSIM_GGML_CPU_LIBRARY ""
#else
#define REQUIRE_CAPTURE() (void)0
#endif

struct ProgramRun {
    int exit_code = -1;
    std::string out, err;
};

// Runs a shell command line, keeping its output and exit code.
ProgramRun shell(const std::string& command, const fs::path& scratch) {
    const int status = std::system((command + " >" + (scratch / "stdout").string() + " 2>" + (scratch / "stderr").string()).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(scratch / "stdout"), read_text(scratch / "stderr")};
}

std::vector<json> session_lines(const fs::path& file) {
    std::vector<json> lines;
    std::ifstream in(file);
    for (std::string text; std::getline(in, text);) {
        lines.push_back(json::parse(text));
    }
    return lines;
}

class CaptureTest : public ::testing::Test {
protected:
    void SetUp() override {
        scratch_ = fs::temp_directory_path() / ("gallocsim-capture-test-" + std::to_string(::getpid()) + "-" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(scratch_);
        fs::create_directories(scratch_);
    }
    void TearDown() override { fs::remove_all(scratch_); }

    ProgramRun capture(const std::string& program_and_args) {
        return shell(std::string(GALLOCSIM_EXE) + " capture --out " + dir().string() + " -- " + program_and_args, scratch_);
    }
    static std::string probe(const std::string& args) { return std::string(GALLOCSIM_CAPTURE_PROBE) + " " + args; }
    fs::path dir() const { return scratch_ / "capture"; }
    json graph_of(const json& call) const { return json::parse(read_text(dir() / call.at("graph").get<std::string>())); }

    fs::path scratch_;
};

// The seed graph: a, b (1 f32 each, inputs) and mul = a*b (output) on the CPU buffer type,
// whose alignment is 32 (TENSOR_ALIGNMENT in ggml-impl.h). Inputs are placed first: a at 0,
// b at 32 (4 bytes rounded up to the alignment); MUL may run in place and a is not needed
// after it, so mul takes a's memory at 0. The buffer spans 32 + 32 = 64 bytes, one chunk.
TEST_F(CaptureTest, SeedGraphIsRecordedWithTheProgramsPlaces) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("seed"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("captured 1 allocator"), std::string::npos) << run.out;

    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_EQ(lines.size(), 3u);  // the allocator, reserve, alloc_graph
    const json& header = lines[0];
    EXPECT_EQ(header["format"], "ggml-session/1");
    EXPECT_EQ(header["allocator"], 0);
    EXPECT_EQ(header["created_by"], "ggml_gallocr_new");
    EXPECT_TRUE(header["ggml_version"].is_string());  // the pip-built ggml has ggml_version()
    EXPECT_EQ(header["buffer_types"], json::parse(R"([{"name": "CPU", "alignment": 32, "max_size": null}])"));
    EXPECT_EQ(header["buffers"], json::parse(R"(["CPU"])"));

    const json& reserve = lines[1];
    EXPECT_EQ(reserve["call"], 0);
    EXPECT_EQ(reserve["function"], "ggml_gallocr_reserve");
    EXPECT_EQ(reserve["nodes"], 1);
    EXPECT_EQ(reserve["leafs"], 2);
    EXPECT_EQ(reserve["returned"], true);
    EXPECT_EQ(reserve["alloc_size"], json::parse(R"(["nbytes"])"));
    EXPECT_EQ(reserve["buffer_sizes"], json::parse("[64]"));
    EXPECT_EQ(reserve["chunk_sizes"], json::parse("[[64]]"));
    EXPECT_FALSE(reserve.contains("tensors"));

    const json& alloc = lines[2];
    EXPECT_EQ(alloc["call"], 1);
    EXPECT_EQ(alloc["function"], "ggml_gallocr_alloc_graph");
    EXPECT_EQ(alloc["replanned"], false);  // the reserved plan fits
    EXPECT_EQ(alloc["graph"], reserve["graph"]);  // the same graph, written once
    EXPECT_EQ(alloc["chunk_sizes"], json::parse("[[64]]"));
    EXPECT_EQ(alloc["tensors"], json::parse(R"({"a": {"buffer": 0, "chunk": 0, "offset": 0},
        "b": {"buffer": 0, "chunk": 0, "offset": 32}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}})"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir() / "graphs"), fs::directory_iterator{}), 1);

    // The graph file loads like any other, and planning it afresh gives the program's places.
    gallocsim::GraphFile file = gallocsim::load_graph_file(dir() / alloc["graph"].get<std::string>());
    ASSERT_TRUE(file.captured.has_value());
    EXPECT_EQ(file.captured->session, "session-0.jsonl");
    EXPECT_EQ(file.graph.leafs.size(), 2u);
    EXPECT_EQ(file.graph.nodes.size(), 1u);
    const gallocsim::PlanRun plan = gallocsim::run_plan(file);
    EXPECT_EQ(plan.plan.buffer_sizes, std::vector<std::size_t>{64});
}

// Names are made unique in the order tensors are listed (leafs x, x, then the product and
// the copy): the second x becomes x#2, the unnamed product "unnamed", " (copy)" loses its
// leading space; each changed name keeps the original.
TEST_F(CaptureTest, RepeatedAndEmptyNamesBecomeUniqueKeepingTheOriginal) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("names"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_EQ(lines.size(), 3u);
    const json graph = graph_of(lines[2]);
    std::map<std::string, json> originals;
    for (const json& tensor : graph["tensors"]) {
        originals[tensor["name"]] = tensor.value("original_name", json());
    }
    const std::map<std::string, json> expected{
        {"x", json()}, {"x#2", "x"}, {"unnamed", ""}, {"(copy)", " (copy)"}};
    EXPECT_EQ(originals, expected);
    EXPECT_EQ(graph["leafs"], json::parse(R"(["x", "x#2"])"));
    EXPECT_EQ(graph["nodes"], json::parse(R"j(["unnamed", "(copy)"])j"));
    EXPECT_NO_THROW(gallocsim::load_graph_file(dir() / lines[2]["graph"].get<std::string>()));
}

// ggml_gallocr_new calls ggml_gallocr_new_n, and an alloc_graph with nothing reserved calls
// ggml_gallocr_reserve (which calls _reserve_n): one allocator, one line per call the program
// made, the first alloc_graph marked re-planned. The second graph has the first's shape, so
// the plan fits and it is not re-planned.
TEST_F(CaptureTest, NestedCallsAreRecordedOnceAsTheProgramMadeThem) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("replan"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_FALSE(fs::exists(dir() / "session-1.jsonl"));
    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0]["created_by"], "ggml_gallocr_new");
    EXPECT_EQ(lines[1]["function"], "ggml_gallocr_alloc_graph");
    EXPECT_EQ(lines[1]["replanned"], true);
    EXPECT_EQ(lines[1]["tensors"]["b"]["offset"], 32);
    EXPECT_EQ(lines[2]["function"], "ggml_gallocr_alloc_graph");
    EXPECT_EQ(lines[2]["replanned"], false);
    EXPECT_EQ(lines[2]["call"], 1);
    EXPECT_NE(run.out.find("2 ggml_gallocr_alloc_graph (1 re-planned)"), std::string::npos) << run.out;
}

// Two buffer ids of one type share one buffer, reported under id 0. The seed graph (1 f32
// per tensor) needs 64 bytes, as above. The large one (16 f32 = 64 bytes per tensor) needs
// a at 0, b at 64, mul reusing a: 128. reserve_n_size reports 128 for both ids (each id
// gives its allocator's total) and, as the 64-byte chunk is too small and it allocates
// nothing, frees it: no buffer, no chunk after it. reserve_n then allocates one 128-byte chunk.
TEST_F(CaptureTest, SharedBufferTypesAndReserveNSize) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("measure"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0]["created_by"], "ggml_gallocr_new_n");
    EXPECT_EQ(lines[0]["buffers"], json::parse(R"(["CPU", "CPU"])"));
    EXPECT_EQ(lines[0]["buffer_types"].size(), 1u);

    EXPECT_EQ(lines[1]["function"], "ggml_gallocr_reserve_n");
    EXPECT_EQ(lines[1]["buffer_sizes"], json::parse("[64, 0]"));
    EXPECT_EQ(lines[1]["chunk_sizes"], json::parse("[[64], []]"));
    EXPECT_EQ(graph_of(lines[1])["node_buffer_ids"], json::parse("[1]"));
    EXPECT_EQ(graph_of(lines[1])["leaf_buffer_ids"], json::parse("[0, 1]"));

    EXPECT_EQ(lines[2]["function"], "ggml_gallocr_reserve_n_size");
    EXPECT_EQ(lines[2]["returned"], nullptr);
    EXPECT_EQ(lines[2]["sizes"], json::parse("[128, 128]"));
    EXPECT_EQ(lines[2]["buffer_sizes"], json::parse("[0, 0]"));
    EXPECT_EQ(lines[2]["chunk_sizes"], json::parse("[[], []]"));

    EXPECT_EQ(lines[3]["buffer_sizes"], json::parse("[128, 0]"));
    EXPECT_EQ(lines[3]["chunk_sizes"], json::parse("[[128], []]"));
    EXPECT_EQ(lines[4]["function"], "ggml_gallocr_alloc_graph");
    EXPECT_EQ(lines[4]["tensors"], json::parse(R"({"a": {"buffer": 0, "chunk": 0, "offset": 0},
        "b": {"buffer": 0, "chunk": 0, "offset": 64}, "mul": {"buffer": 0, "chunk": 0, "offset": 0}})"));
}

// Four threads, one allocator each, 25 reserve + alloc_graph each: four whole sessions, every
// line readable, calls numbered in order, every plan the seed's.
TEST_F(CaptureTest, CallsFromSeveralThreadsMakeWholeSessions) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("threads"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (int session = 0; session < 4; ++session) {
        const auto lines = session_lines(dir() / ("session-" + std::to_string(session) + ".jsonl"));
        ASSERT_EQ(lines.size(), 51u) << "session " << session;
        for (std::size_t call = 1; call < lines.size(); ++call) {
            EXPECT_EQ(lines[call]["call"], call - 1);
            EXPECT_EQ(lines[call]["buffer_sizes"], json::parse("[64]"));
            if (lines[call]["function"] == "ggml_gallocr_alloc_graph") {
                EXPECT_EQ(lines[call]["tensors"]["b"]["offset"], 32);
            }
        }
    }
    EXPECT_FALSE(fs::exists(dir() / "session-4.jsonl"));
}

// The alloc-size rule is asked of each buffer type, never assumed: PADDED answers 288 for
// w (18 bytes of q4_0, plus 480 missing row elements = 15 blocks of 18 bytes: ggml-cuda's
// rule); ODD answers nbytes + 100, which no named rule gives: x (32 f32 = 128 bytes, the
// first tensor ODD holds) is the example, 228.
TEST_F(CaptureTest, AllocSizeRulesAreDetectedNotGuessed) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("rules"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["buffers"], json::parse(R"(["PADDED", "ODD"])"));
    // PADDED follows ggml-cuda's rule; ODD adds 100 bytes to every tensor, a rule the format
    // cannot name, so each of its tensors carries the size ODD gave it: x (32 f32, 128 bytes)
    // 228, y = w·x (1 f32, 4 bytes) 104.
    EXPECT_EQ(lines[1]["alloc_size"], json::parse(R"(["cuda", "recorded"])"));
    EXPECT_FALSE(lines[1].contains("alloc_size_example"));
    const json graph = graph_of(lines[1]);
    EXPECT_EQ(graph["buffer_types"], json::parse(R"([{"name": "PADDED", "alignment": 32, "alloc_size": "cuda"},
                                                     {"name": "ODD", "alignment": 32}])"));
    for (const json& tensor : graph["tensors"]) {
        const std::string name = tensor["name"];
        const json expected = name == "x" ? json(228) : name == "y" ? json(104) : json();
        EXPECT_EQ(tensor.value("alloc_size", json()), expected) << name;
    }
    // Replayed with the recorded sizes, the call reproduces every size the program got.
    const ProgramRun conform = shell(std::string(GALLOCSIM_EXE) + " conform " + dir().string(), scratch_);
    EXPECT_EQ(conform.exit_code, 0) << conform.out << conform.err;
    EXPECT_NE(conform.out.find("1 passed, 0 failed"), std::string::npos) << conform.out;
}

// ggml loaded with RTLD_LOCAL (as Python's ctypes loads it): RTLD_NEXT cannot see it, and the
// capture must find it among the loaded objects. ggml_backend_sched's first alloc_graph on a
// new allocator plans by itself.
TEST_F(CaptureTest, FindsGgmlLoadedWithRtldLocal) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(std::string(GALLOCSIM_CAPTURE_PROBE_DLOPEN) + " " + GALLOCSIM_GGML_CPU_LIBRARY);
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0]["created_by"], "ggml_gallocr_new_n");
    const json& alloc = lines.back();
    EXPECT_EQ(alloc["function"], "ggml_gallocr_alloc_graph");
    EXPECT_EQ(alloc["returned"], true);
    EXPECT_EQ(alloc["tensors"]["b"]["offset"], 32);
    EXPECT_EQ(alloc["tensors"]["mul"]["offset"], 0);
}

TEST_F(CaptureTest, ProgramThatFailsBeforePlanningIsSaidToFailAndKeepsItsExitCode) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("none 3"));
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_NE(run.out.find("failed before any graph allocator call was captured: it loaded ggml ("), std::string::npos)
        << run.out;
    EXPECT_EQ(run.out.find("statically"), std::string::npos) << "a failing program is not said to be linked statically:\n"
                                                              << run.out;
    EXPECT_FALSE(fs::exists(dir() / "session-0.jsonl"));
}

// A program that runs well but plans nothing through the ggml it loaded: the capture says
// which ggml that was and what could explain it, and the program's exit code stands.
TEST_F(CaptureTest, ProgramThatNeverPlansIsToldWhatCouldExplainIt) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(probe("none 0"));
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("made no graph allocator call the capture saw: it loaded ggml ("), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("linked statically"), std::string::npos) << run.out;
}

// Right after the README's first command no capture library is built. A gallocsim in a build
// tree's simulator/ folder without the library beside it (a copy) says so once per folder it
// looked in (its own folder is also "../simulator" from it: once named twice) and which
// command to run, exit 2, and runs nothing.
TEST_F(CaptureTest, WithoutTheLibraryItSaysOnceWhatToRunFirst) {
    const fs::path copy = scratch_ / "tree" / "simulator" / "gallocsim";
    fs::create_directories(copy.parent_path());
    fs::copy_file(GALLOCSIM_EXE, copy);
    const ProgramRun run = shell(copy.string() + " capture --out " + dir().string() + " -- /bin/true", scratch_);
    EXPECT_EQ(run.exit_code, 2);
    const std::string folder = (scratch_ / "tree" / "simulator").string();
    const std::string& said = run.err;
    EXPECT_NE(said.find("libgallocsim_capture.so was not built (looked in " + folder + ", "), std::string::npos) << said;
    EXPECT_EQ(said.find(folder, said.find(folder) + folder.size()), std::string::npos) << said;  // once
    EXPECT_NE(said.find("run that, then `cmake --preset default && cmake --build --preset default` again"), std::string::npos)
        << said;
    EXPECT_FALSE(fs::exists(dir()));
}

// A program without ggml at all (a shell command): no ggml was ever loaded, and nothing else
// (the helper processes a shell starts write nothing either).
TEST_F(CaptureTest, ProgramWithoutGgmlIsSaidToHaveLoadedNone) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture("/bin/sh -c true");
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("it never loaded a ggml library that defines the graph allocator"), std::string::npos) << run.out;
    EXPECT_FALSE(fs::exists(dir() / "capture-log.jsonl"));
}

// Calls looked up with dlsym on ggml's own handle (as Python's ctypes looks them up) reach the
// capture: the session holds exactly the program's ggml_gallocr_new, reserve and alloc_graph,
// none of ggml's nested new_n and reserve_n, and replays.
TEST_F(CaptureTest, CallsLookedUpWithDlsymAreTheProgramsOwn) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(std::string(GALLOCSIM_CAPTURE_PROBE_DLOPEN) + " " + GALLOCSIM_GGML_CPU_LIBRARY + " direct");
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    const auto lines = session_lines(dir() / "session-0.jsonl");
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0]["created_by"], "ggml_gallocr_new");
    EXPECT_EQ(lines[1]["function"], "ggml_gallocr_reserve");
    EXPECT_EQ(lines[2]["function"], "ggml_gallocr_alloc_graph");
    EXPECT_EQ(lines[2]["replanned"], false);
    const ProgramRun conform = shell(std::string(GALLOCSIM_EXE) + " conform " + dir().string(), scratch_);
    EXPECT_EQ(conform.exit_code, 0) << conform.out;
    EXPECT_NE(conform.out.find("2 passed, 0 failed"), std::string::npos) << conform.out;
}

// A call the capture cannot see (alloc_graph looked up past it, with libc's own dlsym) on an
// allocator never reserved: alloc_graph plans by itself, calling ggml_gallocr_reserve from
// inside. That reserve is ggml's, not the program's: it is not written as a call; the capture
// says it is partial, exits 1 although the program succeeded, and conform fails on it.
TEST_F(CaptureTest, ACallTheCaptureCannotSeeMakesItPartialNotWrong) {
    REQUIRE_CAPTURE();
    const ProgramRun run = capture(std::string(GALLOCSIM_CAPTURE_PROBE_DLOPEN) + " " + GALLOCSIM_GGML_CPU_LIBRARY + " hidden");
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("partial: ggml_gallocr_reserve was called from inside ggml_gallocr_alloc_graph"),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("the capture is partial"), std::string::npos) << run.out;
    EXPECT_EQ(session_lines(dir() / "session-0.jsonl").size(), 1u);  // the allocator, and no call
    const ProgramRun conform = shell(std::string(GALLOCSIM_EXE) + " conform " + dir().string(), scratch_);
    EXPECT_EQ(conform.exit_code, 1);
    EXPECT_NE(conform.out.find("partial: ggml_gallocr_reserve was called from inside ggml_gallocr_alloc_graph"),
              std::string::npos)
        << conform.out;
}

// The library alone, told to write where nothing can be created (under a file): one line on
// stderr, and the program runs on with its own exit code.
TEST_F(CaptureTest, UnwritableFolderStopsCaptureWithOneLineAndChangesNothing) {
    REQUIRE_CAPTURE();
    const ProgramRun run = shell("LD_PRELOAD=" + std::string(GALLOCSIM_CAPTURE_LIBRARY) +
                              " GALLOCSIM_CAPTURE_DIR=/dev/null/capture " + probe("seed 5"),
                          scratch_);
    EXPECT_EQ(run.exit_code, 5);
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_TRUE(run.err.starts_with("gallocsim capture: cannot create /dev/null/capture")) << run.err;
}

TEST_F(CaptureTest, CommandLineErrorsAreClearAndNonZero) {
    REQUIRE_CAPTURE();
    const ProgramRun unwritable = shell(std::string(GALLOCSIM_EXE) + " capture --out /dev/null/capture -- " + probe("seed"), scratch_);
    EXPECT_EQ(unwritable.exit_code, 2);
    EXPECT_NE(unwritable.err.find("cannot create /dev/null/capture"), std::string::npos) << unwritable.err;

    const ProgramRun missing = capture("/no/such/program");
    EXPECT_EQ(missing.exit_code, 127);
    EXPECT_NE(missing.err.find("cannot run /no/such/program: No such file or directory"), std::string::npos) << missing.err;

    ASSERT_EQ(capture(probe("seed")).exit_code, 0);
    const ProgramRun again = capture(probe("seed"));  // the folder now holds a capture
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_NE(again.err.find("already holds a capture"), std::string::npos) << again.err;
}

} // namespace
