// Captures (ggml-session/1): reading sessions and replaying them call by call on one
// allocator. The seed capture's values are reasoned in tests/data/captures/seed/README.md
// (and below where a test uses them). `gallocsim conform` on captures: capture_conform_test.cpp.

#include "simulator/trace/capture_replay.hpp"
#include "simulator/model/capture_session.hpp"
#include "tests/test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const fs::path kCaptures = fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures";
const fs::path kSeed = kCaptures / "seed";


TEST(CaptureSession, ReadsTheSeedHeaderAndCalls) {
    const Capture capture = load_capture(kSeed);
    ASSERT_EQ(capture.sessions.size(), 2u);
    EXPECT_TRUE(capture.errors.empty());
    const CaptureSession& session = capture.sessions[0];
    EXPECT_EQ(session.allocator, 0);
    EXPECT_EQ(session.created_by, "ggml_gallocr_new");
    EXPECT_EQ(session.ggml_version, "0.21.0");  // the seed capture is written as ggml 0.21.0 would record it
    ASSERT_EQ(session.buffer_types.size(), 1u);
    EXPECT_EQ(session.buffer_types[0].name, "CPU");
    EXPECT_EQ(session.buffer_types[0].alignment, 32u);
    EXPECT_EQ(session.buffer_types[0].alloc_size, AllocSizeRule::nbytes);
    ASSERT_EQ(session.calls.size(), 4u);
    const CapturedCall& reserve = session.calls[0];
    EXPECT_EQ(reserve.function, CapturedFunction::reserve_n);
    EXPECT_EQ(reserve.line, 2);
    EXPECT_EQ(reserve.nodes, 1u);
    EXPECT_EQ(reserve.leafs, 2u);
    EXPECT_EQ(reserve.returned, true);
    EXPECT_FALSE(reserve.replanned.has_value());
    EXPECT_THAT(reserve.buffer_sizes, ElementsAre(64u));
    const CapturedCall& alloc = session.calls[1];
    EXPECT_EQ(alloc.function, CapturedFunction::alloc_graph);
    EXPECT_EQ(alloc.replanned, false);
    ASSERT_TRUE(alloc.tensors.has_value());
    EXPECT_EQ(alloc.tensors->size(), 3u);
    EXPECT_TRUE(session.truncated.empty());
    EXPECT_EQ(capture.sessions[1].calls[0].sizes, std::vector<std::size_t>{64});
    EXPECT_FALSE(capture.sessions[1].calls[0].returned.has_value());
}

TEST(CaptureSession, CaptureFoldersAreTheOnesWithSessions) {
    EXPECT_TRUE(is_capture_dir(kSeed));
    EXPECT_FALSE(is_capture_dir(kSeed / "graphs"));
    EXPECT_FALSE(is_capture_dir(kSeed / "session-0.jsonl"));
}

TEST(CaptureSession, CudaWhereAnyCallSawIt) {
    // A call whose tensors all have ggml_nbytes cannot tell CUDA from CPU; one that saw the
    // padding decides.
    const std::string text =
        R"({"format": "ggml-session/1", "allocator": 0, "created_by": "ggml_gallocr_new", "buffer_types": [{"name": "CUDA0", "alignment": 128}]})"
        "\n"
        R"({"call": 0, "function": "ggml_gallocr_reserve", "graph": "g.json", "nodes": 1, "leafs": 0, "returned": true, "alloc_size": ["nbytes"], "buffer_sizes": [0], "chunk_sizes": [[]]})"
        "\n"
        R"({"call": 1, "function": "ggml_gallocr_reserve", "graph": "g.json", "nodes": 1, "leafs": 0, "returned": true, "alloc_size": ["cuda"], "buffer_sizes": [0], "chunk_sizes": [[]]})"
        "\n";
    const CaptureSession session = parse_capture_session(text, "s.jsonl", ".");
    EXPECT_EQ(session.buffer_types[0].alloc_size, AllocSizeRule::cuda);
}

TEST(CaptureSession, ErrorsNameFileLinePathAndProblem) {
    const std::string header =
        R"({"format": "ggml-session/1", "allocator": 0, "created_by": "ggml_gallocr_new", "buffer_types": [{"name": "CPU", "alignment": 32}]})"
        "\n";
    auto error_of = [&](const std::string& call) {
        try {
            parse_capture_session(header + call + "\n{\"call\": 1}\n", "s.jsonl", ".");
        } catch (const GraphFileError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of(R"({"call": 0, "function": "ggml_gallocr_reserve", "graph": "g.json", "nodes": 1, "leafs": 0, "returned": true, "alloc_size": ["nbytes"], "buffer_sizes": [0, 0], "chunk_sizes": [[]]})"),
              "s.jsonl: line 2: $.buffer_sizes: has 2 entries, the allocator has 1 buffer id");
    EXPECT_EQ(error_of(R"({"call": 0, "function": "ggml_gallocr_free", "graph": "g.json"})"),
              "s.jsonl: line 2: $.function: unknown function \"ggml_gallocr_free\" (expected ggml_gallocr_reserve, "
              "_reserve_n, _reserve_n_size or _alloc_graph)");
    EXPECT_EQ(error_of(R"({"call": 0, "function": "ggml_gallocr_reserve", "graph": "../g.json"})"),
              "s.jsonl: line 2: $.graph: must be a path inside the capture folder, got \"../g.json\"");
    // The header's buffer types are checked as a graph file's, with the same paths.
    try {
        parse_capture_session(R"({"format": "ggml-session/1", "allocator": 0, "created_by": "ggml_gallocr_new", "buffer_types": [{"name": "CPU", "alignment": 24}]})",
                              "s.jsonl", ".");
        FAIL() << "no error";
    } catch (const GraphFileError& error) {
        EXPECT_STREQ(error.what(), "s.jsonl: line 1: $.buffer_types[0].alignment: must be a power of two, got 24");
    }
}

TEST(CaptureReplay, SeedReproducesEveryCall) {
    const Capture capture = load_capture(kSeed);
    const auto replays = replay_session(capture.sessions[0], baseline_profile());
    ASSERT_EQ(replays.size(), 4u);
    for (const CallReplay& replay : replays) {
        EXPECT_EQ(replay.outcome, CallOutcome::passed) << replay.index << ": " << replay.error;
        EXPECT_TRUE(replay.differences.empty());
    }
    // Calls 1 and 2 keep call 0's plan; call 3's graph outgrows it and re-plans.
    EXPECT_TRUE(replays[0].replanned);
    EXPECT_FALSE(replays[1].replanned);
    EXPECT_EQ(replays[1].plan_call, 0u);
    EXPECT_FALSE(replays[2].replanned);
    EXPECT_EQ(replays[2].plan_call, 0u);
    EXPECT_TRUE(replays[3].replanned);
    EXPECT_EQ(replays[3].plan_call, 3u);
}

TEST(CaptureReplay, AllocatorIsBuiltFromTheSessionHeader) {
    const Capture capture = load_capture(kSeed);
    const SessionAllocator made = make_session_allocator(capture.sessions[0], baseline_profile());
    ASSERT_EQ(made.allocator->buffer_count(), 1);
    EXPECT_EQ(made.allocator->buffer_type(0).name(), "CPU");
    EXPECT_EQ(made.allocator->buffer_type(0).alignment(), 32u);
}

TEST(CaptureReplay, TraceOfAnAllocGraphThatKeptThePlanShowsTheReserveFirst) {
    const Capture capture = load_capture(kSeed);
    const CallTrace traced = trace_call(capture.sessions[0], 1, baseline_profile());
    EXPECT_EQ(traced.plan_call, 0u);
    EXPECT_EQ(traced.note, "alloc_graph reused the plan of call 0 (reserve_n): its planning, then this call's placement");
    // The reserve's planning (a plan started, leafs allocated), then alloc_graph's placement.
    ASSERT_FALSE(traced.trace.events.empty());
    EXPECT_EQ(kind_of(traced.trace.events.front()), EventKind::plan_started);
    EXPECT_EQ(kind_of(traced.trace.events.back()), EventKind::tensor_initialised);
    const auto plans = std::ranges::count_if(traced.trace.events, [](const TraceEvent& e) {
        return kind_of(e) == EventKind::plan_started;
    });
    EXPECT_EQ(plans, 1);  // alloc_graph did not plan again
    EXPECT_TRUE(traced.trace.error.empty());
}

TEST(CaptureReplay, TraceOfAReplanningAllocGraphIsItsOwn) {
    const Capture capture = load_capture(kSeed);
    const CallTrace traced = trace_call(capture.sessions[0], 3, baseline_profile());
    EXPECT_EQ(traced.plan_call, 3u);
    EXPECT_EQ(traced.note, "alloc_graph re-planned the graph");
    EXPECT_EQ(traced.file.name, "seed-mul-16");
}

TEST(CaptureReplay, KeptPlanOfAnotherGraphIsSaidSo) {
    const Capture capture = load_capture(kSeed);
    const CallTrace traced = trace_call(capture.sessions[0], 2, baseline_profile());
    EXPECT_EQ(traced.plan_call, 0u);
    EXPECT_THAT(traced.note, HasSubstr("reused the plan of call 0 (reserve_n), made on another graph (graphs/seed.json)"));
    EXPECT_EQ(traced.file.name, "seed-mul");
}

// A call's trace carries the rules it was replayed with. The chunked Vulkan capture's two
// buffer types say max_size 65536 (GGML_VK_FORCE_MAX_ALLOCATION_SIZE in its README): under
// the newest rules that is each chunk's limit; the seed era had no chunks, so there its
// trace has no limit (and its explanations read that era's in-place set).
TEST(CaptureReplay, ATracedCallCarriesTheProfileItWasReplayedWith) {
    const Capture capture = load_capture(kCaptures / "vulkan-llama-chunked");
    const CallTrace newest = trace_call(capture.sessions[0], 0, newest_profile());
    EXPECT_EQ(newest.trace.profile, &newest_profile());
    ASSERT_FALSE(newest.trace.buffers.empty());
    for (const TraceBuffer& buffer : newest.trace.buffers) {
        EXPECT_EQ(buffer.max_size, 65536u) << buffer.type_name;
    }
    const CallTrace seed_era = trace_call(capture.sessions[0], 0, seed_era_profile());
    EXPECT_EQ(seed_era.trace.profile, &seed_era_profile());
    for (const TraceBuffer& buffer : seed_era.trace.buffers) {
        EXPECT_EQ(buffer.max_size, SIZE_MAX) << buffer.type_name;
    }
}

TEST(CaptureReplay, ProgramVersionPicksTheProfile) {
    // The seed capture says ggml 0.21.0, the last ggml release, whose ggml-alloc.c is
    // d99724f2's (0a2b6b20's state); a llama.cpp build reporting it may already have CLAMP in
    // place, which the note says. The llama capture was made by llama-cpp-python 0.3.36,
    // whose ggml reports 0.25.3 (llama.cpp 0c1e570).
    const Capture seed = load_capture(kSeed);
    const VersionMatch seed_match = session_profile(seed.sessions[0]);
    ASSERT_NE(seed_match.profile, nullptr);
    EXPECT_EQ(seed_match.profile->name, "ggml-0a2b6b20");
    EXPECT_THAT(seed_match.note, HasSubstr("llama.cpp-0c1e570"));
    const Capture llama = load_capture(kCaptures / "tiny-llama");
    const VersionMatch llama_match = session_profile(llama.sessions[0]);
    ASSERT_NE(llama_match.profile, nullptr);
    EXPECT_EQ(llama_match.profile->name, "llama.cpp-0c1e570");
    EXPECT_TRUE(llama_match.exact);
}


// Every capture kept under tests/data/captures (hand-written, and sessions captured from real
// programs) replays with every call reproduced.
class EveryCapture : public ::testing::TestWithParam<fs::path> {};

std::vector<fs::path> capture_folders() {
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(kCaptures)) {
        if (is_capture_dir(entry.path())) {
            folders.push_back(entry.path());
        }
    }
    std::ranges::sort(folders);
    return folders;
}

TEST_P(EveryCapture, ReplaysEveryCall) {
    const Capture capture = load_capture(GetParam());
    EXPECT_TRUE(capture.errors.empty()) << capture.errors.front();
    ASSERT_FALSE(capture.sessions.empty());
    for (const CaptureSession& session : capture.sessions) {
        EXPECT_TRUE(session.truncated.empty()) << session.label() << ": " << session.truncated;
        // The version the program reported picks the allocator, as `conform` does.
        const AllocatorProfile* profile = session_profile(session).profile;
        ASSERT_NE(profile, nullptr) << session.label() << ": no profile for its ggml version";
        for (const CallReplay& replay : replay_session(session, *profile)) {
            EXPECT_EQ(replay.outcome, CallOutcome::passed)
                << session.label() << " call " << replay.index << ": " << replay.error
                << (replay.differences.empty() ? "" : "\n  " + replay.differences.front());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Captures, EveryCapture, ::testing::ValuesIn(capture_folders()),
                         [](const ::testing::TestParamInfo<fs::path>& param) {
                             std::string name = param.param.filename().string();
                             std::ranges::replace_if(name, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                             return name;
                         });

} // namespace
} // namespace gallocsim
