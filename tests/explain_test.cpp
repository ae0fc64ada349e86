// Explanations, sentence for sentence: the seed graph from start to end, then small
// graphs that each make one rule decide (in-place reuse and its rejections, best fit,
// tails, chunks, views, early inputs, merges on free).
//
// This is the one suite that holds the sentences; the trace and walk commands and the GUI
// are checked to show what explain() says, not these words again.
#include "simulator/model/examples.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/model/graph_file.hpp"

#include "explained_steps.hpp"

#include <gtest/gtest.h>

namespace gallocsim {
namespace {

using Steps = test_support::ExplainedSteps;  // steps.of(kind, tensors...): what explain() says of that event

TEST(Explain, TheSeedGraphStepByStep) {
    const Steps steps(seed_example());
    const std::vector<std::string> expected{
        "reserve_n starts planning where 2 leafs and 1 node go in buffer 0 (CPU, 32-byte alignment).",
        "Buffer 0 has no chunk yet, so chunk 0 is created for a: one free block from offset 0 with no end "
        "(SIZE_MAX/2 bytes), as the buffer type sets no max size.",
        "Leaf a needs 4 bytes (32 once aligned to 32) and goes at offset 0, the start of the new chunk 0, which grows "
        "to 32 bytes.",
        "Leaf b needs 4 bytes (32 once aligned to 32) and goes at offset 32: there is no free block but the tail, so b "
        "takes the start of the tail, and the chunk grows from 32 to 64 bytes.",
        "The counting pass starts: it goes through the nodes in order, counting each tensor's consumers and views, and "
        "gives graph inputs memory now so that nothing planned later can take it.",
        "mul reads a: a now has 1 consumer.",
        "mul reads b: b now has 1 consumer.",
        "Node 1 of 1: mul = MUL(a, b). MUL can run in place, so mul first tries to take over the memory of a parent it "
        "is the last to read.",
        "mul reuses a's memory at offset 0: MUL can run in place, and a has one consumer left (mul itself), no views, "
        "the same layout and no output flag.",
        "mul has run: a has no consumers or views left, but its memory now belongs to mul, so nothing is freed.",
        "mul has run: b has no consumers or views left, so it is freed next.",
        "b is freed: its last consumer, mul, has run. Its 32 bytes at offset 32 join the free block after them, and "
        "the tail now starts at offset 32.",
        "Buffer 0 (CPU) is allocated: one chunk of 64 bytes.",
        "reserve_n is done: buffer 0 needs 64 bytes.",
        "alloc_graph places a at the buffer's base + offset 0 = 0x10000000.",
        "alloc_graph places b at the buffer's base + offset 32 = 0x10000020.",
        "alloc_graph places mul at the buffer's base + offset 0 = 0x10000000, the same address as a, whose memory it "
        "reuses.",
    };
    ASSERT_EQ(steps.size(), expected.size());
    for (std::size_t step = 1; step <= expected.size(); ++step) {
        EXPECT_EQ(steps[step], expected[step - 1]) << "step " << step;
    }
}

// A policy that runs MUL_MAT in place is unsafe (no ggml kernel can: docs/policies.md), and the
// trace must not tell the reader a backend could do it.
TEST(Explain, AnOpInPlaceOnlyByAnUnsafePolicyIsSaidSo) {
    AllocatorProfile unsafe = newest_profile();
    unsafe.inplace_ops = unsafe.inplace_ops.with(Op::MUL_MAT);
    unsafe.unsafe = true;
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [4, 4], "flags": ["input"]}, {"name": "b", "ne": [4, 4], "flags": ["input"]},
                    {"name": "c", "ne": [4, 4], "op": "MUL_MAT", "src": ["a", "b"], "flags": ["output"]}],
        "leafs": ["a", "b"], "nodes": ["c"]})",
                      unsafe);
    EXPECT_EQ(steps.of(EventKind::node_started, "c"),
              "Node 1 of 1: c = MUL_MAT(a, b). MUL_MAT runs in place by this unsafe policy, though no ggml kernel can run "
              "it over its source, so c first tries to take over the memory of a parent it is the last to read.");
}

// y = w + x: w is a weight (external memory), and x is read again by z, so y cannot run
// in place; z = x * y is x's last reader and takes x's slot.
TEST(Explain, InPlaceNeedsAnOwnedParentWithOneConsumerLeft) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "w", "ne": [8], "data": true},
            {"name": "x", "ne": [8], "flags": ["input"]},
            {"name": "y", "ne": [8], "op": "ADD", "src": ["w", "x"]},
            {"name": "z", "ne": [8], "op": "MUL", "src": ["x", "y"], "flags": ["output"]}],
        "leafs": ["w", "x"], "nodes": ["y", "z"]})");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "y", "w"),
              "y cannot reuse w's memory in place: w lives in memory the allocator does not own.");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "y", "x"),
              "y cannot reuse x's memory in place: x still has 2 consumers, so y is not the last to read it.");
    EXPECT_EQ(steps.of(EventKind::parent_released, "w", "y"),
              "y has run: w has no consumers or views left, and its memory is not the allocator's to free.");
    EXPECT_EQ(steps.of(EventKind::parent_released, "x", "y"), "y has run: x has 1 consumer left.");
    EXPECT_EQ(steps.of(EventKind::in_place_reused, "z", "x"),
              "z reuses x's memory at offset 0: MUL can run in place, and x has one consumer left (z itself), "
              "no views, the same layout and no output flag.");
}

// The same graph with w in a buffer without data (a no_alloc load's weight): since 0a2b6b20
// ggml counts it as allocated and never owns it, so it is refused and never freed alike, with
// the reason its own.
TEST(Explain, ATensorInABufferWithoutDataIsNotTheAllocators) {
    const Steps steps(R"({"format": "ggml-graph/2", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "w", "ne": [8], "data": "buffer"},
            {"name": "x", "ne": [8], "flags": ["input"]},
            {"name": "y", "ne": [8], "op": "ADD", "src": ["w", "x"]},
            {"name": "z", "ne": [8], "op": "MUL", "src": ["x", "y"], "flags": ["output"]}],
        "leafs": ["w", "x"], "nodes": ["y", "z"]})");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "y", "w"),
              "y cannot reuse w's memory in place: w is in a buffer the allocator does not own (no data yet).");
    EXPECT_EQ(steps.of(EventKind::parent_released, "w", "y"),
              "y has run: w has no consumers or views left, and its memory is not the allocator's to free.");
}

// s = scale(a) with a an output; c = h + g tries h (f16) before g; d has another shape.
//
// At the end (h, s and c freed; a kept as an output):
//
//   0        32                         128               192
//   +--------+--------------------------+-----------------+------
//   |   a    |  free: 96 bytes          |        d        | tail
//   +--------+--------------------------+-----------------+------
TEST(Explain, OutputsAndLayoutsBlockInPlaceReuse) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "a", "ne": [8], "flags": ["input", "output"]},
            {"name": "h", "type": "f16", "ne": [8], "flags": ["input"]},
            {"name": "g", "ne": [8], "flags": ["input"]},
            {"name": "s", "ne": [8], "op": "SCALE", "src": ["a"]},
            {"name": "c", "ne": [8], "op": "ADD", "src": ["h", "g"]},
            {"name": "d", "ne": [8, 2], "op": "ADD", "src": ["s", "c"]}],
        "leafs": ["a", "h", "g"], "nodes": ["s", "c", "d"]})");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "s", "a"),
              "s cannot reuse a's memory in place: a is a graph output, and outputs are never overwritten.");
    EXPECT_EQ(steps.of(EventKind::parent_released, "a", "s"),
              "s has run: a has no consumers or views left, but it is a graph output, so it is kept.");
    EXPECT_EQ(steps.of(EventKind::output_kept, "a"),
              "a is no longer needed by the graph, but it is a graph output, so its memory is kept: outputs "
              "are never freed.");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "c", "h"),
              "c cannot reuse h's memory in place: h is f16 and c is f32.");
    EXPECT_EQ(steps.of(EventKind::in_place_reused, "c", "g"),
              "c reuses g's memory at offset 64: ADD can run in place, and g has one consumer left (c itself), "
              "no views, the same layout and no output flag.");
    EXPECT_EQ(steps.of(EventKind::tensor_freed, "h"),
              "h is freed: its last consumer, c, has run. Its 32 bytes at offset 32 become a new free block, "
              "touching no other.");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "d", "s"),
              "d cannot reuse s's memory in place: s has shape [8] and d has [8, 2].");
    EXPECT_EQ(steps.of(EventKind::node_allocated, "d"),
              "d needs 64 bytes and goes at offset 128: the one free block before the tail is too small, so d "
              "takes the start of the tail, and the chunk grows from 128 to 192 bytes.");
    EXPECT_EQ(steps.of(EventKind::tensor_freed, "c"),
              "c is freed: its last consumer, d, has run. Its 32 bytes at offset 64 join the free blocks on "
              "both sides into one free block of 96 bytes at offset 32.");
}

// v views a from byte 16; s = scale(v). A view owns nothing, and a lives until v is done.
TEST(Explain, ViewsKeepTheirSourceAlive) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "a", "ne": [8], "flags": ["input"]},
            {"name": "v", "ne": [4], "op": "VIEW", "src": ["a"], "view_src": "a", "view_offs": 16},
            {"name": "s", "ne": [4], "op": "SCALE", "src": ["v"], "flags": ["output"]}],
        "leafs": ["a"], "nodes": ["v", "s"]})");
    EXPECT_EQ(steps.of(EventKind::view_counted, "a", "v"),
              "v is a view of a: a now has 1 view, and keeps its memory until they are released.");
    EXPECT_EQ(steps.of(EventKind::node_started, "v"),
              "Node 1 of 2: v = VIEW(a). It is a view of a, so it gets no memory of its own.");
    EXPECT_EQ(steps.of(EventKind::parent_released, "a", "v"), "v has run: a has no consumers left and 1 view.");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "s", "v"),
              "s cannot reuse v's memory in place: v is a view of a and owns no memory.");
    EXPECT_EQ(steps.of(EventKind::parent_released, "v", "s"),
              "s has run: v has no consumers or views left, and as a view it gives its source a one view back.");
    EXPECT_EQ(steps.of(EventKind::view_released, "a", "v"),
              "v is done: its source a now has no consumers or views left, so it is freed next.");
    EXPECT_EQ(steps.of(EventKind::tensor_freed, "a"),
              "a is freed: its last view, v, is done and nothing else reads it. Its 32 bytes at offset 0 "
              "become a new free block, touching no other.");
    EXPECT_EQ(steps.of(EventKind::tensor_initialised, "v"),
              "alloc_graph sets up view v inside a: a's address + 16 = 0x10000010.");
}

// Three leafs, then copies that leave holes:
//
//   after B is freed (step 17)         after A is freed (step 21)
//   0    32        96   128  160       0    32   64   96   128  160
//   +----+---------+----+----+---     +----+----+----+----+----+---
//   | A  |  free   | C  | n1 | tail   |free| n2 |free| C  | n1 | tail
//   +----+---------+----+----+---     +----+----+----+----+----+---
//
// n2 takes the only hole and splits it; n3 then has two equal holes and takes the later.
TEST(Explain, BestFitNamesTheBlockAndTheTieBreak) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "A", "ne": [8], "flags": ["input"]},
            {"name": "B", "ne": [16], "flags": ["input"]},
            {"name": "C", "ne": [8], "flags": ["input"]},
            {"name": "n1", "ne": [8], "op": "CONT", "src": ["B"]},
            {"name": "n2", "ne": [8], "op": "CONT", "src": ["A"]},
            {"name": "n3", "ne": [8], "op": "CONT", "src": ["C"]},
            {"name": "out", "ne": [8], "op": "MUL_MAT", "src": ["n1", "n2"]},
            {"name": "out2", "ne": [8], "op": "MUL_MAT", "src": ["out", "n3"], "flags": ["output"]}],
        "leafs": ["A", "B", "C"], "nodes": ["n1", "n2", "n3", "out", "out2"]})");
    EXPECT_EQ(steps.of(EventKind::node_started, "n1"),
              "Node 1 of 5: n1 = CONT(B). CONT cannot run in place, so n1 needs a free block of its own.");
    EXPECT_EQ(steps.of(EventKind::node_allocated, "n2"),
              "n2 needs 32 bytes and goes at offset 32: the only free block before the tail that fits has 64 "
              "bytes there, so 32 bytes stay free at offset 64.");
    EXPECT_EQ(steps.of(EventKind::node_allocated, "n3"),
              "n3 needs 32 bytes and goes at offset 64: the best fit among 2 free blocks that fit has 32 bytes "
              "there, all used (of 2 blocks of that size, the last one wins).");
    EXPECT_EQ(steps.of(EventKind::tensor_freed, "n1"),
              "n1 is freed: its last consumer, out, has run. Its 32 bytes at offset 128 join the free block "
              "after them, and the tail now starts at offset 128.");
    EXPECT_EQ(steps.of(EventKind::tensor_freed, "n2"),
              "n2 is freed: its last consumer, out, has run. Its 32 bytes at offset 32 join the free block "
              "before them into one free block of 64 bytes at offset 0.");
}

// Chunks of at most 96 bytes: q (128 bytes) gets a chunk of its own; later two tails fit
// and the reuse factor picks the one that leaves least unused.
TEST(Explain, ChunksAndReuseFactors) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "test", "alignment": 32, "max_size": 96}],
        "tensors": [
            {"name": "in", "ne": [8], "flags": ["input"]},
            {"name": "p", "ne": [16], "op": "CONT", "src": ["in"]},
            {"name": "q", "ne": [32], "op": "CONT", "src": ["p"]},
            {"name": "r", "ne": [8], "op": "CONT", "src": ["q"]},
            {"name": "s", "ne": [8], "op": "CONT", "src": ["r"], "flags": ["output"]}],
        "leafs": ["in"], "nodes": ["p", "q", "r", "s"]})");
    EXPECT_EQ(steps.of(EventKind::plan_started),
              "reserve_n starts planning where 1 leaf and 4 nodes go in buffer 0 (test, 32-byte alignment, "
              "chunks of at most 96 bytes).");
    EXPECT_EQ(steps.of(EventKind::chunk_created, "in"),
              "Buffer 0 has no chunk yet, so chunk 0 is created for in: one free block of 96 bytes, the buffer "
              "type's max size.");
    EXPECT_EQ(steps.of(EventKind::node_allocated, "p"),
              "p needs 64 bytes and goes at offset 32: there is no free block but the tail, so p takes all of "
              "the tail, and the chunk grows from 32 to 96 bytes.");
    EXPECT_EQ(steps.of(EventKind::chunk_created, "q"),
              "No free block in chunk 0 can hold q's 128 bytes, so chunk 1 is created: one free block of 128 "
              "bytes, more than the max size of 96 bytes, because q alone needs that much.");
    EXPECT_EQ(steps.of(EventKind::node_allocated, "q"),
              "q needs 128 bytes and goes at offset 0 of chunk 1, the start of the new chunk 1, which grows to "
              "128 bytes.");
    EXPECT_EQ(steps.of(EventKind::node_allocated, "s"),
              "s needs 32 bytes and goes at offset 32 of chunk 0: no chunk has a free block before its tail, so "
              "s takes the start of chunk 0's tail, chosen among 2 tails that fit by its reuse factor 32 (it "
              "fits below the high-water mark and leaves the least unused), and the chunk does not grow: it "
              "stays 96 bytes.");
    EXPECT_EQ(steps.of(EventKind::buffer_allocated), "Buffer 0 (test) is allocated as 2 chunks of 96 and 128 bytes.");
    EXPECT_EQ(steps.of(EventKind::plan_finished), "reserve_n is done: buffer 0 needs 224 bytes in 2 chunks (96, 128).");
    EXPECT_EQ(steps.of(EventKind::tensor_initialised, "q"),
              "alloc_graph places q at the base of chunk 1 + offset 0 = 0x10000000.");
}

// Nodes flagged input are allocated during the counting pass, when consumers are only
// partly counted: w takes x's memory on a count of one that is not final, and x, a
// parent of y, then gets memory a second time (as upstream does).
TEST(Explain, InputsAllocatedWhileCounting) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "x", "ne": [8]},
            {"name": "k", "ne": [8]},
            {"name": "y", "ne": [8], "op": "SQR", "src": ["x"]},
            {"name": "z", "ne": [8], "op": "SCALE", "src": ["y"], "flags": ["input"]},
            {"name": "u", "ne": [8], "op": "SCALE", "src": ["k"], "flags": ["input"]},
            {"name": "w", "ne": [8], "op": "SCALE", "src": ["x"], "flags": ["input"]},
            {"name": "o", "ne": [8], "op": "ADD", "src": ["z", "u"], "flags": ["output"]}],
        "leafs": ["x", "k"], "nodes": ["y", "z", "u", "w", "o"]})");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "z", "y"),
              "z cannot reuse y's memory in place: y has no memory from the allocator yet.");
    EXPECT_EQ(steps.of(EventKind::input_allocated, "z"),
              "Input z needs 32 bytes and goes at offset 64: there is no free block but the tail, so z takes "
              "the start of the tail, and the chunk grows from 64 to 96 bytes. Inputs get memory while "
              "counting, before any node runs, so nothing planned later can take it.");
    EXPECT_EQ(steps.of(EventKind::in_place_rejected, "u", "k"),
              "u cannot reuse k's memory in place: k's consumers are not counted yet.");
    EXPECT_EQ(steps.of(EventKind::in_place_reused, "w", "x"),
              "w reuses x's memory at offset 0: SCALE can run in place, and x has exactly one consumer counted "
              "so far, no views, the same layout and no output flag (the counting pass has not finished, so "
              "this count is not the final one).");
    EXPECT_EQ(steps.of(EventKind::parent_allocated, "x"),
              "x, a parent of y whose memory went to w in place, needs 32 bytes and goes at offset 128: there "
              "is no free block but the tail, so x takes the start of the tail, and the chunk grows from 128 "
              "to 160 bytes.");
    EXPECT_EQ(steps.of(EventKind::node_started, "z"),
              "Node 2 of 5: z = SCALE(y). It already has memory: it was allocated early, as a graph input.");
}

// The reference frees the part of a larger parent that an in-place node does not need;
// with ggml's layout rule that never happens in a real run, so the trace is made by hand:
// p (64 bytes at 0) is taken over by n (32 bytes), and [32, 64) joins the tail.
TEST(Explain, ExtraSpaceAfterAnInPlaceNode) {
    constexpr std::size_t kTail = SIZE_MAX / 2;
    Trace trace;
    trace.tensors = TraceTensors({{.name = "p", .ne = {16, 1, 1, 1}, .bytes = 64}, {.name = "n", .op = Op::SCALE, .bytes = 32}});
    trace.buffers = {{"CPU", 32, kSizeMax, 0, 0}};
    trace.allocator_count = 1;
    const TensorId p = 0, n = 1;
    const AllocationDecision new_chunk{.address = {0, 0}, .size = 64, .choice = BlockChoice::new_chunk,
                                       .block_before = {0, kTail}, .high_water_after = 64};
    trace.blocks_taken = {BlockTaken{new_chunk, {}}};
    // [32, 64) meets the tail at 64: the chunk's one free block, now from 32.
    trace.blocks_freed = {{.address = {0, 32}, .size = 32, .merge = MergeKind::next, .block = 0,
                           .result = {32, kTail - 32}, .free_blocks_after = 1}};
    trace.events = {
        {Stage::leafs, kNoTensor, Recorded<event::PlanStarted>{}},
        {Stage::nodes, n, Recorded<event::ChunkCreated>{0, 0, kTail, p, 64}},
        {Stage::nodes, n, Recorded<event::TensorAllocated>{p, 0, AllocationPhase::node, 64, 0}},
        {Stage::nodes, n, Recorded<event::InPlaceReused>{n, p, kNoTensor, 0, {0, 0}, 32}},
        {Stage::nodes, n, Recorded<event::ExtraSpaceFreed>{n, p, 0, 0}},
    };
    const SimState before = replay(trace, 4);
    EXPECT_EQ(explain(trace, before, 4), "p's block is larger than n needs (64 bytes against 32 bytes): the 32 bytes "
                                         "past n's end, at offset 32, join the free block after them, and the tail now "
                                         "starts at offset 32.");
    const SimState after = replay(trace, 5);
    EXPECT_EQ(after.allocators[0].chunks, (std::vector<Chunk>{{{{32, kTail - 32}}, 64}}));
    EXPECT_EQ(after.allocators[0].live_bytes, 32u);
}

TEST(Explain, CountsTakeAPluralS) {
    EXPECT_EQ(byte_count(1), "1 byte");
    EXPECT_EQ(byte_count(0), "0 bytes");
    EXPECT_EQ(byte_count(64), "64 bytes");
    EXPECT_EQ(counted(1, "view"), "1 view");
    EXPECT_EQ(counted(2, "consumer"), "2 consumers");
}

// nodes: ["d", "c"], d = MUL(c, a) run before c = ADD(a, b) (alignment 32, each tensor 32 bytes):
//
//   d's step: c gets memory as d's source, in b's block (c is b's one consumer);
//             d takes c's block in place (c's one counted consumer is d)
//   c's step: b has no memory left: placed again at the tail; c has none either: it takes a's
//             block in place (d has run, so c is a's last reader)
//
//   0      32      64      96           final plan: a 0, b 64, c 0, d 32
//   | a, c | b->c->d | b  |
TEST(Explain, ATensorPlacedTwiceIsAnEventOfItsOwn) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
            {"name": "a", "ne": [4]}, {"name": "b", "ne": [4]},
            {"name": "c", "ne": [4], "op": "ADD", "src": ["a", "b"]},
            {"name": "d", "ne": [4], "op": "MUL", "src": ["c", "a"], "flags": ["output"]}],
        "leafs": ["a", "b"], "nodes": ["d", "c"]})");
    const std::size_t c_into_b = steps.step_of(EventKind::in_place_reused, "c", "b");
    const std::size_t d_into_c = steps.step_of(EventKind::in_place_reused, "d", "c");
    EXPECT_EQ(steps.of(EventKind::parent_allocated, "b"),
              "b, a parent of c whose memory went to c in place, needs 16 bytes (32 once aligned to 32) and goes at offset "
              "64: there is no free block but the tail, so b takes the start of the tail, and the chunk grows from 64 to 96 "
              "bytes.");
    EXPECT_EQ(steps.of(EventKind::placed_again, "b"),
              "b is placed a second time: it had memory at offset 32, but that memory went to c in place (event " +
                  std::to_string(c_into_b) +
                  "), and ggml, meeting b again as a source of c with no memory of its own, gives it offset 64. Only this "
                  "last place counts: it is where alloc_graph puts b and what the plan shows; whatever read or wrote b at "
                  "its first place did so in bytes it no longer has.");
    EXPECT_EQ(steps.step_of(EventKind::placed_again, "b"), steps.step_of(EventKind::parent_allocated, "b") + 1);
    EXPECT_EQ(steps.of(EventKind::placed_again, "c"),
              "c is placed a second time: it had memory at offset 32, but that memory went to d in place (event " +
                  std::to_string(d_into_c) +
                  "), and ggml, meeting c again as it runs with no memory of its own, gives it offset 0. Only this last "
                  "place counts: it is where alloc_graph puts c and what the plan shows; whatever read or wrote c at its "
                  "first place did so in bytes it no longer has.");
    EXPECT_EQ(steps.of(EventKind::tensor_initialised, "d"),
              "alloc_graph places d at the buffer's base + offset 32 = 0x10000020, the memory it took over from c in place "
              "(c was placed again after, elsewhere).");
    EXPECT_EQ(steps.of(EventKind::tensor_initialised, "c"),
              "alloc_graph places c at the buffer's base + offset 0 = 0x10000000, the same address as a, whose memory it "
              "reuses.");
}

// x = ADD(x, a) (x names itself, as ggml_cast's CPY does): x, met first as its own source, takes
// a's block in place; a, met next as x's source, has no memory left and is placed again.
TEST(Explain, ANodeReadingItselfLeavesItsParentPlacedAgain) {
    const Steps steps(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [4]}, {"name": "x", "ne": [4], "op": "ADD", "src": ["x", "a"], "flags": ["output"]}],
        "leafs": ["a"], "nodes": ["x"]})");
    EXPECT_EQ(steps.of(EventKind::in_place_reused, "x", "a").substr(0, 34), "x reuses a's memory at offset 0: A");
    EXPECT_EQ(steps.of(EventKind::tensor_initialised, "x"),
              "alloc_graph places x at the buffer's base + offset 0 = 0x10000000, the memory it took over from a in place "
              "(a was placed again after, elsewhere).");
    EXPECT_EQ(steps.of(EventKind::tensor_initialised, "a"), "alloc_graph places a at the buffer's base + offset 32 = 0x10000020.");
}

} // namespace
} // namespace gallocsim
