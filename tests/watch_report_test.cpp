// analysis/watch_report: what watch says of each call. The expected lines are written out by
// hand from the call's fields: 322971648 bytes = 308.0117 MiB, written "308.01 MiB".
#include "simulator/analysis/watch_report.hpp"

#include <gtest/gtest.h>

namespace gallocsim {
namespace {

CaptureSession two_buffer_session() {
    CaptureSession session;
    session.file = "capture/session-2.jsonl";
    session.allocator = 2;
    session.created_by = "ggml_gallocr_new_n";
    session.buffer_types.resize(2);
    session.buffer_types[0].name = "CUDA0";
    session.buffer_types[1].name = "CPU";
    session.buffers = {0, 1};
    session.calls.resize(6);
    CapturedCall& call = session.calls[5];
    call.number = 5;
    call.function = CapturedFunction::alloc_graph;
    call.nodes = 1158;
    call.buffer_sizes = {322971648, 64};
    return session;
}

CallReplay replay_of(CallOutcome outcome, std::vector<std::string> differences = {}, std::string error = {}) {
    CallReplay replay;
    replay.index = 5;
    replay.outcome = outcome;
    replay.differences = std::move(differences);
    replay.error = std::move(error);
    return replay;
}

TEST(WatchReport, a_call_says_who_made_it_what_ggml_reported_and_the_verdict) {
    const CaptureSession session = two_buffer_session();
    EXPECT_EQ(watched_call_line(session, replay_of(CallOutcome::passed)),
              "allocator 2 call 5: alloc_graph, 1158 nodes, CUDA0 308.01 MiB, CPU 64 B: pass");
    EXPECT_EQ(watched_call_line(session, replay_of(CallOutcome::failed, {"buffer 0: 1 != 2", "b", "c"})),
              "allocator 2 call 5: alloc_graph, 1158 nodes, CUDA0 308.01 MiB, CPU 64 B: FAIL: buffer 0: 1 != 2 "
              "(and 2 more differences)");
    EXPECT_EQ(watched_call_line(session, replay_of(CallOutcome::failed, {}, "the graph cannot be loaded")),
              "allocator 2 call 5: alloc_graph, 1158 nodes, CUDA0 308.01 MiB, CPU 64 B: FAIL: the graph cannot be loaded");
    EXPECT_EQ(watched_call_line(session, replay_of(CallOutcome::not_replayed, {}, "no version")),
              "allocator 2 call 5: alloc_graph, 1158 nodes, CUDA0 308.01 MiB, CPU 64 B: not replayed: no version");
}

TEST(WatchReport, a_session_names_its_buffer_types) {
    EXPECT_EQ(watched_session_line(two_buffer_session()),
              "allocator 2 (session-2.jsonl, ggml_gallocr_new_n): buffer types CUDA0, CPU");
}

TEST(WatchReport, the_tally_is_conforms) {
    WatchTally tally;
    tally.add(replay_of(CallOutcome::passed));
    tally.add(replay_of(CallOutcome::passed));
    tally.add(replay_of(CallOutcome::failed));
    EXPECT_EQ(tally.line(), "2 passed, 1 failed");
    tally.add(replay_of(CallOutcome::not_replayed));
    EXPECT_EQ(tally.line(), "2 passed, 1 failed, 1 skipped");
}

} // namespace
} // namespace gallocsim
