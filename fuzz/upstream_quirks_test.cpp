// What the properties found that upstream ggml really does (gallocsim reproduces it on
// purpose), pinned down as small exact cases, and the checks that found them.
#include "fuzz/free_list.hpp"
#include "fuzz/independent_checks.hpp"
#include "reference/builder.hpp"
#include "simulator/model/plan.hpp"

#include <gtest/gtest.h>

namespace gallocsim::fuzz {
namespace {

constexpr std::size_t kUnbounded = SIZE_MAX / 2;  // the first chunk's tail with no max_size

// A zero-byte tensor takes no bytes: it is placed at the start of a free block and the
// block stays. Freed where no block touches it, it becomes a zero-size block at its place
// in the list, and a later free that touches it merges into it there, not into the real
// neighbour:
//
//   A, B, C: 10 bytes each at 0, 10, 20. Free B; Z (0 B) is placed at 10; free A (it
//   merges with [10,20) into [0,20)); free Z: no block touches 10, so {10, 0} is
//   inserted before the tail. D (10 B) takes 0, E (5 B) takes 10:
//     free list: [15,20) {10,0} [30,tail)
//   free D = [0,10): it touches {10,0} first and merges into it, after [15,20);
//   free E = [10,15): it merges with [15,20), and the scan stops:
//
//   0         10        20        30
//   +---------+---------+---------+------------
//   | free    | free    |    C    | free (tail)     free list: [10,20) [0,10) [30,tail)
//   +---------+---------+---------+------------     out of order, and touching at 10
//
// so a 20-byte request cannot use [0,20) and goes to the tail at 30.
TEST(UpstreamQuirks, ZeroByteFreeCanLeaveFreeBlocksOutOfOrderAndUnmerged) {
    DynamicAllocator allocator(1, SIZE_MAX);
    const BufferAddress a = allocator.allocate(10).address;
    const BufferAddress b = allocator.allocate(10).address;
    allocator.allocate(10);
    allocator.free(b, 10);
    const BufferAddress z = allocator.allocate(0).address;
    EXPECT_EQ(z, (BufferAddress{0, 10}));
    allocator.free(a, 10);
    allocator.free(z, 0);
    const BufferAddress d = allocator.allocate(10).address;
    const BufferAddress e = allocator.allocate(5).address;
    EXPECT_EQ(allocator.chunks()[0].free_blocks, (std::vector<FreeBlock>{{15, 5}, {10, 0}, {30, kUnbounded - 30}}));
    allocator.free(d, 10);
    allocator.free(e, 5);
    EXPECT_EQ(allocator.chunks()[0].free_blocks, (std::vector<FreeBlock>{{10, 10}, {0, 10}, {30, kUnbounded - 30}}));

    // The checker flags this, unless it is told a zero-byte range was freed.
    LiveRanges live(1);
    live[0].emplace(20, 10);  // C
    EXPECT_EQ(free_list_violations(allocator, live, {false}),
              (std::vector<std::string>{"chunk 0: free blocks [10, 20) and [0, 10) are out of order or overlap"}));
    EXPECT_TRUE(free_list_violations(allocator, live, {true}).empty());

    EXPECT_EQ(allocator.allocate(20).address, (BufferAddress{0, 30}));
}

// Freed after its neighbour merged into the tail, a zero-byte tensor's block is inserted
// after the tail (every block starts before it), and becomes the chunk's last block:
//
//   0   4
//   +---+------------------------------------
//   | w | z (0 B at 4)  tail                    w: 4 bytes, z: 0 bytes
//   +---+------------------------------------
//   free w, then z:   [0, tail), {4, 0}        <- {4, 0} is now "the tail"
TEST(UpstreamQuirks, ZeroByteFreeCanLandAfterTheTail) {
    DynamicAllocator allocator(4, SIZE_MAX);
    const BufferAddress w = allocator.allocate(4).address;
    const BufferAddress z = allocator.allocate(0).address;
    allocator.free(w, 4);
    allocator.free(z, 0);
    EXPECT_EQ(allocator.chunks()[0].free_blocks, (std::vector<FreeBlock>{{0, kUnbounded}, {4, 0}}));
    // The real tail is now an ordinary block to best fit: the next request still gets 0.
    EXPECT_EQ(allocator.allocate(8).address, (BufferAddress{0, 0}));
}

// An upstream bug, reproduced on purpose: ggml_set_input on an op node makes the counting
// pass allocate that node early, while its parents' consumers are only partly counted. If
// its op may run in place and a parent leaf has exactly one consumer counted so far, the
// node takes the leaf's memory in place; the leaf, no longer "allocated", is allocated
// again when its first consumer runs, into whatever is free by then. Leafs get their data
// before compute, so the leaf's new bytes may be another leaf's, still to be read:
//
//   leafs w, c0 (32 B each);  n0 = CONT(w);  n1 = CONT(c0);  n2 = SQRT(c0) [input]
//
//   counting pass:      | w | c0=n2 |                 n2 takes c0's first slot
//   step 1 (n0):        | w | n2 | n0 |               w is freed after n0 reads it
//   step 2 (n1):        | c0 | n2 | n0 | n1 |         c0 is allocated again, over w
//
//   0        32       64       96      128
//   +--------+--------+--------+--------+
//   | w = c0 |   n2   |   n0   |   n1   |   w and c0 both hold data before step 1
//   +--------+--------+--------+--------+
//
// The golden file random-0162-edge shows upstream allocating a leaf twice this way (there
// the second slot happens to be fresh), so gallocsim keeps the behaviour; the properties
// built on lifetimes leave input flags off op nodes, and this test keeps the case in view.
TEST(UpstreamQuirks, InputFlaggedOpNodeCanPutALeafOverAnotherLeaf) {
    GraphFile file;
    file.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
    file.buffers = {0};
    GraphBuilder b(file.context);
    Tensor& w = b.new_tensor(DataType::f32, {8}, "w");
    Tensor& c0 = b.new_tensor(DataType::f32, {8}, "c0");
    Tensor& n0 = b.cont(w);
    Tensor& n1 = b.cont(c0);
    Tensor& n2 = b.unary_op(Op::SQRT, c0);
    n0.name = "n0";
    n1.name = "n1";
    n2.name = "n2";
    set_input(n2);
    for (Tensor* t : {&n0, &n1, &n2}) {
        set_output(*t);
        build_forward_expand(file.graph, *t);
    }

    const PlanRun run = run_plan(file);
    ASSERT_TRUE(run.plan.alloc_graph) << run.error;
    const std::vector<std::pair<std::string, Placement>> expected{
        {"w", {0, 0, 0}}, {"c0", {0, 0, 0}}, {"n0", {0, 0, 64}}, {"n1", {0, 0, 96}}, {"n2", {0, 0, 32}}};
    std::vector<std::pair<std::string, Placement>> placed;
    for (const auto& [id, place] : run.plan.tensors) {
        placed.emplace_back(tensor_name(file.context, id), place);
    }
    EXPECT_EQ(placed, expected);

    const auto problems = overlap_violations(run.planned.graph, Lifetimes(run.planned.graph));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0], "c0 (CPU bytes 0..32, held from step 0 to step 3) shares bytes with "
                           "w (CPU bytes 0..32, held from step 0 to step 1) while both are held");
}

} // namespace
} // namespace gallocsim::fuzz
