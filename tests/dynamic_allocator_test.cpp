// DynamicAllocator (ggml_dyn_tallocr): how free blocks merge, how a request picks its
// block, when chunks are added, and the limits where upstream aborts.
//
// Pictures: one row per chunk, '#' allocated, '.' free; the last free block of a chunk
// is its tail, which runs to the end of the chunk (and may grow the chunk's high water).
#include "reference/dynamic_allocator.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gallocsim {
namespace {

constexpr std::size_t kUnbounded = SIZE_MAX;
constexpr std::size_t kChunkMax = SIZE_MAX / 2;  // the largest chunk upstream plans

using Blocks = std::vector<FreeBlock>;

const Blocks& blocks(const DynamicAllocator& allocator, int chunk = 0) {
    return allocator.chunks().at(static_cast<std::size_t>(chunk)).free_blocks;
}

TEST(DynamicAllocator, RoundsRequestsUpToTheAlignment) {
    DynamicAllocator allocator(8, kUnbounded);
    const AllocationDecision first = allocator.allocate(5);
    const AllocationDecision second = allocator.allocate(1);
    const AllocationDecision third = allocator.allocate(16);

    EXPECT_EQ(first.size, 8u);
    EXPECT_EQ(first.address, (BufferAddress{0, 0}));
    EXPECT_EQ(second.address, (BufferAddress{0, 8}));
    EXPECT_EQ(third.size, 16u);
    EXPECT_EQ(third.address, (BufferAddress{0, 16}));
    EXPECT_EQ(allocator.chunk_high_water(0), 32u);
    // Freeing rounds the same way: 5 bytes give back the whole 8-byte slot.
    EXPECT_EQ(allocator.free({0, 0}, 5).result, (FreeBlock{0, 8}));
}

TEST(DynamicAllocator, AlignmentMustBeAPowerOfTwo) {
    EXPECT_THROW(DynamicAllocator(24, kUnbounded), std::invalid_argument);
    EXPECT_THROW(DynamicAllocator(0, kUnbounded), std::invalid_argument);
    EXPECT_NO_THROW(DynamicAllocator(1, kUnbounded));
}

// Upstream caps chunk sizes at SIZE_MAX/2 so that offset arithmetic cannot overflow.
TEST(DynamicAllocator, MaxSizeIsClampedToHalfTheAddressSpace) {
    EXPECT_EQ(DynamicAllocator(8, kUnbounded).max_chunk_size(), kChunkMax);
    EXPECT_EQ(DynamicAllocator(8, kChunkMax + 1).max_chunk_size(), kChunkMax);
    EXPECT_EQ(DynamicAllocator(8, 100).max_chunk_size(), 100u);
}

TEST(DynamicAllocator, FirstRequestOpensAnUnboundedChunk) {
    DynamicAllocator allocator(8, kUnbounded);
    const AllocationDecision decision = allocator.allocate(16);

    EXPECT_EQ(decision.choice, BlockChoice::new_chunk);
    EXPECT_EQ(decision.block_before, (FreeBlock{0, kChunkMax}));
    EXPECT_FALSE(decision.block_consumed);
    EXPECT_EQ(decision.high_water_before, 0u);
    EXPECT_EQ(decision.high_water_after, 16u);
    EXPECT_EQ(blocks(allocator), (Blocks{{16, kChunkMax - 16}}));
}

// Four 16-byte tensors A..D at 0, 16, 32, 48, then the tail from 64.
class FreeBlockMerging : public ::testing::Test {
protected:
    void SetUp() override {
        for (int i = 0; i < 4; ++i) {
            allocator.allocate(16);
        }
    }
    static constexpr BufferAddress A{0, 0}, B{0, 16}, C{0, 32}, D{0, 48};
    DynamicAllocator allocator{16, kUnbounded};
    const FreeBlock tail{64, kChunkMax - 64};
};

// 0       16      32      48      64
// |.......|###B###|###C###|###D###|...tail
//  A freed: no free neighbour, a new block goes in front of the tail.
TEST_F(FreeBlockMerging, NoNeighbourInsertsABlock) {
    const FreeDecision decision = allocator.free(A, 16);
    EXPECT_EQ(decision.merge, MergeKind::none);
    EXPECT_EQ(decision.block, 0);
    EXPECT_EQ(decision.free_blocks_after, 2);
    EXPECT_EQ(blocks(allocator), (Blocks{{0, 16}, tail}));
}

// Freed blocks stay sorted by address whatever order they are freed in.
//
// 0       16      32      48      64
// |.......|###B###|.......|###D###|...tail
TEST_F(FreeBlockMerging, BlocksWithoutNeighboursAreInsertedInAddressOrder) {
    EXPECT_EQ(allocator.free(C, 16).block, 0);
    EXPECT_EQ(allocator.free(A, 16).block, 0);  // before C's block
    EXPECT_EQ(blocks(allocator), (Blocks{{0, 16}, {32, 16}, tail}));
}

// 0       16      32      48      64
// |.......:.......|###C###|###D###|...tail
//  A freed, then B joins A's block (the block that ends where B starts).
TEST_F(FreeBlockMerging, JoinsThePreviousBlock) {
    allocator.free(A, 16);
    const FreeDecision decision = allocator.free(B, 16);
    EXPECT_EQ(decision.merge, MergeKind::previous);
    EXPECT_EQ(decision.result, (FreeBlock{0, 32}));
    EXPECT_EQ(blocks(allocator), (Blocks{{0, 32}, tail}));
}

// 0       16      32      48      64
// |.......:.......|###C###|###D###|...tail
//  B freed, then A joins B's block (the block that starts where A ends).
TEST_F(FreeBlockMerging, JoinsTheNextBlock) {
    allocator.free(B, 16);
    const FreeDecision decision = allocator.free(A, 16);
    EXPECT_EQ(decision.merge, MergeKind::next);
    EXPECT_EQ(decision.block, 0);
    EXPECT_EQ(decision.result, (FreeBlock{0, 32}));
    EXPECT_EQ(blocks(allocator), (Blocks{{0, 32}, tail}));
}

// 0       16      32      48      64
// |.......:.......:.......|###D###|...tail
//  A and C freed, then B joins both into one block.
TEST_F(FreeBlockMerging, JoinsBothNeighbours) {
    allocator.free(A, 16);
    allocator.free(C, 16);
    const FreeDecision decision = allocator.free(B, 16);
    EXPECT_EQ(decision.merge, MergeKind::both);
    EXPECT_EQ(decision.block, 0);
    EXPECT_EQ(decision.result, (FreeBlock{0, 48}));
    EXPECT_EQ(decision.free_blocks_after, 2);  // [0, 48) and the tail
    EXPECT_FALSE(decision.result_is_tail());
    EXPECT_EQ(blocks(allocator), (Blocks{{0, 48}, tail}));
}

// Freeing the last tensor before the tail gives its bytes back to the tail.
TEST_F(FreeBlockMerging, JoinsTheTail) {
    const FreeDecision decision = allocator.free(D, 16);
    EXPECT_EQ(decision.merge, MergeKind::next);
    EXPECT_EQ(decision.free_blocks_after, 1);
    EXPECT_TRUE(decision.result_is_tail());
    EXPECT_EQ(blocks(allocator), (Blocks{{48, kChunkMax - 48}}));
    // The high-water mark remembers what the chunk needed.
    EXPECT_EQ(allocator.chunk_high_water(0), 64u);
}

TEST_F(FreeBlockMerging, FreeingInAChunkThatDoesNotExistThrows) {
    EXPECT_THROW(allocator.free({3, 0}, 16), AllocatorError);
}

// A chunk holds at most 256 free blocks (MAX_FREE_BLOCKS); upstream aborts on the next
// one. Here the allocator throws and stays as it was, and goes on working.
TEST(DynamicAllocator, MoreThan256FreeBlocksThrowsAndLeavesTheAllocatorUnchanged) {
    DynamicAllocator allocator(8, kUnbounded);
    constexpr std::size_t kSlots = 2 * kMaxFreeBlocks + 2;
    for (std::size_t i = 0; i < kSlots; ++i) {
        allocator.allocate(8);
    }
    // Free every other slot: each is a new block between two used ones. With the tail,
    // 255 of them make 256 blocks.
    //   |.|#|.|#|.|#| ... |.|#|...tail
    for (std::size_t i = 0; i < kMaxFreeBlocks - 1; ++i) {
        allocator.free({0, 16 * i}, 8);
    }
    ASSERT_EQ(blocks(allocator).size(), static_cast<std::size_t>(kMaxFreeBlocks));
    const std::vector<Chunk> before = allocator.chunks();

    try {
        allocator.free({0, 16 * (kMaxFreeBlocks - 1)}, 8);
        FAIL() << "expected AllocatorError";
    } catch (const AllocatorError& error) {
        EXPECT_NE(std::string(error.what()).find("256 free blocks"), std::string::npos) << error.what();
    }
    EXPECT_EQ(allocator.chunks(), before);

    // Usable after: freeing slot 1 joins its neighbours (256 -> 255 blocks) ...
    EXPECT_EQ(allocator.free({0, 8}, 8).merge, MergeKind::both);
    EXPECT_EQ(blocks(allocator).size(), static_cast<std::size_t>(kMaxFreeBlocks - 1));
    EXPECT_EQ(blocks(allocator).front(), (FreeBlock{0, 24}));
    // ... and the failed free can now be done.
    EXPECT_EQ(allocator.free({0, 16 * (kMaxFreeBlocks - 1)}, 8).merge, MergeKind::none);
    EXPECT_EQ(allocator.allocate(24).address, (BufferAddress{0, 0}));
}

// A block that fits is taken before the tail, even when the tail could serve the request
// without growing; among blocks that fit, the smallest.
//
// 0       32      48  56  64
// |.......|#######|...|###|...tail
//   32 free   16 used 8 free 8 used
TEST(DynamicAllocator, BestFitTakesTheSmallestBlockThatFitsBeforeTheTail) {
    DynamicAllocator allocator(8, kUnbounded);
    allocator.allocate(32);
    allocator.allocate(16);
    allocator.allocate(8);
    allocator.allocate(8);
    allocator.free({0, 0}, 32);
    allocator.free({0, 48}, 8);
    ASSERT_EQ(blocks(allocator), (Blocks{{0, 32}, {48, 8}, {64, kChunkMax - 64}}));

    std::vector<BlockCandidate> candidates;
    const AllocationDecision small = allocator.allocate(8, &candidates);
    EXPECT_EQ(small.choice, BlockChoice::best_fit);
    EXPECT_EQ(small.address, (BufferAddress{0, 48}));
    EXPECT_TRUE(small.block_consumed);
    EXPECT_EQ(small.high_water_after, 64u);  // no growth
    // Only non-tail blocks are candidates when one fits: the tail is not even looked at.
    ASSERT_EQ(candidates.size(), 2u);
    EXPECT_TRUE(candidates[0].fits);
    EXPECT_FALSE(candidates[0].is_tail);
    // Both blocks before the tail fit (32 and 8 bytes); the 8-byte one is the smaller.
    EXPECT_EQ(small.fitting_blocks, 2);
    EXPECT_EQ(small.best_fit_reason, BestFitReason::smallest);

    candidates.clear();
    const AllocationDecision large = allocator.allocate(24, &candidates);
    EXPECT_EQ(large.choice, BlockChoice::best_fit);
    // Only [0, 32) is left before the tail.
    EXPECT_EQ(large.fitting_blocks, 1);
    EXPECT_EQ(large.best_fit_reason, BestFitReason::only_fit);
    EXPECT_EQ(large.address, (BufferAddress{0, 0}));
    EXPECT_EQ(blocks(allocator), (Blocks{{24, 8}, {64, kChunkMax - 64}}));
}

// Among equal blocks the later one wins (upstream compares with <=).
//
// 0       16      32      48      64
// |.......|###B###|.......|###D###|...tail
TEST(DynamicAllocator, BestFitTieGoesToTheLaterBlock) {
    DynamicAllocator allocator(16, kUnbounded);
    for (int i = 0; i < 4; ++i) {
        allocator.allocate(16);
    }
    allocator.free({0, 0}, 16);
    allocator.free({0, 32}, 16);

    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(16, &candidates);
    EXPECT_EQ(decision.address, (BufferAddress{0, 32}));
    EXPECT_EQ(decision.block, 1);
    // The reason an observer is told: two 16-byte fits, the later kept.
    EXPECT_EQ(decision.best_fit_reason, BestFitReason::last_of_equals);
    EXPECT_EQ(decision.equal_fits, 2);
}

// Upstream's best fit keeps its best size per chunk, so any fitting block of a later
// chunk replaces the pick of an earlier one, however tight that was.
//
//   chunk 0: 0    16   24                     64
//            |....|###|.......tail (40)........|     16 free at 0: an exact fit
//   chunk 1: 0              32   40            64
//            |......32......|###|...tail (24)...|     32 free at 0
//
// A 16-byte request lands at chunk 1, offset 0.
TEST(DynamicAllocator, BestFitPrefersALaterChunkOverATighterBlockInAnEarlierOne) {
    DynamicAllocator allocator(8, 64);
    allocator.allocate(16);                    // chunk 0 [0, 16)
    allocator.allocate(8);                     // chunk 0 [16, 24)
    const auto big = allocator.allocate(48);   // does not fit chunk 0's tail: chunk 1 [0, 48)
    ASSERT_EQ(big.address, (BufferAddress{1, 0}));
    allocator.free(big.address, 48);           // chunk 1 is one free block again, high water 48
    const auto b0 = allocator.allocate(32);    // chunk 1's tail needs no growth: [0, 32)
    const auto b1 = allocator.allocate(8);     // chunk 1 again (reuse factor 8 beats growing chunk 0): [32, 40)
    ASSERT_EQ(b0.address, (BufferAddress{1, 0}));
    ASSERT_EQ(b1.address, (BufferAddress{1, 32}));
    allocator.free(b0.address, 32);
    allocator.free({0, 0}, 16);
    ASSERT_EQ(blocks(allocator, 0), (Blocks{{0, 16}, {24, 40}}));
    ASSERT_EQ(blocks(allocator, 1), (Blocks{{0, 32}, {40, 24}}));

    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(16, &candidates);
    EXPECT_EQ(decision.choice, BlockChoice::best_fit);
    EXPECT_EQ(decision.address, (BufferAddress{1, 0}));
    EXPECT_EQ(decision.fitting_blocks, 2);
    EXPECT_EQ(decision.best_fit_reason, BestFitReason::later_chunk);
    EXPECT_EQ(blocks(allocator, 0), (Blocks{{0, 16}, {24, 40}}));
    EXPECT_EQ(blocks(allocator, 1), (Blocks{{16, 16}, {40, 24}}));
}

// When no non-tail block fits, the tails compete by reuse factor = high water - offset -
// size: a tail that serves the request inside the chunk's high water (factor >= 0) wins,
// the one that leaves least unused first.
//
//   chunk 0: high water 48, all free    |................ (reuse for 16: 48 - 0 - 16 = 32)
//   chunk 1: high water 32, all free    |................ (reuse for 16: 32 - 0 - 16 = 16)
TEST(DynamicAllocator, TailWithTheSmallestNonNegativeReuseFactorWins) {
    DynamicAllocator allocator(8, 64);
    const auto a = allocator.allocate(48);
    const auto b = allocator.allocate(32);  // does not fit chunk 0's 16-byte tail
    ASSERT_EQ(b.address, (BufferAddress{1, 0}));
    allocator.free(a.address, 48);
    allocator.free(b.address, 32);

    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(16, &candidates);
    EXPECT_EQ(decision.choice, BlockChoice::tail);
    EXPECT_EQ(decision.address, (BufferAddress{1, 0}));
    EXPECT_EQ(decision.reuse_factor, 16);
    EXPECT_EQ(decision.fitting_blocks, 2);
    EXPECT_EQ(decision.tail_reason, TailReason::least_unused);
    ASSERT_EQ(candidates.size(), 2u);
    EXPECT_EQ(candidates[0].reuse_factor, 32);
    EXPECT_EQ(candidates[1].reuse_factor, 16);

    // Chunk 1 now has its tail at 16: a 24-byte request would grow it (32 - 16 - 24 = -8),
    // chunk 0 would not (48 - 0 - 24 = 24), so chunk 0 wins although it leaves more unused.
    const AllocationDecision next = allocator.allocate(24);
    EXPECT_EQ(next.address, (BufferAddress{0, 0}));
    EXPECT_EQ(next.reuse_factor, 24);
    EXPECT_EQ(allocator.chunk_high_water(0), 48u);
    EXPECT_EQ(allocator.chunk_high_water(1), 32u);
}

// If every fitting tail would grow its chunk, the one that grows it least wins.
//
//   chunk 0 (high water 48):  0           40  48           64
//                             |###########|.............tail|   16 would grow it by 8
//   chunk 1 (high water 32):  0          32                64
//                             |##########|..............tail|   16 would grow it by 16
TEST(DynamicAllocator, TailThatGrowsItsChunkLeastWins) {
    DynamicAllocator allocator(8, 64);
    allocator.allocate(40);                  // chunk 0 [0, 40)
    const auto b = allocator.allocate(8);    // chunk 0 [40, 48)
    allocator.allocate(32);                  // chunk 0's 16-byte tail is too small: chunk 1 [0, 32)
    allocator.free(b.address, 8);            // chunk 0's tail is back to [40, 64), high water 48

    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(16, &candidates);
    EXPECT_EQ(decision.choice, BlockChoice::tail);
    EXPECT_EQ(decision.address, (BufferAddress{0, 40}));
    EXPECT_EQ(decision.reuse_factor, -8);
    EXPECT_EQ(decision.fitting_blocks, 2);  // both tails fit, both grow their chunk
    EXPECT_EQ(decision.tail_reason, TailReason::grows_least);
    EXPECT_EQ(decision.high_water_before, 48u);
    EXPECT_EQ(decision.high_water_after, 56u);
}

// Before the reuse factor (058128a6, #16788), chunks came with 254ea3e5 (#15815) and the
// first chunk whose tail fits took the request, grown or not. The same two chunks as above:
// a 16-byte request takes chunk 0's tail (reuse factor 32), where the reuse factor picks
// chunk 1's (16); then a 40-byte request takes chunk 0's tail again, at 16, growing chunk 0
// from 48 to 56 although chunk 1's whole tail [0, 64) fits it too.
//
//   chunk 0: high water 48, all free    |................
//   chunk 1: high water 32, all free    |................
TEST(DynamicAllocator, FirstTailThatFitsWinsBeforeTheReuseFactor) {
    DynamicAllocator allocator(8, 64, {.tail_choice = TailChoice::first_that_fits});
    const auto a = allocator.allocate(48);
    const auto b = allocator.allocate(32);
    ASSERT_EQ(b.address, (BufferAddress{1, 0}));
    allocator.free(a.address, 48);
    allocator.free(b.address, 32);

    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(16, &candidates);
    EXPECT_EQ(decision.choice, BlockChoice::tail);
    EXPECT_EQ(decision.address, (BufferAddress{0, 0}));
    EXPECT_EQ(decision.fitting_blocks, 2);
    EXPECT_EQ(decision.tail_reason, TailReason::first_that_fits);
    EXPECT_EQ(candidates.size(), 2u);  // both tails looked at, for the explanation

    const AllocationDecision next = allocator.allocate(40);
    EXPECT_EQ(next.address, (BufferAddress{0, 16}));
    EXPECT_EQ(allocator.chunk_high_water(0), 56u);
    EXPECT_EQ(allocator.chunk_high_water(1), 32u);
}

// Nothing fits: a new chunk of max_size bytes, or of the request's size when that is larger.
TEST(DynamicAllocator, NewChunkWhenNothingFits) {
    DynamicAllocator allocator(8, 16);
    const auto a = allocator.allocate(24);  // larger than max_size: a chunk of exactly 24
    EXPECT_EQ(a.choice, BlockChoice::new_chunk);
    EXPECT_TRUE(a.block_consumed);
    EXPECT_EQ(blocks(allocator, 0), Blocks{});

    const auto b = allocator.allocate(8);  // chunk 0 has no free block left: chunk 1, 16 bytes
    EXPECT_EQ(b.choice, BlockChoice::new_chunk);
    EXPECT_EQ(b.address, (BufferAddress{1, 0}));
    EXPECT_EQ(blocks(allocator, 1), (Blocks{{8, 8}}));
    EXPECT_EQ(allocator.chunk_count(), 2);
    EXPECT_EQ(allocator.total_high_water(), 32u);
    EXPECT_EQ(allocator.chunk_high_water(2), 0u);  // past the last chunk
}

// The sixteenth chunk (GGML_VBUFFER_MAX_CHUNKS) is unbounded, so planning cannot run out
// of chunks; only a request that does not fit even there fails.
TEST(DynamicAllocator, SixteenthChunkIsUnbounded) {
    DynamicAllocator allocator(8, 8);
    for (int i = 0; i < kMaxChunks - 1; ++i) {
        ASSERT_EQ(allocator.allocate(8).address, (BufferAddress{i, 0}));
    }
    const auto last = allocator.allocate(8);
    EXPECT_EQ(last.address, (BufferAddress{kMaxChunks - 1, 0}));
    EXPECT_EQ(last.block_before, (FreeBlock{0, kChunkMax}));
    EXPECT_EQ(allocator.allocate(1000).address, (BufferAddress{kMaxChunks - 1, 8}));
    EXPECT_EQ(allocator.chunk_count(), kMaxChunks);

    const std::vector<Chunk> before = allocator.chunks();
    EXPECT_THROW(allocator.allocate(kChunkMax), AllocatorError);
    EXPECT_EQ(allocator.chunks(), before);
}

TEST(DynamicAllocator, ResetForgetsEveryChunk) {
    DynamicAllocator allocator(8, 8);
    allocator.allocate(8);
    allocator.allocate(8);
    allocator.reset();
    EXPECT_EQ(allocator.chunk_count(), 0);
    EXPECT_EQ(allocator.total_high_water(), 0u);
    EXPECT_EQ(allocator.allocate(8).address, (BufferAddress{0, 0}));
}

// The rules a policy file may choose instead of best fit (docs/policies.md). One arena for all:
//
// 0       32      48  56  64      96     104
// |.......|#######|...|###|.......|######|...tail
//   32 free   16 used 8 free 8 used 32 free 8 used
//
// A request for 8 bytes fits all three free blocks before the tail: best fit takes the 8-byte
// block at 48, first fit the block at 0 (lowest address), largest fit one of the two 32-byte
// blocks: the later (64) under FitTies::last, the earlier (0) under FitTies::first.
class PolicyFits : public ::testing::Test {
protected:
    static DynamicAllocator arena(FitRules rules) {
        DynamicAllocator allocator(8, kUnbounded, rules);
        for (const std::size_t size : {32, 16, 8, 8, 32, 8}) {
            allocator.allocate(size);
        }
        allocator.free({0, 0}, 32);
        allocator.free({0, 48}, 8);
        allocator.free({0, 64}, 32);
        return allocator;
    }
};

TEST_F(PolicyFits, TheArenaHasThreeFreeBlocksBeforeTheTail) {
    EXPECT_EQ(blocks(arena({})), (Blocks{{0, 32}, {48, 8}, {64, 32}, {104, kChunkMax - 104}}));
}

TEST_F(PolicyFits, BestFitTakesTheSmallest) {
    DynamicAllocator allocator = arena({});
    EXPECT_EQ(allocator.allocate(8).address, (BufferAddress{0, 48}));
}

TEST_F(PolicyFits, FirstFitTakesTheLowestAddressThatFits) {
    DynamicAllocator allocator = arena({.block_fit = BlockFit::first});
    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(8, &candidates);
    EXPECT_EQ(decision.address, (BufferAddress{0, 0}));
    EXPECT_EQ(decision.best_fit_reason, BestFitReason::first_fit);
    EXPECT_EQ(decision.fitting_blocks, 3);
    // Too large for [0, 32): the next that fits is none before the tail, so the tail.
    EXPECT_EQ(allocator.allocate(40).address, (BufferAddress{0, 104}));
}

TEST_F(PolicyFits, LargestFitTakesTheLargestAndTiesFollowTheTieRule) {
    DynamicAllocator later = arena({.block_fit = BlockFit::largest});
    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = later.allocate(8, &candidates);
    EXPECT_EQ(decision.address, (BufferAddress{0, 64}));
    EXPECT_EQ(decision.best_fit_reason, BestFitReason::largest_fit);

    DynamicAllocator earlier = arena({.block_fit = BlockFit::largest, .ties = FitTies::first});
    EXPECT_EQ(earlier.allocate(8).address, (BufferAddress{0, 0}));
    // Now [8, 32) holds 24 and [64, 96) 32: the larger one wins whatever the tie rule.
    EXPECT_EQ(earlier.allocate(8).address, (BufferAddress{0, 64}));
}

// Best fit with FitTies::first: of two equal 16-byte blocks the earlier wins (upstream: the
// later, BestFitTieGoesToTheLaterBlock above).
TEST(DynamicAllocator, BestFitWithFirstTiesTakesTheEarlierBlock) {
    DynamicAllocator allocator(16, kUnbounded, {.ties = FitTies::first});
    for (int i = 0; i < 4; ++i) {
        allocator.allocate(16);
    }
    allocator.free({0, 0}, 16);
    allocator.free({0, 32}, 16);
    std::vector<BlockCandidate> candidates;
    const AllocationDecision decision = allocator.allocate(16, &candidates);
    EXPECT_EQ(decision.address, (BufferAddress{0, 0}));
    EXPECT_EQ(decision.best_fit_reason, BestFitReason::first_of_equals);
}

} // namespace
} // namespace gallocsim
