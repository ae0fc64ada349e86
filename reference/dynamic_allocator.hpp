#pragma once
// ggml_dyn_tallocr: plans offsets without touching memory. Each chunk (one backend
// buffer of at most max_size bytes) keeps an address-sorted list of free blocks; the
// last block of a chunk is its "tail", which may grow the chunk. A request takes the
// best-fitting non-tail block, else the tail whose chunk grows least (the reuse factor),
// else a new chunk.

#include "reference/profile.hpp"

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim {

inline constexpr int kMaxFreeBlocks = 256;  // MAX_FREE_BLOCKS
inline constexpr int kMaxChunks = 16;       // GGML_VBUFFER_MAX_CHUNKS

// Where a planned tensor lives: which chunk of the virtual buffer, at what offset.
struct BufferAddress {
    int chunk = 0;
    std::size_t offset = 0;
    auto operator<=>(const BufferAddress&) const = default;
};

inline constexpr BufferAddress kInvalidAddress{-1, SIZE_MAX};

struct FreeBlock {
    std::size_t offset = 0;
    std::size_t size = 0;
    std::size_t end() const { return offset + size; }
    bool operator==(const FreeBlock&) const = default;
};

struct Chunk {
    std::vector<FreeBlock> free_blocks;  // sorted by offset; the last one is the tail
    std::size_t high_water = 0;          // ggml's chunk->max_size: the bytes the chunk needs
    bool operator==(const Chunk&) const = default;
};

// Which rule picked the block.
enum class BlockChoice {
    best_fit,   // a non-tail block that fits: the smallest (later chunks and later blocks win ties), or by a policy's BlockFit
    tail,       // a chunk's last block, chosen by reuse factor (may grow the chunk)
    new_chunk,  // nothing fitted: a fresh chunk
};

// Why a new chunk is as large as it is.
enum class ChunkSize {
    max_size,           // the buffer type's max size
    tensor_needs_more,  // the request alone is larger than the max size: one tensor may exceed it
    no_max_size,        // the buffer type sets none: one free block with no end (SIZE_MAX/2 bytes)
    last_chunk,         // the last chunk allowed has no end, so that allocation cannot run out of chunks
};

// A block the search looked at, for explanations.
struct BlockCandidate {
    int chunk = 0;
    int block = 0;
    FreeBlock free_block;
    bool is_tail = false;
    bool fits = false;
    std::int64_t reuse_factor = 0;  // tail blocks only: high_water - offset - size (may be negative)
};

// Which clause of best fit decided among the non-tail blocks that fit. Told only to an
// observer (worked out from the candidates, which only an observer asks for).
enum class BestFitReason : std::uint8_t {
    only_fit,        // the one block that fits
    smallest,        // the smallest of those that fit
    last_of_equals,  // several as small fit: the scan's `<=` keeps the last one
    later_chunk,     // an earlier chunk has a smaller fit, but the best is kept per chunk and a later chunk's wins
    first_of_equals, // several as small fit: FitTies::first keeps the first one (a policy)
    first_fit,       // BlockFit::first: the first block that fits (a policy)
    largest_fit,     // BlockFit::largest: the largest block that fits (a policy)
};

// Which clause of the tail rule decided among the tails that fit (tail choices only).
enum class TailReason : std::uint8_t {
    only_fit,         // the one tail that fits
    least_unused,     // it fits below its chunk's high-water mark and leaves the least unused (reuse factor >= 0, smallest)
    grows_least,      // no tail fits below its high-water mark: this one grows its chunk least
    first_that_fits,  // TailChoice::first_that_fits: the earliest chunk whose tail fits
};

struct AllocationDecision {
    BufferAddress address;
    std::size_t size = 0;  // aligned request
    BlockChoice choice = BlockChoice::best_fit;
    // When candidates were asked for: why this block, and how many blocks of its kind (non-tail
    // blocks for best_fit, tails for tail) fitted.
    BestFitReason best_fit_reason = BestFitReason::only_fit;
    TailReason tail_reason = TailReason::only_fit;
    int fitting_blocks = 0;
    int equal_fits = 0;  // fitting blocks as small as the one taken (last_of_equals)
    int block = 0;               // index of the block taken, in its chunk, before the take
    FreeBlock block_before;      // that block before the take
    bool block_consumed = false; // the block was used up and removed from the list
    std::int64_t reuse_factor = 0;  // for tail choices
    ChunkSize chunk_size = ChunkSize::max_size;  // for new_chunk: why the chunk is as large as it is
    std::size_t high_water_before = 0;
    std::size_t high_water_after = 0;
};

enum class MergeKind {
    none,      // no neighbour: a new free block was inserted in address order
    previous,  // joined the free block that ends where the freed range starts
    next,      // joined the free block that starts where the freed range ends
    both,      // joined both neighbours into one block
};

struct FreeDecision {
    BufferAddress address;
    std::size_t size = 0;  // aligned
    MergeKind merge = MergeKind::none;
    int block = 0;         // index of the resulting block
    FreeBlock result;      // the resulting free block
    int free_blocks_after = 0;  // the chunk's free blocks after the free (the last one is its tail)

    bool result_is_tail() const { return block + 1 == free_blocks_after; }
};

// Thrown where upstream ggml would abort: more than 256 free blocks in a chunk, or no
// chunk left. The allocator is left as it was before the failing call.
class AllocatorError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::size_t align_up(std::size_t size, std::size_t alignment);

// An alignment the allocator takes: a power of two, as every ggml buffer type's is. Every
// place that accepts one (a graph file, buffer settings, the command line) asks this.
constexpr bool is_valid_alignment(std::size_t alignment) { return std::has_single_bit(alignment); }

// Upstream's cap on a chunk's size, and the size of a free block "with no end": SIZE_MAX/2,
// so that an offset plus a size never wraps.
inline constexpr std::size_t kMaxChunkSize = SIZE_MAX / 2;

class DynamicAllocator {
public:
    // max_buffer_size is clamped to SIZE_MAX/2, as upstream does, to avoid overflows.
    DynamicAllocator(std::size_t alignment, std::size_t max_buffer_size, FitRules rules = {});

    // The blocks the search looks at are appended to `candidates` when one is given (the
    // caller keeps and reuses it, so that explaining a plan allocates nothing per tensor).
    AllocationDecision allocate(std::size_t size, std::vector<BlockCandidate>* candidates = nullptr);
    FreeDecision free(BufferAddress address, std::size_t size);
    void reset() { chunks_.clear(); }

    std::size_t alignment() const { return alignment_; }
    std::size_t max_chunk_size() const { return max_chunk_size_; }
    const std::vector<Chunk>& chunks() const { return chunks_; }
    int chunk_count() const { return static_cast<int>(chunks_.size()); }
    // ggml_dyn_tallocr_max_size: a chunk's high-water mark, 0 past the last chunk.
    std::size_t chunk_high_water(int chunk) const;
    std::size_t total_high_water() const;

    // For replaying a recorded plan: put the allocator in a given state.
    void restore(std::vector<Chunk> chunks) { chunks_ = std::move(chunks); }

private:
    struct Pick {
        int chunk = -1;
        int block = -1;
        BlockChoice choice = BlockChoice::best_fit;
        std::int64_t reuse_factor = 0;
    };
    // A free block before a chunk's tail, by rules_.block_fit.
    Pick find_free_block(std::size_t size, std::vector<BlockCandidate>* candidates) const;
    Pick find_best_fit(std::size_t size) const;
    Pick find_first_fit(std::size_t size) const;
    Pick find_largest_fit(std::size_t size) const;
    Pick find_tail(std::size_t size, std::vector<BlockCandidate>* candidates) const;
    // A new chunk able to hold `min_size` bytes, and why it has its size; chunk -1 when all
    // kMaxChunks are in use.
    std::pair<int, ChunkSize> new_chunk(std::size_t min_size);

    std::size_t alignment_;
    std::size_t max_chunk_size_;
    FitRules rules_;
    std::vector<Chunk> chunks_;
};

} // namespace gallocsim
