#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <limits>
#include <span>

namespace gallocsim {

std::size_t align_up(std::size_t size, std::size_t alignment) {
    return size + (alignment - size % alignment) % alignment;
}

DynamicAllocator::DynamicAllocator(std::size_t alignment, std::size_t max_buffer_size, FitRules rules)
    : alignment_(alignment), max_chunk_size_(std::min(max_buffer_size, kMaxChunkSize)), rules_(rules) {
    if (!is_valid_alignment(alignment)) {
        throw std::invalid_argument("alignment must be a power of two");
    }
    chunks_.reserve(kMaxChunks);
}

std::size_t DynamicAllocator::chunk_high_water(int chunk) const {
    return chunk >= 0 && chunk < chunk_count() ? chunks_[static_cast<std::size_t>(chunk)].high_water : 0;
}

std::size_t DynamicAllocator::total_high_water() const {
    std::size_t total = 0;
    for (const auto& chunk : chunks_) {
        total += chunk.high_water;
    }
    return total;
}

DynamicAllocator::Pick DynamicAllocator::find_free_block(std::size_t size, std::vector<BlockCandidate>* candidates) const {
    // The blocks looked at, for whoever explains the choice, in a pass of their own: the
    // search below is the hot loop of planning and stays free of the question.
    if (candidates != nullptr) {
        for (int c = 0; c < chunk_count(); ++c) {
            const auto& blocks = chunks_[static_cast<std::size_t>(c)].free_blocks;
            for (int i = 0; i + 1 < static_cast<int>(blocks.size()); ++i) {
                const FreeBlock& block = blocks[static_cast<std::size_t>(i)];
                candidates->push_back({c, i, block, false, block.size >= size, 0});
            }
        }
    }
    switch (rules_.block_fit) {
    case BlockFit::first: return find_first_fit(size);
    case BlockFit::largest: return find_largest_fit(size);
    case BlockFit::best: break;
    }
    return find_best_fit(size);
}

// Best fit over every chunk's non-tail blocks. The best size is tracked per chunk, so a
// fitting block in a later chunk wins over a tighter one in an earlier chunk (upstream's
// behaviour), and among equal sizes the later block wins (the earlier with FitTies::first).
DynamicAllocator::Pick DynamicAllocator::find_best_fit(std::size_t size) const {
    const bool later_wins_ties = rules_.ties == FitTies::last;
    Pick pick;
    for (int c = 0; c < chunk_count(); ++c) {
        const auto& blocks = chunks_[static_cast<std::size_t>(c)].free_blocks;
        std::size_t best_size = SIZE_MAX;
        bool found = false;
        const int last = static_cast<int>(blocks.size()) - 1;  // the tail is not best fit's
        for (int i = 0; i < last; ++i) {
            const std::size_t block_size = blocks[static_cast<std::size_t>(i)].size;
            const bool better = block_size < best_size || (block_size == best_size && (later_wins_ties || !found));
            if (block_size >= size && better) {
                pick = {c, i, BlockChoice::best_fit, 0};
                best_size = block_size;
                found = true;
            }
        }
    }
    return pick;
}

// A policy's alternative: the first non-tail block that fits, in chunk and address order.
DynamicAllocator::Pick DynamicAllocator::find_first_fit(std::size_t size) const {
    for (int c = 0; c < chunk_count(); ++c) {
        const auto& blocks = chunks_[static_cast<std::size_t>(c)].free_blocks;
        for (int i = 0; i + 1 < static_cast<int>(blocks.size()); ++i) {
            if (blocks[static_cast<std::size_t>(i)].size >= size) {
                return {c, i, BlockChoice::best_fit, 0};
            }
        }
    }
    return {};
}

// A policy's alternative: the largest non-tail block that fits, over every chunk; of equals
// the later (FitTies::last) or the earlier.
DynamicAllocator::Pick DynamicAllocator::find_largest_fit(std::size_t size) const {
    const bool later_wins_ties = rules_.ties == FitTies::last;
    Pick pick;
    std::size_t largest = 0;
    for (int c = 0; c < chunk_count(); ++c) {
        const auto& blocks = chunks_[static_cast<std::size_t>(c)].free_blocks;
        for (int i = 0; i + 1 < static_cast<int>(blocks.size()); ++i) {
            const std::size_t block_size = blocks[static_cast<std::size_t>(i)].size;
            const bool better = pick.block < 0 || block_size > largest || (block_size == largest && later_wins_ties);
            if (block_size >= size && better) {
                pick = {c, i, BlockChoice::best_fit, 0};
                largest = block_size;
            }
        }
    }
    return pick;
}

namespace {
// Best fit's diagnostic, from the blocks it looked at: how many fitted and which clause of
// the rule above picked `taken` (per chunk the smallest, the last of equals; across chunks
// the later chunk's).
void explain_best_fit(std::span<const BlockCandidate> candidates, const FreeBlock& taken, FitRules rules,
                      AllocationDecision& decision) {
    std::size_t smallest = SIZE_MAX;
    for (const BlockCandidate& c : candidates) {
        if (!c.is_tail && c.fits) {
            decision.fitting_blocks += 1;
            decision.equal_fits += c.free_block.size == taken.size ? 1 : 0;
            smallest = std::min(smallest, c.free_block.size);
        }
    }
    if (decision.fitting_blocks <= 1) {
        decision.best_fit_reason = BestFitReason::only_fit;
    } else if (rules.block_fit == BlockFit::first) {
        decision.best_fit_reason = BestFitReason::first_fit;
    } else if (rules.block_fit == BlockFit::largest) {
        decision.best_fit_reason = BestFitReason::largest_fit;
    } else if (smallest < taken.size) {
        decision.best_fit_reason = BestFitReason::later_chunk;
    } else if (decision.equal_fits > 1) {
        decision.best_fit_reason =
            rules.ties == FitTies::last ? BestFitReason::last_of_equals : BestFitReason::first_of_equals;
    } else {
        decision.best_fit_reason = BestFitReason::smallest;
    }
}
// The tail rule's diagnostic, like explain_best_fit's.
void explain_tail(std::span<const BlockCandidate> candidates, TailChoice rule, AllocationDecision& decision) {
    decision.fitting_blocks = static_cast<int>(
        std::ranges::count_if(candidates, [](const BlockCandidate& c) { return c.is_tail && c.fits; }));
    if (decision.fitting_blocks <= 1) {
        decision.tail_reason = TailReason::only_fit;
    } else if (rule == TailChoice::first_that_fits) {
        decision.tail_reason = TailReason::first_that_fits;
    } else {
        decision.tail_reason = decision.reuse_factor >= 0 ? TailReason::least_unused : TailReason::grows_least;
    }
}
} // namespace

// Among tail blocks that fit, prefer one that needs no growth and leaves the least
// unused (reuse factor >= 0, smallest); failing that, the one that grows its chunk least.
// Before the reuse factor (TailChoice::first_that_fits), the first tail that fits.
DynamicAllocator::Pick DynamicAllocator::find_tail(std::size_t size, std::vector<BlockCandidate>* candidates) const {
    // Computed in size_t and read as signed, as upstream does.
    auto reuse_factor_of = [size](const Chunk& chunk) {
        return static_cast<std::int64_t>(chunk.high_water - chunk.free_blocks.back().offset - size);
    };
    if (candidates != nullptr) {  // every tail, for the explanation, in a pass of its own
        for (int c = 0; c < chunk_count(); ++c) {
            const Chunk& chunk = chunks_[static_cast<std::size_t>(c)];
            if (!chunk.free_blocks.empty()) {
                const FreeBlock& tail = chunk.free_blocks.back();
                candidates->push_back({c, static_cast<int>(chunk.free_blocks.size()) - 1, tail, true, tail.size >= size,
                                       reuse_factor_of(chunk)});
            }
        }
    }
    Pick pick;
    std::int64_t best_reuse = std::numeric_limits<std::int64_t>::min();
    for (int c = 0; c < chunk_count(); ++c) {
        const Chunk& chunk = chunks_[static_cast<std::size_t>(c)];
        if (chunk.free_blocks.empty() || chunk.free_blocks.back().size < size) {
            continue;
        }
        const int last = static_cast<int>(chunk.free_blocks.size()) - 1;
        const std::int64_t reuse_factor = reuse_factor_of(chunk);
        if (rules_.tail_choice == TailChoice::first_that_fits) {
            return {c, last, BlockChoice::tail, reuse_factor};
        }
        const bool better_reuse = best_reuse < 0 && reuse_factor > best_reuse;
        const bool better_fit = reuse_factor >= 0 && reuse_factor < best_reuse;
        if (better_reuse || better_fit) {
            pick = {c, last, BlockChoice::tail, reuse_factor};
            best_reuse = reuse_factor;
        }
    }
    return pick;
}

std::pair<int, ChunkSize> DynamicAllocator::new_chunk(std::size_t min_size) {
    if (chunk_count() >= kMaxChunks) {
        return {-1, ChunkSize::max_size};
    }
    // A chunk may exceed max_size when one tensor needs more, and the last chunk
    // possible is unbounded so that allocation cannot run out of chunks.
    const bool bounded = max_chunk_size_ < kMaxChunkSize;
    std::size_t size = std::max(min_size, max_chunk_size_);
    ChunkSize why = min_size > max_chunk_size_ ? ChunkSize::tensor_needs_more
                                               : (bounded ? ChunkSize::max_size : ChunkSize::no_max_size);
    if (chunk_count() == kMaxChunks - 1) {
        size = kMaxChunkSize;
        why = bounded ? ChunkSize::last_chunk : ChunkSize::no_max_size;
    }
    Chunk chunk;
    chunk.free_blocks.reserve(8);
    chunk.free_blocks.push_back({0, size});
    chunks_.push_back(std::move(chunk));
    return {chunk_count() - 1, why};
}

AllocationDecision DynamicAllocator::allocate(std::size_t size, std::vector<BlockCandidate>* candidates) {
    size = align_up(size, alignment_);
    AllocationDecision decision;
    decision.size = size;

    Pick pick = find_free_block(size, candidates);
    if (pick.block < 0) {
        pick = find_tail(size, candidates);
    }
    if (pick.block < 0) {
        const auto [chunk, why] = new_chunk(size);
        pick = {chunk, 0, BlockChoice::new_chunk, 0};
        decision.chunk_size = why;
        if (pick.chunk < 0) {
            throw AllocatorError("not enough space in the buffer to allocate " + std::to_string(size) +
                                 " bytes: all " + std::to_string(kMaxChunks) + " chunks are in use");
        }
    }

    Chunk& chunk = chunks_[static_cast<std::size_t>(pick.chunk)];
    FreeBlock& block = chunk.free_blocks[static_cast<std::size_t>(pick.block)];
    decision.address = {pick.chunk, block.offset};
    decision.choice = pick.choice;
    decision.block = pick.block;
    decision.block_before = block;
    decision.reuse_factor = pick.reuse_factor;
    decision.high_water_before = chunk.high_water;
    if (candidates != nullptr && pick.choice == BlockChoice::best_fit) {
        explain_best_fit(*candidates, block, rules_, decision);
    } else if (candidates != nullptr && pick.choice == BlockChoice::tail) {
        explain_tail(*candidates, rules_.tail_choice, decision);
    }

    block.offset += size;
    block.size -= size;
    if (block.size == 0) {
        chunk.free_blocks.erase(chunk.free_blocks.begin() + pick.block);
        decision.block_consumed = true;
    }
    chunk.high_water = std::max(chunk.high_water, decision.address.offset + size);
    decision.high_water_after = chunk.high_water;
    return decision;
}

// Upstream scans the blocks in address order and joins the freed range to the first block
// it touches (checking "ends where the range starts" before "starts where it ends"),
// then that block to its other neighbour; with no neighbour it inserts a new block.
FreeDecision DynamicAllocator::free(BufferAddress address, std::size_t size) {
    size = align_up(size, alignment_);
    if (address.chunk < 0 || address.chunk >= chunk_count()) {
        throw AllocatorError("free of chunk " + std::to_string(address.chunk) + " which does not exist");
    }
    auto& blocks = chunks_[static_cast<std::size_t>(address.chunk)].free_blocks;
    FreeDecision decision{address, size, MergeKind::none, 0, {}};
    const auto count = static_cast<int>(blocks.size());

    for (int i = 0; i < count; ++i) {
        FreeBlock& block = blocks[static_cast<std::size_t>(i)];
        if (block.end() == address.offset) {
            block.size += size;
            decision.merge = MergeKind::previous;
            if (i + 1 < count && block.end() == blocks[static_cast<std::size_t>(i) + 1].offset) {
                block.size += blocks[static_cast<std::size_t>(i) + 1].size;
                blocks.erase(blocks.begin() + i + 1);
                decision.merge = MergeKind::both;
            }
            decision.block = i;
            decision.result = blocks[static_cast<std::size_t>(i)];
            decision.free_blocks_after = static_cast<int>(blocks.size());
            return decision;
        }
        if (address.offset + size == block.offset) {
            block.offset = address.offset;
            block.size += size;
            decision.merge = MergeKind::next;
            decision.block = i;
            if (i > 0 && blocks[static_cast<std::size_t>(i) - 1].end() == block.offset) {
                blocks[static_cast<std::size_t>(i) - 1].size += block.size;
                blocks.erase(blocks.begin() + i);
                decision.merge = MergeKind::both;
                decision.block = i - 1;
            }
            decision.result = blocks[static_cast<std::size_t>(decision.block)];
            decision.free_blocks_after = static_cast<int>(blocks.size());
            return decision;
        }
    }

    if (count >= kMaxFreeBlocks) {
        throw AllocatorError("out of free blocks: chunk " + std::to_string(address.chunk) + " already has " +
                             std::to_string(kMaxFreeBlocks) + " free blocks");
    }
    auto position = std::ranges::find_if(blocks, [&](const FreeBlock& b) { return b.offset >= address.offset; });
    decision.block = static_cast<int>(position - blocks.begin());
    decision.result = *blocks.insert(position, FreeBlock{address.offset, size});
    decision.free_blocks_after = static_cast<int>(blocks.size());
    return decision;
}

} // namespace gallocsim
