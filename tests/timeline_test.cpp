// The timeline read off a trace: each stretch of memory on both axes of time. The seed
// (a, b in a 32-aligned buffer; mul = a * b takes a's memory in place; b freed after mul)
// has 17 events, listed by `gallocsim trace seed` and walked through in docs/tutorial.md:
//   1 plan-started, 2 chunk-created, 3 leaf a, 4 leaf b, 5 counting-started,
//   6-7 consumers counted                                   (node step 0: before any node)
//   8 node-started mul, 9 in-place-reused (mul takes a), 10-11 parents released,
//   12 b freed, 13 buffer-allocated, 14 plan-finished, 15-17 tensors initialised
//                                                           (node step 1: mul, then the end)
// so step 0 holds 7 events and step 1 holds 10.
#include "simulator/model/examples.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/trace/capture_replay.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/state.hpp"
#include "simulator/trace/timeline.hpp"

#include "trace_steps.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace gallocsim {
namespace {

constexpr TensorId kA = 0, kB = 1, kMul = 2;  // the seed's tensors, in file order

using test_support::find_step;

class SeedTimeline : public ::testing::Test {
protected:
    GraphFile file = seed_example();
    Trace trace = record_trace(file);
    Timeline timeline{trace};

    const MemorySpan& only_span(TensorId tensor) const {
        const auto spans = timeline.spans_of(tensor);
        EXPECT_EQ(spans.size(), 1u);
        return *spans.front();
    }
};

TEST_F(SeedTimeline, EachTensorHasOneSpanOnBothAxes) {
    // a: placed by event 3 at offset 0, handed to mul by event 9; live in steps 0 (leaf) and 1 (mul).
    const MemorySpan& a = only_span(kA);
    EXPECT_EQ(a.address.offset, 0u);
    EXPECT_EQ(a.size, 32u);  // 4 bytes aligned to 32
    const std::size_t mul_takes_a = find_step(trace, EventKind::in_place_reused, "mul", "a");
    EXPECT_EQ(a.first, find_step(trace, EventKind::leaf_allocated, "a"));
    EXPECT_EQ(a.end, mul_takes_a);
    EXPECT_EQ(a.how_it_ends, SpanEnd::handed_over);
    EXPECT_EQ(a.first_step, 0u);
    EXPECT_EQ(a.last_step, 1u);
    // b: placed by event 4 at offset 32, freed by event 12, after mul ran (step 1).
    const MemorySpan& b = only_span(kB);
    EXPECT_EQ(b.address.offset, 32u);
    EXPECT_EQ(b.first, find_step(trace, EventKind::leaf_allocated, "b"));
    EXPECT_EQ(b.end, find_step(trace, EventKind::tensor_freed, "b"));
    EXPECT_EQ(b.how_it_ends, SpanEnd::freed);
    EXPECT_EQ(b.first_step, 0u);
    EXPECT_EQ(b.last_step, 1u);
    // mul: a's bytes from event 9, never released (the graph's last node), step 1 to the end.
    const MemorySpan& mul = only_span(kMul);
    EXPECT_EQ(mul.address.offset, 0u);
    EXPECT_EQ(mul.in_place_of, kA);
    EXPECT_EQ(mul.first, mul_takes_a);
    EXPECT_EQ(mul.end, trace.size() + 1);
    EXPECT_EQ(mul.how_it_ends, SpanEnd::kept);
    EXPECT_EQ(mul.first_step, 1u);
    EXPECT_EQ(mul.last_step, 1u);
}

TEST_F(SeedTimeline, PositionsMapOntoNodeSteps) {
    ASSERT_EQ(trace.size(), 17u);
    EXPECT_EQ(timeline.plan_count(), 1u);
    EXPECT_EQ(timeline.step_count(), 2u);
    // step_of_event takes an index (an event's step less one): the last consumer counted
    // (event 7) is in step 0; mul's start (event 8) and the last event are in step 1.
    const std::size_t last_counted = find_step(trace, EventKind::consumer_counted, "b", "mul");
    const std::size_t mul_starts = find_step(trace, EventKind::node_started, "mul");
    EXPECT_EQ(timeline.step_of_event(last_counted - 1), 0u);
    EXPECT_EQ(timeline.step_of_event(mul_starts - 1), 1u);
    EXPECT_EQ(timeline.step_of_event(trace.size() - 1), 1u);
    // The cursor moves through a step's column as its events apply: 7 events in step 0,
    // 10 in step 1.
    EXPECT_DOUBLE_EQ(timeline.step_coordinate(0), 0.0);
    EXPECT_DOUBLE_EQ(timeline.step_coordinate(3), 3.0 / 7.0);
    EXPECT_DOUBLE_EQ(timeline.step_coordinate(7), 1.0);
    EXPECT_DOUBLE_EQ(timeline.step_coordinate(12), 1.5);
    EXPECT_DOUBLE_EQ(timeline.step_coordinate(17), 2.0);
    EXPECT_EQ(timeline.position_after_node_step(0), 7u);
    EXPECT_EQ(timeline.position_after_node_step(1), 17u);
}

TEST_F(SeedTimeline, ChunksReachTheirHighWaterMark) {
    ASSERT_EQ(timeline.chunks().size(), 1u);
    EXPECT_EQ(timeline.chunks().front().size, 64u);  // a and b side by side, 32 bytes each
    EXPECT_EQ(timeline.placing_event(kB), find_step(trace, EventKind::leaf_allocated, "b") - 1);  // an index
}

// Two plans in one trace (the same graph planned twice while recording, as a program
// planning each new graph on one allocator): the first plan's spans end where the second
// starts, and the second's steps follow the first's.
TEST(Timeline, APlanStartedLaterEndsTheSpansOfTheOneBefore) {
    const GraphFile file = seed_example();
    PlanRun run = prepare_plan(file);
    TraceRecorder recorder(file, run.planned, describe_tensors(file));
    carry_out_plan(run, &recorder);
    run.planned.forget_addresses();
    carry_out_plan(run, &recorder);
    const Trace trace = recorder.take(run.error);
    ASSERT_EQ(trace.size(), 34u);  // the seed's 17 events twice
    const Timeline timeline(trace);
    EXPECT_EQ(timeline.plan_count(), 2u);
    EXPECT_EQ(timeline.step_count(), 4u);
    EXPECT_EQ(timeline.last_plan_start(), 17u);
    const auto spans = timeline.spans_of(kMul);
    ASSERT_EQ(spans.size(), 2u);
    // The first mul was kept to its plan's end (step 1), then the second plan began (event 18).
    EXPECT_EQ(spans[0]->how_it_ends, SpanEnd::replanned);
    EXPECT_EQ(spans[0]->end, 17u);
    EXPECT_EQ(spans[0]->last_step, 1u);
    EXPECT_EQ(spans[0]->plan, 0u);
    // The second: plan 1's node step 1 is step 3 on the whole axis.
    EXPECT_EQ(spans[1]->plan, 1u);
    EXPECT_EQ(spans[1]->first_step, 3u);
    EXPECT_EQ(timeline.step_in_plan(spans[1]->first_step), 1u);
    EXPECT_EQ(timeline.position_after_node_step(0), 17u + 7u);
}

// A trace that only places: seed capture call 2, alloc_graph on the seed in f16 keeping the
// plan reserve_n made on the f32 seed (tests/data/captures/seed/README.md). Its three events
// place a (leaf 0) at 0, b (leaf 1) at 32, then mul (node 0) at 0, each 2 bytes taken up to
// the buffer's alignment, 32. Each placement gives its tensor memory to the end; the chunk
// reaches b's end, 64; mul shares a's bytes, so 64 are held, none free.
TEST(Timeline, ATraceThatOnlyPlacesShowsWhereEachTensorWent) {
    const Capture capture = load_capture(std::filesystem::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / "seed");
    const CallTrace traced = trace_call(capture.sessions[0], 2, *session_profile(capture.sessions[0]).profile);
    const Trace& trace = traced.trace;
    ASSERT_EQ(trace.size(), 3u);
    const Timeline timeline(trace);
    struct Expected {
        TensorId tensor;
        std::size_t offset;
    };
    for (const auto& [tensor, offset] : {Expected{kA, 0}, Expected{kB, 32}, Expected{kMul, 0}}) {
        SCOPED_TRACE(trace.tensor(tensor).name);
        const auto spans = timeline.spans_of(tensor);
        ASSERT_EQ(spans.size(), 1u);
        const MemorySpan& span = *spans.front();
        EXPECT_EQ(span.address.chunk, 0);
        EXPECT_EQ(span.address.offset, offset);
        EXPECT_EQ(span.size, 32u);
        EXPECT_EQ(span.first, static_cast<std::size_t>(tensor) + 1);  // placed by events 1, 2, 3 in file order
        EXPECT_EQ(span.how_it_ends, SpanEnd::kept);
        EXPECT_EQ(span.in_place_of, kNoTensor);
        EXPECT_TRUE(span.live_at(trace.size()));
        EXPECT_EQ(timeline.placing_event(tensor), static_cast<std::size_t>(tensor));
    }
    ASSERT_EQ(timeline.chunks().size(), 1u);
    EXPECT_EQ(timeline.chunks().front().size, 64u);

    // The state agrees: the chunk as far as the placements reach, what they hold live.
    const std::size_t expected_high_water[] = {32, 64, 64};
    SimState state = initial_state(trace);
    while (state.position < trace.size()) {
        apply_next(state, trace);
        SCOPED_TRACE(state.position);
        ASSERT_EQ(state.allocators[0].chunks.size(), 1u);
        const MemoryStats stats = memory_stats(state.allocators[0]);
        EXPECT_EQ(stats.high_water, expected_high_water[state.position - 1]);
        EXPECT_EQ(stats.live_bytes, stats.high_water);  // no gap between a and b
        EXPECT_EQ(stats.free_bytes, 0u);
    }
    for (const TensorId tensor : {kA, kB, kMul}) {
        EXPECT_EQ(state.tensor(tensor).life, TensorLife::live);
        EXPECT_TRUE(state.tensor(tensor).record.allocated);
    }
    EXPECT_EQ(state.tensor(kB).record.address.offset, 32u);
    // Nothing was planned here: no event set the buffer's size.
    EXPECT_FALSE(buffer_peaks(trace).front().event.has_value());
    // Why mul is at 0: the place the kept plan holds for node 0.
    const std::string why_mul = explain(trace, replay(trace, 2), 2);
    EXPECT_NE(why_mul.find("where the plan it kept (made on another graph) puts node 0"), std::string::npos) << why_mul;
}

// The same on the tiny llama's first decode (call 4, which kept the plan of the 64-token
// worst case): the worst case's tensors were larger, so the decode's leave gaps below the
// high-water mark; whatever is not free below it is held, at every step.
TEST(Timeline, ATraceThatOnlyPlacesKeepsLiveBytesAndHolesApart) {
    const Capture capture = load_capture(std::filesystem::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / "tiny-llama");
    const CallTrace traced = trace_call(capture.sessions[0], 4, newest_profile());
    const Timeline timeline(traced.trace);
    EXPECT_FALSE(timeline.spans().empty());
    SimState state = initial_state(traced.trace);
    while (state.position < traced.trace.size()) {
        apply_next(state, traced.trace);
        const MemoryStats stats = memory_stats(state.allocators[0]);
        ASSERT_EQ(stats.live_bytes, stats.high_water - stats.free_bytes) << "after event " << state.position;
    }
    const MemoryStats end = memory_stats(state.allocators[0]);
    EXPECT_GT(end.free_bytes, 0u);
    // No tensor reaches past the chunk the placements made, and the chunk is no larger than
    // the 8,241,408-byte buffer the session recorded.
    ASSERT_EQ(timeline.chunks().size(), 1u);
    EXPECT_EQ(timeline.chunks().front().size, end.high_water);
    EXPECT_LE(end.high_water, 8241408u);
}

} // namespace
} // namespace gallocsim
