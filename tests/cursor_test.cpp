// The cursor: stepping, jumping and breakpoints over a trace, with states compared by
// value. Going back must give exactly the state that going forward gave, on every golden
// file, and no move may replay more than one checkpoint interval.
#include "golden_traces.hpp"
#include "trace_steps.hpp"
#include "simulator/trace/cow_vector.hpp"
#include "simulator/trace/cursor.hpp"
#include "simulator/model/examples.hpp"

#include <gtest/gtest.h>

namespace gallocsim {
namespace {

constexpr TensorId kB = 1;  // the seed's tensors: a 0, b 1, mul 2

using test_support::find_step;

Cursor seed_cursor(std::size_t interval = kDefaultCheckpointInterval) {
    GraphFile file = seed_example();
    return Cursor(record_trace(file), interval);
}

TEST(CowVector, CopiesShareUntilOneSideWrites) {
    CowVector<int, 4> original(10, 7);
    CowVector<int, 4> copy = original;
    EXPECT_EQ(copy, original);
    copy.mutate(5) = 1;
    EXPECT_EQ(original[5], 7);
    EXPECT_EQ(copy[5], 1);
    EXPECT_NE(copy, original);
    copy.mutate(5) = 7;
    EXPECT_EQ(copy, original);  // equal by content, even on a page of its own
    EXPECT_EQ(copy.size(), 10u);
    EXPECT_NE(CowVector<int>(3, 0), CowVector<int>(4, 0));
}

TEST(Cursor, StartsBeforeTheFirstStep) {
    const Cursor cursor = seed_cursor();
    EXPECT_EQ(cursor.position(), 0u);
    EXPECT_EQ(cursor.size(), 17u);
    EXPECT_TRUE(cursor.at_start());
    EXPECT_EQ(cursor.last_event(), nullptr);
    ASSERT_NE(cursor.next_event(), nullptr);
    EXPECT_EQ(kind_of(*cursor.next_event()), EventKind::plan_started);
    EXPECT_EQ(cursor.state(), initial_state(cursor.trace()));
}

TEST(Cursor, StepsForwardAndBackToTheSameStates) {
    Cursor cursor = seed_cursor(4);
    std::vector<SimState> forward{cursor.state()};
    while (cursor.step_forward()) {
        forward.push_back(cursor.state());
    }
    EXPECT_FALSE(cursor.step_forward());
    EXPECT_TRUE(cursor.at_end());
    EXPECT_EQ(cursor.next_event(), nullptr);
    EXPECT_EQ(kind_of(*cursor.last_event()), EventKind::tensor_initialised);
    for (std::size_t p = forward.size() - 1; p-- > 0;) {
        ASSERT_TRUE(cursor.step_back());
        EXPECT_EQ(cursor.state(), forward[p]) << "at position " << p;
    }
    EXPECT_FALSE(cursor.step_back());
}

TEST(Cursor, JumpsFirstAndLast) {
    Cursor cursor = seed_cursor(4);
    const std::size_t b_freed = find_step(cursor.trace(), EventKind::tensor_freed, "b");
    cursor.jump(b_freed);
    EXPECT_EQ(cursor.position(), b_freed);
    EXPECT_EQ(kind_of(*cursor.last_event()), EventKind::tensor_freed);
    EXPECT_EQ(cursor.state().tensor(kB).life, TensorLife::freed);
    cursor.last();
    EXPECT_TRUE(cursor.at_end());
    cursor.first();
    EXPECT_TRUE(cursor.at_start());
    EXPECT_THROW(cursor.jump(18), std::out_of_range);
    EXPECT_EQ(cursor.state_at(b_freed), replay(cursor.trace(), b_freed));
}

TEST(Cursor, RunsToTensorBreakpoints) {
    Cursor cursor = seed_cursor();
    // b is touched at steps 4 (allocated), 7 (counted), 11 (released), 12 (freed) and 16
    // (initialised).
    const Trace& trace = cursor.trace();
    const std::size_t b_freed = find_step(trace, EventKind::tensor_freed, "b");
    const std::size_t b_initialised = find_step(trace, EventKind::tensor_initialised, "b");
    const std::vector<std::size_t> touching_b{
        find_step(trace, EventKind::leaf_allocated, "b"), find_step(trace, EventKind::consumer_counted, "b", "mul"),
        find_step(trace, EventKind::parent_released, "b", "mul"), b_freed, b_initialised};
    std::vector<std::size_t> stops;
    while (cursor.run_forward(OnTensor{kB})) {
        stops.push_back(cursor.position());
    }
    EXPECT_EQ(stops, touching_b);
    EXPECT_EQ(cursor.position(), b_initialised);  // no later hit: the cursor stays
    ASSERT_TRUE(cursor.run_back(OnTensor{kB}));
    EXPECT_EQ(cursor.position(), b_freed);
    cursor.first();
    EXPECT_FALSE(cursor.run_back(OnTensor{kB}));
}

TEST(Cursor, RunsToKindAndLiveBytesBreakpoints) {
    Cursor cursor = seed_cursor();
    const Trace& trace = cursor.trace();
    ASSERT_TRUE(cursor.run_forward(OnKind{EventKind::in_place_reused}));
    EXPECT_EQ(cursor.position(), find_step(trace, EventKind::in_place_reused, "mul", "a"));
    EXPECT_FALSE(cursor.run_forward(OnKind{EventKind::in_place_reused}));

    // Live bytes: 32 after a (step 3), 64 after b (step 4), 32 after b is freed (step 12).
    const std::size_t a_placed = find_step(trace, EventKind::leaf_allocated, "a");
    const std::size_t b_placed = find_step(trace, EventKind::leaf_allocated, "b");
    EXPECT_EQ(cursor.live_bytes()[a_placed], 32u);
    EXPECT_EQ(cursor.live_bytes()[b_placed], 64u);
    EXPECT_EQ(cursor.live_bytes()[find_step(trace, EventKind::tensor_freed, "b")], 32u);
    cursor.first();
    ASSERT_TRUE(cursor.run_forward(LiveBytesAbove{32}));
    EXPECT_EQ(cursor.position(), b_placed);
    EXPECT_FALSE(cursor.run_forward(LiveBytesAbove{32}));  // it never rises above 32 again
    ASSERT_TRUE(cursor.run_back(LiveBytesAbove{0}));
    EXPECT_EQ(cursor.position(), a_placed);
}

TEST(Cursor, KeepsACheckpointEveryIntervalAndReplaysNoMore) {
    Cursor cursor = seed_cursor(4);
    EXPECT_EQ(cursor.checkpoint_interval(), 4u);
    EXPECT_EQ(cursor.checkpoint_count(), 5u);  // positions 0, 4, 8, 12, 16
    cursor.jump(15);
    EXPECT_EQ(cursor.replayed_by_last_move(), 3u);  // from the checkpoint at 12
    cursor.jump(6);
    EXPECT_EQ(cursor.replayed_by_last_move(), 2u);  // back: from the checkpoint at 4
    cursor.jump(7);
    EXPECT_EQ(cursor.replayed_by_last_move(), 1u);  // forward from here
    cursor.step_back();
    EXPECT_EQ(cursor.replayed_by_last_move(), 2u);  // 4 to 6, keeping the states on the way
    cursor.step_back();
    EXPECT_EQ(cursor.replayed_by_last_move(), 0u);  // 5 was kept
    EXPECT_EQ(cursor.state(), replay(cursor.trace(), 5));
    EXPECT_THROW(Cursor(std::make_shared<const Trace>(), 0), std::invalid_argument);
}

// The automatic interval keeps checkpoints x pages of 16 tensor states near 2^23 page
// pointers: the seed (17 events, 3 tensors: one page) gets the minimum, 64. A trace of
// 2^20 events over 160,000 tensors (10,001 pages) needs 2^20 * 10,001 / 2^23 = 1,250.125,
// so 1,251 events between checkpoints: 839 checkpoints of 10,001 pages, 8.39 million pointers.
TEST(Cursor, ChecksPointsFartherApartAsTheGraphGrows) {
    GraphFile seed = seed_example();
    EXPECT_EQ(Cursor(record_trace(seed)).checkpoint_interval(), 64u);
    Trace big;
    big.events.resize(std::size_t{1} << 20);
    big.tensors = TraceTensors(std::vector<TraceTensor>(160'000));
    EXPECT_EQ(automatic_checkpoint_interval(big), 1'251u);
}

// On every golden file: walking to the end and back gives the same state at every
// position; jumping anywhere gives the state that stepping gave, within K replays.
TEST(Cursor, ForwardBackAndJumpAgreeOnEveryGoldenFile) {
    const auto& goldens = test_support::golden_traces();
    if (goldens.empty()) {
        GTEST_SKIP() << "no golden corpus at " << test_support::golden_dir();
    }
    constexpr std::size_t kInterval = 16;
    for (const auto& golden : goldens) {
        SCOPED_TRACE(golden.name);
        Cursor cursor(golden.trace, kInterval);
        std::vector<SimState> forward{cursor.state()};
        while (cursor.step_forward()) {
            forward.push_back(cursor.state());
        }
        for (std::size_t p = forward.size() - 1; p-- > 0;) {
            ASSERT_TRUE(cursor.step_back());
            ASSERT_EQ(cursor.state(), forward[p]) << "back at position " << p;
            ASSERT_LE(cursor.replayed_by_last_move(), kInterval);
        }
        // Jumps in an order that goes both ways: 0, n-1, 1, n-2, ...
        const std::size_t n = forward.size();
        const std::size_t stride = std::max<std::size_t>(1, n / 50);
        for (std::size_t i = 0; i < n; i += stride) {
            for (const std::size_t p : {i, n - 1 - i}) {
                cursor.jump(p);
                ASSERT_EQ(cursor.state(), forward[p]) << "jump to " << p;
                ASSERT_LE(cursor.replayed_by_last_move(), kInterval);
            }
        }
    }
}

} // namespace
} // namespace gallocsim
