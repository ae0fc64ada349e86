// Recording a run as a trace, and replaying the trace into states. The seed graph (a, b
// in a 32-aligned buffer, mul = a * b) is traced event by event; every golden file must
// replay, from its events alone, to exactly the reference allocator's final state.
#include "golden_traces.hpp"
#include "trace_steps.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/trace/state.hpp"
#include "simulator/trace/trace.hpp"
#include "simulator/trace/trace_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include <algorithm>
#include <type_traits>

namespace gallocsim {
namespace {

constexpr std::size_t kTail = SIZE_MAX / 2;  // an unbounded chunk's single free block
constexpr TensorId kA = 0, kB = 1, kMul = 2;  // the seed's tensors, in file order

using test_support::find_event;
using test_support::find_step;

class SeedTrace : public ::testing::Test {
protected:
    GraphFile file = seed_example();
    Trace trace = record_trace(file);
};

TEST_F(SeedTrace, RecordsSeventeenEventsInOrder) {
    std::vector<std::string_view> kinds;
    for (const TraceEvent& e : trace.events) {
        kinds.push_back(kind_name(kind_of(e)));
    }
    const std::vector<std::string_view> expected{
        "plan-started",     "chunk-created",      "leaf-allocated",     "leaf-allocated",   "counting-started",
        "consumer-counted", "consumer-counted",   "node-started",       "in-place-reused",  "parent-released",
        "parent-released",  "tensor-freed",       "buffer-allocated",   "plan-finished",    "tensor-initialised",
        "tensor-initialised", "tensor-initialised",
    };
    EXPECT_EQ(kinds, expected);
    EXPECT_TRUE(trace.error.empty());
    EXPECT_EQ(trace.graph_name, "seed-mul");
    EXPECT_EQ(trace.leaf_count, 2u);
    EXPECT_EQ(trace.node_count, 1u);
}

TEST_F(SeedTrace, TensorsAreNamedByFileIndexWithTheirRoles) {
    ASSERT_EQ(trace.tensors.size(), 3u);
    EXPECT_EQ(trace.tensor(kA).name, "a");
    EXPECT_EQ(trace.tensor(kA).role, TensorRole::leaf);
    EXPECT_EQ(trace.tensor(kB).position, 1);
    EXPECT_EQ(trace.tensor(kMul).role, TensorRole::node);
    EXPECT_EQ(trace.tensor(kMul).src[0], kA);
    EXPECT_EQ(trace.tensor(kMul).src[1], kB);
    EXPECT_EQ(trace.tensor(kMul).src[2], kNoTensor);
    EXPECT_EQ(trace.tensor(kMul).bytes, 4u);
    EXPECT_EQ(trace.find("mul"), kMul);
    EXPECT_EQ(trace.find("nope"), std::nullopt);
    ASSERT_EQ(trace.buffers.size(), 1u);
    EXPECT_EQ(trace.buffer(0).type_name, "CPU");
    EXPECT_EQ(trace.buffer(0).alignment, 32u);
}

// Leaf b: the only block is the tail at 32; its reuse factor is 32 - 32 - 32 = -32 (the
// chunk must grow by 32 bytes).
TEST_F(SeedTrace, LeafBTakesTheTailAndGrowsTheChunk) {
    const auto& b = find_event<event::TensorAllocated>(trace, EventKind::leaf_allocated, "b");
    EXPECT_EQ(b.tensor, kB);
    EXPECT_EQ(b.phase, AllocationPhase::leaf);
    EXPECT_EQ(b.alloc_size, 4u);
    const BlockTaken& taken = trace.taken(b);
    EXPECT_EQ(taken.address, (BufferAddress{0, 32}));
    EXPECT_EQ(taken.size, 32u);
    EXPECT_EQ(taken.choice, BlockChoice::tail);
    EXPECT_EQ(taken.block_before, (FreeBlock{32, kTail - 32}));
    EXPECT_FALSE(taken.block_consumed);
    EXPECT_EQ(taken.reuse_factor, -32);
    EXPECT_EQ(taken.high_water_before, 32u);
    EXPECT_EQ(taken.high_water_after, 64u);
    const auto candidates = trace.candidates(b);
    ASSERT_EQ(candidates.size(), 1u);
    EXPECT_TRUE(candidates[0].is_tail);
    EXPECT_TRUE(candidates[0].fits);
    EXPECT_EQ(candidates[0].free_block, (FreeBlock{32, kTail - 32}));
    EXPECT_EQ(candidates[0].reuse_factor, -32);
}

// The first allocation needs a chunk: it appears as its own event, before the allocation.
TEST_F(SeedTrace, TheFirstChunkIsCreatedForA) {
    const auto& created = find_event<event::ChunkCreated>(trace, EventKind::chunk_created);
    EXPECT_EQ(created.buffer_id, 0);
    EXPECT_EQ(created.chunk, 0);
    EXPECT_EQ(created.size, kTail);
    EXPECT_EQ(created.tensor, kA);
    EXPECT_EQ(created.request, 32u);
    const std::size_t a_placed = find_step(trace, EventKind::leaf_allocated, "a");
    EXPECT_EQ(find_step(trace, EventKind::chunk_created), a_placed - 1);
    EXPECT_EQ(trace.taken(find_event<event::TensorAllocated>(trace, EventKind::leaf_allocated, "a")).choice,
              BlockChoice::new_chunk);
}

TEST_F(SeedTrace, EventsKnowTheirStageAndNode) {
    EXPECT_EQ(find_event(trace, EventKind::leaf_allocated, "a").stage, Stage::leafs);
    EXPECT_EQ(find_event(trace, EventKind::consumer_counted, "a", "mul").stage, Stage::counting);
    const TraceEvent& reused = find_event(trace, EventKind::in_place_reused, "mul", "a");
    EXPECT_EQ(reused.stage, Stage::nodes);
    EXPECT_EQ(reused.node, kMul);
    const TraceEvent& buffer = find_event(trace, EventKind::buffer_allocated);
    EXPECT_EQ(buffer.stage, Stage::buffers);
    EXPECT_EQ(buffer.node, kNoTensor);
    EXPECT_EQ(find_event(trace, EventKind::tensor_initialised, "mul").stage, Stage::addresses);
}

TEST_F(SeedTrace, MulReusesAAndBIsFreedIntoTheTail) {
    const auto& reused = find_event<event::InPlaceReused>(trace, EventKind::in_place_reused, "mul", "a");
    EXPECT_EQ(reused.node, kMul);
    EXPECT_EQ(reused.parent, kA);
    EXPECT_EQ(reused.view_source, kNoTensor);
    EXPECT_EQ(reused.address, (BufferAddress{0, 0}));

    const auto& released_a = find_event<event::ParentReleased>(trace, EventKind::parent_released, "a", "mul");
    EXPECT_EQ(released_a.parent, kA);
    EXPECT_FALSE(released_a.still_owned);  // mul owns that memory now

    const auto& freed = find_event<event::TensorFreed>(trace, EventKind::tensor_freed, "b");
    EXPECT_EQ(freed.tensor, kB);
    EXPECT_EQ(freed.reason, FreeReason::last_consumer);
    const FreeDecision& decision = trace.freed(freed);
    EXPECT_EQ(decision.address, (BufferAddress{0, 32}));
    EXPECT_EQ(decision.size, 32u);
    EXPECT_EQ(decision.merge, MergeKind::next);
    EXPECT_EQ(decision.result, (FreeBlock{32, kTail - 32}));
}

TEST_F(SeedTrace, AddressesAreBasePlusOffset) {
    const auto& b = find_event<event::TensorInitialised>(trace, EventKind::tensor_initialised, "b");
    EXPECT_EQ(b.tensor, kB);
    EXPECT_EQ(b.data, ConfigurableBufferType::kFakeBase + 32);
    const auto& mul = find_event<event::TensorInitialised>(trace, EventKind::tensor_initialised, "mul");
    EXPECT_EQ(mul.data, ConfigurableBufferType::kFakeBase);  // at a's address
    const auto& buffer = find_event<event::BufferAllocated>(trace, EventKind::buffer_allocated);
    EXPECT_EQ(std::vector<std::size_t>(trace.chunk_sizes(buffer).begin(), trace.chunk_sizes(buffer).end()),
              std::vector<std::size_t>{64});
    EXPECT_TRUE(buffer.reallocated);
}

TEST_F(SeedTrace, TouchedTensorsNameTheMainTensorFirst) {
    // Found by kind alone where the seed has one event of the kind, so as not to find them by
    // what is being checked.
    EXPECT_EQ(touched_tensors(find_event(trace, EventKind::in_place_reused)), (std::vector<TensorId>{kMul, kA}));
    const TraceEvent& a_released = find_event(trace, EventKind::parent_released, "a", "mul");
    EXPECT_EQ(touched_tensors(a_released), (std::vector<TensorId>{kA, kMul}));  // a released by mul: a first
    EXPECT_EQ(touched_tensors(find_event(trace, EventKind::plan_started)), std::vector<TensorId>{});
    const TraceEvent& freed = find_event(trace, EventKind::tensor_freed);  // b
    EXPECT_TRUE(touches(freed, kB));
    EXPECT_FALSE(touches(freed, kA));
}

// What a view highlights after a step: the bytes that changed hands.
TEST_F(SeedTrace, TouchedMemoryIsTheRangeThatChangedHands) {
    auto touched = [&](test_support::EventOfKind kind, auto... tensors) {
        return touched_memory(trace, find_event(trace, kind, tensors...));
    };
    EXPECT_EQ(touched(EventKind::chunk_created), (MemoryRange{0, 0, 0, kTail}));           // chunk 0 created
    EXPECT_EQ(touched(EventKind::leaf_allocated, "b"), (MemoryRange{0, 0, 32, 32}));       // b allocated
    EXPECT_EQ(touched(EventKind::in_place_reused, "mul", "a"), (MemoryRange{0, 0, 0, 32}));  // mul takes a's slot
    EXPECT_EQ(touched(EventKind::tensor_freed, "b"), (MemoryRange{0, 0, 32, 32}));         // b freed
    EXPECT_EQ(touched(EventKind::plan_started), std::nullopt);                             // plan started
    EXPECT_EQ(touched(EventKind::tensor_initialised, "b"), std::nullopt);                  // b placed
}

// Each phase of an allocation is a kind of its own, named as TensorAllocated declares them
// (in AllocationPhase's order: leaf, graph input, parent, node).
TEST(TraceKinds, EachPhaseOfAnAllocationIsItsOwnKind) {
    auto kind = [](AllocationPhase phase) {
        return kind_of(TraceEvent{Stage::nodes, kNoTensor, Recorded<event::TensorAllocated>{kA, 0, phase, 4, 0}});
    };
    EXPECT_EQ(kind(AllocationPhase::leaf), EventKind::leaf_allocated);
    EXPECT_EQ(kind(AllocationPhase::graph_input), EventKind::input_allocated);
    EXPECT_EQ(kind(AllocationPhase::parent), EventKind::parent_allocated);
    EXPECT_EQ(kind(AllocationPhase::node), EventKind::node_allocated);
    EXPECT_EQ(kind_of(TraceEvent{Stage::counting, kNoTensor, Recorded<event::CountingStarted>{}}), EventKind::counting_started);
}

// 18 kinds of event, TensorAllocated four of them: 21 names, none twice. The list is in the
// order a run first meets each: the leafs' allocations right after the plan starts, inputs
// after the counts, a node's parents and then the node after its chunk (walk's `k` lists them).
TEST(TraceKinds, EveryKindIsListedOnceInTheOrderARunMeetsThem) {
    ASSERT_EQ(kEventKindCount, 21u);
    for (std::size_t k = 0; k < kEventKindCount; ++k) {
        EXPECT_EQ(std::ranges::count(kEventKindNames, kEventKindNames[k]), 1) << kEventKindNames[k];
    }
    EXPECT_EQ(kind_name(EventKind::plan_started), "plan-started");
    EXPECT_LT(EventKind::plan_started, EventKind::leaf_allocated);
    EXPECT_LT(EventKind::leaf_allocated, EventKind::counting_started);
    EXPECT_LT(EventKind::view_counted, EventKind::input_allocated);
    EXPECT_LT(EventKind::input_allocated, EventKind::node_started);
    EXPECT_LT(EventKind::chunk_created, EventKind::parent_allocated);
    EXPECT_LT(EventKind::parent_allocated, EventKind::node_allocated);
    EXPECT_LT(EventKind::node_allocated, EventKind::in_place_rejected);
    EXPECT_LT(EventKind::in_place_reused, EventKind::placed_again);  // a second place follows the reuse that made it
    EXPECT_EQ(kind_name(EventKind::tensor_initialised), kEventKindNames.back());
}

// A trace copies an event field by field, in the order it declares them: references become the
// trace's (here pointers to 10 + their index), values stay as they are.
TEST(TraceRecording, EventsAreCopiedFieldByFieldWithTheTracesReferences) {
    const Tensor tensors[2]{};
    auto ref = [&](const auto& field) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(field)>, const Tensor*>) {
            return field == nullptr ? kNoTensor : static_cast<TensorId>(10 + (field - tensors));
        } else {
            return field;
        }
    };
    const auto released = refer<RecordedRefs>(Observed<event::ParentReleased>{&tensors[1], &tensors[0], 2, 1, true}, ref);
    EXPECT_EQ(released.node, 11);
    EXPECT_EQ(released.parent, 10);
    EXPECT_EQ(released.children_left, 2);
    EXPECT_EQ(released.views_left, 1);
    EXPECT_TRUE(released.still_owned);
    const auto reused = refer<RecordedRefs>(
        Observed<event::InPlaceReused>{&tensors[0], &tensors[1], nullptr, 3, BufferAddress{1, 64}, 48}, ref);
    EXPECT_EQ(reused.node, 10);
    EXPECT_EQ(reused.parent, 11);
    EXPECT_EQ(reused.view_source, kNoTensor);
    EXPECT_EQ(reused.buffer_id, 3);
    EXPECT_EQ(reused.address, (BufferAddress{1, 64}));
    EXPECT_EQ(reused.alloc_size, 48u);
}

// An event that opens a stage sets it for what follows; only the node stage has a node, the
// one its node-started names.
TEST_F(SeedTrace, EventsBelongToTheStageTheLastOpeningEventBegan) {
    const TraceEvent& started = find_event(trace, EventKind::node_started, "mul");
    EXPECT_EQ(started.stage, Stage::nodes);
    EXPECT_EQ(started.node, kMul);
    EXPECT_EQ(find_event(trace, EventKind::counting_started).node, kNoTensor);
    const TraceEvent& finished = find_event(trace, EventKind::plan_finished);
    EXPECT_EQ(finished.stage, Stage::buffers);
    EXPECT_EQ(finished.node, kNoTensor);  // the node loop is over
    EXPECT_EQ(find_event(trace, EventKind::tensor_initialised, "a").node, kNoTensor);
}

TEST(TraceKinds, NamesRoundTrip) {
    for (std::size_t k = 0; k < kEventKindCount; ++k) {
        const auto kind = static_cast<EventKind>(k);
        EXPECT_EQ(parse_kind(kind_name(kind)), kind);
    }
    EXPECT_EQ(parse_kind("no-such-kind"), std::nullopt);
}

// Tensors are ids, not pointers: two runs on separately loaded graphs give the same trace.
TEST(TraceRecording, DoesNotDependOnWhereTensorsLive) {
    GraphFile first = seed_example();
    GraphFile second = seed_example();
    const Trace one = record_trace(first);
    const Trace two = record_trace(second);
    ASSERT_EQ(one.size(), two.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
        EXPECT_EQ(event_to_json(one, i, ""), event_to_json(two, i, "")) << "event " << i + 1;
    }
}

// A name with a quote and a backslash, and one with an accent and a bell, are escaped in the
// event JSON (which is ASCII throughout) and parse back to exactly the names given.
TEST(TraceJson, NamesThatNeedEscapesParseBackExactly) {
    GraphFile file = seed_example();
    const std::string quoted = "quote\"back\\slash", accented = "caf\xc3\xa9 \x07";
    file.context.find("a")->name = quoted;
    file.context.find("b")->name = accented;
    const Trace trace = record_trace(file);
    ASSERT_EQ(trace.error, "");
    ASSERT_GT(trace.size(), 0u);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const std::string text = event_to_json(trace, i, "");
        ASSERT_TRUE(std::ranges::all_of(text, [](char c) { return c >= 0x20 && c < 0x7F; })) << text;
        const auto event = nlohmann::json::parse(text);
        for (const auto& name : event.at("tensors")) {
            seen.insert(name.get<std::string>());
        }
    }
    EXPECT_TRUE(seen.contains(quoted));
    EXPECT_TRUE(seen.contains(accented));
    EXPECT_TRUE(seen.contains("mul"));  // the plain name, copied as it is
}

// Ids that name one buffer type share its allocator, and the lowest of them names the
// buffer: x, planned under id 2, lives in buffer 0.
TEST(TraceRecording, BufferIdsOfOneTypeShareAnAllocator) {
    GraphFile file = parse_graph_file(R"({"format": "ggml-graph/1",
        "buffer_types": [{"name": "CPU", "alignment": 32}, {"name": "CUDA0", "alignment": 128}],
        "buffers": ["CPU", "CUDA0", "CPU"],
        "tensors": [{"name": "x", "ne": [8], "flags": ["input"]},
                    {"name": "y", "ne": [8], "op": "CONT", "src": ["x"], "flags": ["output"]}],
        "leafs": ["x"], "nodes": ["y"], "leaf_buffer_ids": [2], "node_buffer_ids": [1]})",
                                      "shared.json");
    const Trace trace = record_trace(file);
    ASSERT_EQ(trace.buffers.size(), 3u);
    EXPECT_EQ(trace.allocator_count, 2);
    EXPECT_EQ(trace.buffer(2).allocator, 0);
    EXPECT_EQ(trace.buffer(2).canonical_id, 0);
    EXPECT_EQ(trace.buffer(1).alignment, 128u);
    EXPECT_EQ(trace.allocator_buffer_ids(), (std::vector<int>{0, 1}));
    const SimState end = replay(trace, trace.size());
    EXPECT_EQ(end.tensor(0).record.buffer_id, 2);
    EXPECT_EQ(end.tensor(0).placement, (Placement{0, 0, 0}));
    EXPECT_EQ(end.tensor(1).placement, (Placement{1, 0, 0}));
    EXPECT_EQ(end.allocator_of(trace, 1).buffer, std::optional(std::vector<std::size_t>{128}));
}

// --- Replay ---------------------------------------------------------------------------

// After the leafs (once b is placed):
//
//   0        32       64
//   +--------+--------+----------------------------
//   |   a    |   b    |  free: the tail, unbounded
//   +--------+--------+----------------------------
//
// After b is freed: mul lives in a's slot, b's slot joined the tail.
//
//   0        32
//   +--------+-----------------------------------
//   | mul=a  |  free: the tail from 32
//   +--------+-----------------------------------
TEST_F(SeedTrace, ReplayShowsTheArenaAtEachStep) {
    const std::size_t b_placed = find_step(trace, EventKind::leaf_allocated, "b");
    const SimState leafs = replay(trace, b_placed);
    EXPECT_EQ(leafs.position, b_placed);
    ASSERT_EQ(leafs.allocators.size(), 1u);
    EXPECT_EQ(leafs.allocators[0].chunks, (std::vector<Chunk>{{{{64, kTail - 64}}, 64}}));
    EXPECT_EQ(leafs.tensor(kA).record, (HashNode{0, 0, 0, {0, 0}, true}));
    EXPECT_EQ(leafs.tensor(kB).record, (HashNode{0, 0, 0, {0, 32}, true}));
    EXPECT_EQ(live_tensors(leafs), (std::vector<TensorId>{kA, kB}));
    EXPECT_EQ(live_bytes(leafs), 64u);

    const SimState counted = replay(trace, find_step(trace, EventKind::consumer_counted, "b", "mul"));
    EXPECT_EQ(counted.tensor(kA).record.children, 1);
    EXPECT_EQ(counted.tensor(kB).record.children, 1);

    const SimState freed = replay(trace, find_step(trace, EventKind::tensor_freed, "b"));
    EXPECT_EQ(freed.allocators[0].chunks, (std::vector<Chunk>{{{{32, kTail - 32}}, 64}}));
    EXPECT_EQ(freed.tensor(kA).life, TensorLife::handed_over);
    EXPECT_EQ(freed.tensor(kA).handed_to, kMul);
    EXPECT_EQ(freed.tensor(kMul).in_place_of, kA);
    EXPECT_EQ(freed.tensor(kB).life, TensorLife::freed);
    EXPECT_EQ(live_tensors(freed), std::vector<TensorId>{kMul});
    EXPECT_EQ(live_bytes(freed), 32u);
    EXPECT_EQ(memory_stats(freed), (MemoryStats{32, 64, 32, 32, 0.0}));

    const SimState end = replay(trace, trace.size());
    EXPECT_EQ(end.allocators[0].buffer, std::optional(std::vector<std::size_t>{64}));
    EXPECT_EQ(end.tensor(kB).placement, (Placement{0, 0, 32}));
    EXPECT_EQ(end.tensor(kMul).placement, (Placement{0, 0, 0}));
    EXPECT_EQ(end.tensor(kMul).data, ConfigurableBufferType::kFakeBase);
}

// Holes below the high-water mark: with free blocks [32, 64) and [96, 160) in a chunk of
// 160 bytes, 96 bytes are free and the largest hole is 64, so 1 - 64/96 = 1/3 is
// fragmented. The tail past the high-water mark does not count.
//
//   0        32       64       96                160
//   +--------+--------+--------+-----------------+------
//   |  used  |  free  |  used  |      free       | tail
//   +--------+--------+--------+-----------------+------
TEST(MemoryStats, CountOnlyHolesBelowTheHighWaterMark) {
    AllocatorState allocator;
    allocator.chunks = {{{{32, 32}, {96, kTail - 96}}, 160}};
    allocator.live_bytes = 64;
    const MemoryStats stats = memory_stats(allocator);
    EXPECT_EQ(stats.high_water, 160u);
    EXPECT_EQ(stats.free_bytes, 96u);
    EXPECT_EQ(stats.largest_free, 64u);
    EXPECT_DOUBLE_EQ(stats.fragmentation, 1.0 - 64.0 / 96.0);
}

TEST(TraceReplay, RejectsAnEventThatDoesNotFitTheState) {
    GraphFile file = seed_example();
    Trace trace = record_trace(file);
    const std::size_t b_placed = find_step(trace, EventKind::leaf_allocated, "b");
    const std::size_t b_taken = find_event<event::TensorAllocated>(trace, EventKind::leaf_allocated, "b").taken;
    trace.blocks_taken[b_taken].block = 5;  // b's block does not exist
    SimState state = replay(trace, b_placed - 1);  // the state b's allocation applies to
    EXPECT_THROW(apply_next(state, trace), std::logic_error);
}

// The heart of replay: from events alone, every golden file ends exactly where the
// reference allocator ends (free lists, high-water marks, buffers, hash nodes, places).
TEST(TraceReplay, EveryGoldenFileEndsInTheReferencesState) {
    const auto& goldens = test_support::golden_traces();
    if (goldens.empty()) {
        GTEST_SKIP() << "no golden corpus at " << test_support::golden_dir();
    }
    for (const auto& golden : goldens) {
        SCOPED_TRACE(golden.name);
        const Trace& trace = *golden.trace;
        ASSERT_TRUE(trace.error.empty()) << trace.error;
        const SimState end = replay(trace, trace.size());
        ASSERT_EQ(end.allocators.size(), golden.chunks.size());
        for (std::size_t a = 0; a < golden.chunks.size(); ++a) {
            EXPECT_EQ(end.allocators[a].chunks, golden.chunks[a]) << "allocator " << a;
            EXPECT_EQ(end.allocators[a].buffer.value_or(std::vector<std::size_t>{}), golden.buffer_chunks[a]);
        }
        for (std::size_t t = 0; t < trace.tensors.size(); ++t) {
            const TensorState& state = end.tensors[t];
            EXPECT_EQ(state.record, golden.hash_nodes[t].value_or(HashNode{})) << trace.tensors[t].name;
            EXPECT_EQ(state.placement, golden.placements[t]) << trace.tensors[t].name;
            EXPECT_EQ(state.life == TensorLife::live, state.record.allocated) << trace.tensors[t].name;
        }
    }
}

// Live bytes are counted from allocations and frees; the free lists must agree at every
// step: what is not free below the high-water mark is in use.
TEST(TraceReplay, LiveBytesAreTheHighWaterMarkLessTheHolesAtEveryStep) {
    const auto& goldens = test_support::golden_traces();
    if (goldens.empty()) {
        GTEST_SKIP() << "no golden corpus at " << test_support::golden_dir();
    }
    for (const auto& golden : goldens) {
        SCOPED_TRACE(golden.name);
        SimState state = initial_state(*golden.trace);
        while (state.position < golden.trace->size()) {
            apply_next(state, *golden.trace);
            for (const AllocatorState& allocator : state.allocators) {
                const MemoryStats stats = memory_stats(allocator);
                ASSERT_EQ(stats.live_bytes, stats.high_water - stats.free_bytes) << "after step " << state.position;
            }
        }
    }
}

// A range holds [offset, offset + size) of its chunk; a 0-byte range holds no byte wherever its
// offset lies (issue 55: a 0-byte tensor "at offset 16" inside another tensor's bytes [12, 20)
// touches none of them). Values by hand, from the half-open intervals:
//
//   chunk 0:  12 ........ 20
//             [ 8 bytes  )         shares with [19, 21) (byte 19), not with [20, 24) or [8, 12)
//                 ^ 16: a 0-byte range, shares nothing, nor does a 0-byte query at 16
TEST(MemoryRange, SharesOnlyBytesItHolds) {
    const MemoryRange eight{.buffer_id = 0, .chunk = 0, .offset = 12, .size = 8};
    EXPECT_EQ(eight.end(), 20u);
    EXPECT_TRUE(eight.shares_a_byte_with(0, 19, 2));
    EXPECT_TRUE(eight.shares_a_byte_with(0, 0, 13));
    EXPECT_FALSE(eight.shares_a_byte_with(0, 20, 4));
    EXPECT_FALSE(eight.shares_a_byte_with(0, 8, 4));
    EXPECT_FALSE(eight.shares_a_byte_with(1, 12, 8));  // the same bytes of another chunk
    EXPECT_FALSE(eight.shares_a_byte_with(0, 16, 0));
    const MemoryRange empty{.buffer_id = 0, .chunk = 0, .offset = 16, .size = 0};
    EXPECT_FALSE(empty.shares_a_byte_with(0, 12, 8));
    EXPECT_FALSE(empty.shares_a_byte_with(0, 16, 1));
}

} // namespace
} // namespace gallocsim
