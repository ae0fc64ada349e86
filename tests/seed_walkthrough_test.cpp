// The seed walkthrough (shared/seeds/002): a and b, two 1-element f32 inputs, and
// mul = a * b, planned in one 32-aligned CPU buffer. Every number below is one the
// walkthrough shows from gdb. The walkthrough ran the seed-era allocator (ggml f54604ef,
// seeds/004); none of the rules that changed since touches this graph (MUL was always in
// place, one unbounded buffer is one chunk, same-layout reuse frees no extra space), so every
// profile must show the same numbers.
#include "reference/builder.hpp"
#include "reference/graph_allocator.hpp"
#include "reference/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim {
namespace {

// Records the dynamic allocator's free blocks after the leafs are placed.
class LeafWatcher : public EventListener {
public:
    explicit LeafWatcher(const GraphAllocator& allocator) : allocator_(&allocator) {}
    void on_event(const ObservedEvent& event) override {
        if (const auto* allocated = std::get_if<Observed<event::TensorAllocated>>(&event)) {
            if (allocated->phase == AllocationPhase::leaf) {
                const auto& free_blocks = allocator_->allocator(0).chunks().at(0).free_blocks;
                blocks_after_leaf.emplace_back(allocated->tensor->name, free_blocks);
            }
        }
        if (const auto* counted = std::get_if<Observed<event::ConsumerCounted>>(&event)) {
            children_counted.emplace_back(counted->tensor->name, counted->children);
        }
    }
    // Each leaf, by name, and the free list after it.
    std::vector<std::pair<std::string, std::vector<FreeBlock>>> blocks_after_leaf;
    std::vector<std::pair<std::string, int>> children_counted;

private:
    const GraphAllocator* allocator_;
};

// The walkthrough's program: two 1-element f32 inputs and their product, the output.
struct SeedGraph {
    Context context;
    Graph graph;
    Tensor& a = input("a");
    Tensor& b = input("b");
    Tensor& mul = product();

    Tensor& input(const char* name) {
        Tensor& t = GraphBuilder(context).new_tensor(DataType::f32, {1}, name);
        t.flags.set(TensorFlag::input);
        return t;
    }
    Tensor& product() {
        Tensor& t = GraphBuilder(context).mul(a, b);
        t.name = "mul";
        t.flags.set(TensorFlag::output);
        build_forward_expand(graph, t);
        return t;
    }
};

class SeedWalkthrough : public ::testing::TestWithParam<const AllocatorProfile*> {
protected:
    SeedGraph file;
    CpuBufferType cpu;  // 32-aligned, as in the walkthrough
    GraphAllocator allocator{cpu, *GetParam()};
    Tensor& a = file.a;
    Tensor& b = file.b;
    Tensor& mul = file.mul;
};

// After the leafs:
//
//   0        32       64                                    SIZE_MAX/2
//   +--------+--------+-------------------------------------+
//   | a (4)  | b (4)  |  free: from 64, the tail            |
//   +--------+--------+-------------------------------------+
//
// Each 4-byte leaf takes a whole 32-byte aligned slot; what is left is one free block,
// the tail, which upstream starts at SIZE_MAX/2 bytes (the chunk is unbounded).
TEST_P(SeedWalkthrough, LeafsTakeAlignedSlotsFromTheTail) {
    LeafWatcher watcher(allocator);
    allocator.set_observer(&watcher);
    ASSERT_TRUE(allocator.reserve(file.graph)) << allocator.last_error();

    ASSERT_EQ(allocator.hash_node(a)->address, (BufferAddress{0, 0}));
    ASSERT_EQ(allocator.hash_node(b)->address, (BufferAddress{0, 32}));
    // The walkthrough prints {offset = 32, size = 9223372036854775775} after a: with a 64-bit
    // size_t, SIZE_MAX / 2 is 2^63 - 1 = 9223372036854775807, less the 32 bytes a took.
    using Blocks = std::vector<FreeBlock>;
    const std::vector<std::pair<std::string, Blocks>> expected{
        {"a", Blocks{{32, 9223372036854775775u}}},
        {"b", Blocks{{64, 9223372036854775775u - 32}}},
    };
    EXPECT_EQ(watcher.blocks_after_leaf, expected);
}

// The counting pass: mul reads a and b once each.
TEST_P(SeedWalkthrough, CountingPassCountsOneConsumerEach) {
    LeafWatcher watcher(allocator);
    allocator.set_observer(&watcher);
    ASSERT_TRUE(allocator.reserve(file.graph));
    const std::vector<std::pair<std::string, int>> expected{{"a", 1}, {"b", 1}};
    EXPECT_EQ(watcher.children_counted, expected);
}

// mul may run in place (MUL is in ggml_op_can_inplace), a is not an output, has the same
// layout and mul is its only consumer: mul takes a's memory at offset 0. b is freed
// after mul runs; a is not (its memory now belongs to mul).
//
//   0        32       64
//   +--------+--------+-----
//   | a=mul  | (free) | tail
//   +--------+--------+-----
TEST_P(SeedWalkthrough, MulReusesAInPlaceAndBIsFreed) {
    ASSERT_TRUE(allocator.reserve(file.graph));

    // Hash nodes as the walkthrough prints them after planning.
    EXPECT_EQ(*allocator.hash_node(a), (HashNode{0, 0, 0, {0, 0}, false}));
    EXPECT_EQ(*allocator.hash_node(b), (HashNode{0, 0, 0, {0, 32}, false}));
    EXPECT_EQ(*allocator.hash_node(mul), (HashNode{0, 0, 0, {0, 0}, true}));

    // b's 32 bytes joined the tail: one free block from 32.
    const auto& chunk = allocator.allocator(0).chunks().at(0);
    ASSERT_EQ(chunk.free_blocks.size(), 1u);
    EXPECT_EQ(chunk.free_blocks[0].offset, 32u);
    EXPECT_EQ(chunk.high_water, 64u);  // the walkthrough's max_size = 64
}

// The plan recorded for alloc_graph, as the walkthrough prints node_allocs and leaf_allocs.
TEST_P(SeedWalkthrough, NodeAndLeafAllocationRecords) {
    ASSERT_TRUE(allocator.reserve(file.graph));

    ASSERT_EQ(allocator.node_allocs().size(), 1u);
    const NodeAlloc& record = allocator.node_allocs()[0];
    EXPECT_EQ(record.dst, (TensorAlloc{0, {0, 0}, 4}));
    EXPECT_EQ(record.source_count, 2u);  // mul's sources a and b; upstream's other eight are "none"
    EXPECT_EQ(allocator.source_alloc(0, 0), (TensorAlloc{0, {0, 0}, 4}));
    EXPECT_EQ(allocator.source_alloc(0, 1), (TensorAlloc{0, {0, 32}, 4}));
    for (int j = 2; j < kMaxSrc; ++j) {
        EXPECT_EQ(allocator.source_alloc(0, j), (TensorAlloc{-1, {-1, SIZE_MAX}, 0})) << "src " << j;
    }
    ASSERT_EQ(allocator.leaf_allocs().size(), 2u);
    EXPECT_EQ(allocator.leaf_allocs()[0], (TensorAlloc{0, {0, 0}, 4}));
    EXPECT_EQ(allocator.leaf_allocs()[1], (TensorAlloc{0, {0, 32}, 4}));
}

// reserve allocates one 64-byte CPU buffer; alloc_graph sets data = base + offset.
TEST_P(SeedWalkthrough, AllocGraphSetsAddressesInTheSixtyFourByteBuffer) {
    ASSERT_TRUE(allocator.reserve(file.graph));
    EXPECT_EQ(allocator.buffer_size(0), 64u);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    ASSERT_NE(a.buffer, nullptr);
    EXPECT_EQ(a.buffer, b.buffer);
    EXPECT_EQ(a.buffer, mul.buffer);
    const auto base = reinterpret_cast<std::uintptr_t>(a.buffer->base());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data), base);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data), base + 32);  // 0x...40 and 0x...60 in the walkthrough
    EXPECT_EQ(mul.data, a.data);
    EXPECT_EQ(a.buffer->usage(), BufferUsage::compute);
}

// alloc_graph with no reserve first: one buffer, so it plans automatically
// ("ggml_gallocr_alloc_graph: reallocating buffers automatically").
TEST_P(SeedWalkthrough, AllocGraphWithoutReservePlansAutomatically) {
    EXPECT_TRUE(allocator.needs_realloc(file.graph));
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();
    EXPECT_EQ(allocator.buffer_size(0), 64u);
    EXPECT_EQ(mul.data, a.data);
}

std::vector<const AllocatorProfile*> every_profile() {
    std::vector<const AllocatorProfile*> profiles;
    for (const AllocatorProfile& profile : allocator_profiles()) {
        profiles.push_back(&profile);
    }
    return profiles;
}

INSTANTIATE_TEST_SUITE_P(EveryGgmlVersion, SeedWalkthrough, ::testing::ValuesIn(every_profile()),
                         [](const auto& param_info) {
                             std::string name(param_info.param->name);
                             std::ranges::replace_if(name, [](char c) { return c == '-' || c == '.'; }, '_');
                             return name;
                         });

} // namespace
} // namespace gallocsim
