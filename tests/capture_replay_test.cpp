// Captures (ggml-session/1): reading sessions and replaying them call by call on one
// allocator. The seed capture's values are reasoned in tests/data/captures/seed/README.md
// (and below where a test uses them). `gallocsim conform` on captures: capture_conform_test.cpp.

#include "simulator/trace/capture_replay.hpp"
#include "simulator/model/capture_session.hpp"
#include "tests/test_support.hpp"

#include <nlohmann/json.hpp>

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
    // A line that is no JSON is worded as a graph file's invalid JSON (json_input's
    // json_error_text), never with nlohmann's "[json.exception.parse_error.101]": in
    // {"call": nope} the literal goes wrong at its second letter, the 11th character, and the
    // line is the file's line 2, not the "line 1" of the one-line text nlohmann parsed. What
    // follows the column is nlohmann's own wording, kept whole (its "last read" runs from the
    // key it read before the bad literal).
    EXPECT_EQ(error_of(R"({"call": nope})"),
              "s.jsonl: line 2: not JSON: parse error at column 11: syntax error while parsing value - invalid literal; "
              "last read: '\"call\": no'");
    // Every size of a session is read as a graph file's numbers are: 2^64 is said to be too large.
    EXPECT_EQ(error_of(R"({"call": 0, "function": "ggml_gallocr_reserve", "graph": "g.json", "nodes": 1, "leafs": 0, "returned": true, "alloc_size": ["nbytes"], "buffer_sizes": [18446744073709551616], "chunk_sizes": [[]]})"),
              "s.jsonl: line 2: $.buffer_sizes[0]: must be at most 2^64 - 1 (18446744073709551615), got a number above it");
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

// Seed call 2 is an alloc_graph on the seed in f16 that kept call 0's plan, made on the f32
// seed (another graph file): shown is call 2's own graph, its three tensors placed where the
// seed README reasons they go (a 0, b 32, mul 0), and nothing planned again.
TEST(CaptureReplay, KeptPlanOfAnotherGraphShowsThisCallsOwnPlacement) {
    const Capture capture = load_capture(kSeed);
    const CallTrace traced = trace_call(capture.sessions[0], 2, baseline_profile());
    EXPECT_EQ(traced.plan_call, 0u);
    EXPECT_EQ(traced.note, "alloc_graph reused the plan of call 0 (reserve_n), made on another graph (graphs/seed.json): "
                           "shown is this call's placement on its own graph (pick call 0 to see the planning)");
    EXPECT_EQ(traced.file.name, "seed-mul-f16");
    EXPECT_EQ(traced.trace.graph_name, "seed-mul-f16");
    EXPECT_TRUE(traced.trace.error.empty());
    // Only the placement: a and b (the leafs), then mul (its sources are placed already).
    ASSERT_EQ(traced.trace.size(), 3u);
    std::vector<std::pair<std::string, std::size_t>> placed;
    for (const TraceEvent& event : traced.trace.events) {
        ASSERT_EQ(kind_of(event), EventKind::tensor_initialised);
        const auto& e = std::get<Recorded<event::TensorInitialised>>(event.data);
        EXPECT_EQ(traced.trace.tensor(e.tensor).type, DataType::f16);  // the call's own tensors
        placed.emplace_back(traced.trace.tensor(e.tensor).name, e.address.offset);
    }
    EXPECT_THAT(placed, ElementsAre(std::pair<std::string, std::size_t>{"a", 0}, std::pair<std::string, std::size_t>{"b", 32},
                                    std::pair<std::string, std::size_t>{"mul", 0}));
}

// The same on a real llama.cpp run: call 4 of the tiny llama is the first 1-token decode, an
// alloc_graph of graphs/c300e1b7c8ea8faa.json that kept the plan reserve_n made in call 2 on
// the 64-token worst case (graphs/6abc2d09f384cf07.json). The expected places are read from
// the session file, where the capture recorded where upstream ggml put each of call 4's
// tensors; call 3 (the prompt, another graph on the same plan) recorded the same place for
// the tensor at the same node position, which is what keeping a plan means.
TEST(CaptureReplay, KeptPlanOfAReservedWorstCaseShowsTheDecodesOwnTensors) {
    const fs::path folder = kCaptures / "tiny-llama";
    std::vector<nlohmann::json> lines;
    {
        std::ifstream session_file(folder / "session-0.jsonl");
        for (std::string line; std::getline(session_file, line);) {
            lines.push_back(nlohmann::json::parse(line));
        }
    }
    const nlohmann::json& decode = lines.at(5);  // after the header: call 4
    ASSERT_EQ(decode["call"], 4);
    ASSERT_EQ(decode["graph"], "graphs/c300e1b7c8ea8faa.json");
    const nlohmann::json& prompt = lines.at(4);  // call 3
    const nlohmann::json decode_graph = nlohmann::json::parse(std::ifstream(folder / "graphs/c300e1b7c8ea8faa.json"));
    const nlohmann::json prompt_graph = nlohmann::json::parse(std::ifstream(folder / "graphs/dece1252b4128b0e.json"));
    // result_output, the logits, is the last node of both: 32,000 floats for the decode's one token.
    ASSERT_EQ(decode_graph["nodes"].back(), "result_output");
    ASSERT_EQ(prompt_graph["nodes"].back(), "result_output");
    const std::size_t logits_offset = decode["tensors"]["result_output"]["offset"];
    ASSERT_EQ(prompt["tensors"]["result_output"]["offset"], logits_offset);

    const Capture capture = load_capture(folder);
    const CallTrace traced = trace_call(capture.sessions[0], 4, newest_profile());
    EXPECT_EQ(traced.plan_call, 2u);
    EXPECT_THAT(traced.note, HasSubstr("made on another graph (graphs/6abc2d09f384cf07.json): shown is this call's "
                                       "placement on its own graph (pick call 2 to see the planning)"));
    EXPECT_EQ(traced.file.name, decode_graph["name"]);
    EXPECT_EQ(traced.trace.graph_name, "c300e1b7c8ea8faa");
    EXPECT_EQ(traced.trace.node_count, decode_graph["nodes"].size());
    EXPECT_TRUE(traced.trace.error.empty());
    const auto logits = traced.trace.find("result_output");
    ASSERT_TRUE(logits.has_value());
    EXPECT_EQ(traced.trace.tensor(*logits).bytes, 32000u * 4u);  // the decode's, not the worst case's 64 rows

    // Every tensor the call placed (views too: inside their sources) went where upstream ggml put it.
    std::size_t checked = 0;
    bool logits_placed = false;
    for (const TraceEvent& event : traced.trace.events) {
        const auto* e = std::get_if<Recorded<event::TensorInitialised>>(&event.data);
        ASSERT_NE(e, nullptr) << "the call planned nothing: only placements";
        if (e->address == kInvalidAddress) {
            continue;  // a view of memory that is not the allocator's (the KV cache's)
        }
        const std::string& name = traced.trace.tensor(e->tensor).name;
        ASSERT_TRUE(decode["tensors"].contains(name)) << name;
        EXPECT_EQ(e->address.offset, decode["tensors"][name]["offset"].get<std::size_t>()) << name;
        EXPECT_EQ(e->address.chunk, decode["tensors"][name]["chunk"].get<int>()) << name;
        logits_placed = logits_placed || e->tensor == *logits;
        ++checked;
    }
    EXPECT_TRUE(logits_placed);
    EXPECT_EQ(checked, decode["tensors"].size());
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
