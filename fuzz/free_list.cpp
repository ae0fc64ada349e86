#include "fuzz/free_list.hpp"

#include <algorithm>
#include <variant>

namespace gallocsim::fuzz {
namespace {

std::string range(std::size_t offset, std::size_t size) {
    return "[" + std::to_string(offset) + ", " + std::to_string(offset + size) + ")";
}

} // namespace

std::vector<std::string> free_list_violations(const DynamicAllocator& allocator, const LiveRanges& live,
                                              const std::vector<bool>& zero_freed) {
    std::vector<std::string> problems;
    const auto& chunks = allocator.chunks();
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const auto& blocks = chunks[c].free_blocks;
        const std::size_t high_water = chunks[c].high_water;
        const std::string chunk = "chunk " + std::to_string(c) + ": ";
        if (blocks.size() > static_cast<std::size_t>(kMaxFreeBlocks)) {
            problems.push_back(chunk + std::to_string(blocks.size()) + " free blocks");
        }
        const bool zero_sized_freed = c < zero_freed.size() && zero_freed[c];
        std::vector<FreeBlock> positive;  // in list order
        for (const FreeBlock& block : blocks) {
            if (block.size > 0) {
                positive.push_back(block);
            } else if (!zero_sized_freed) {
                problems.push_back(chunk + "zero-size free block at " + std::to_string(block.offset) +
                                   " though no zero-byte range was freed");
            }
        }
        // Zero-size blocks can reorder the rest (see the header); then only disjointness holds.
        if (zero_sized_freed) {
            std::ranges::sort(positive, {}, &FreeBlock::offset);
        }
        for (std::size_t i = 1; i < positive.size(); ++i) {
            const FreeBlock& a = positive[i - 1];
            const FreeBlock& b = positive[i];
            if (a.end() > b.offset || (a.end() == b.offset && !zero_sized_freed)) {
                problems.push_back(chunk + "free blocks " + range(a.offset, a.size) + " and " + range(b.offset, b.size) +
                                   (a.end() == b.offset ? " touch" : " are out of order or overlap"));
            }
        }
        // Bytes past the high-water mark were never handed out: they are all in one block.
        const auto past = std::ranges::count_if(positive, [&](const FreeBlock& b) { return b.end() > high_water; });
        if (past > 1) {
            problems.push_back(chunk + std::to_string(past) + " free blocks reach past the high-water mark " +
                               std::to_string(high_water));
        }
        if (!zero_sized_freed && past == 1 && positive.back().end() <= high_water) {
            problems.push_back(chunk + "the block reaching past the high-water mark is not the last");
        }

        // Below the high-water mark, free and live ranges must tile [0, high_water).
        std::vector<std::pair<std::size_t, std::size_t>> pieces;  // (offset, end)
        for (const FreeBlock& block : blocks) {
            if (block.size > 0 && block.offset < high_water) {
                pieces.emplace_back(block.offset, std::min(block.end(), high_water));
            }
        }
        if (c < live.size()) {
            for (const auto& [offset, size] : live[c]) {
                if (size > 0) {
                    pieces.emplace_back(offset, offset + size);
                }
            }
        }
        std::ranges::sort(pieces);
        std::size_t covered = 0;
        bool tiled = true;
        for (const auto& [begin, end] : pieces) {
            if (begin != covered) {
                tiled = false;
                problems.push_back(chunk + (begin > covered ? "bytes " + range(covered, begin - covered) + " are neither free nor in use"
                                                            : "byte " + std::to_string(begin) + " is counted twice (free or in use)"));
                break;
            }
            covered = end;
        }
        if (tiled && covered != high_water) {
            problems.push_back(chunk + "free and used bytes reach " + std::to_string(covered) + ", the high-water mark is " +
                               std::to_string(high_water));
        }
    }
    return problems;
}

// --- FreeListChecker ------------------------------------------------------------------

FreeListChecker::Slot& FreeListChecker::slot_of(int buffer_id) {
    Slot& slot = slots_[allocator_->canonical_buffer_id(buffer_id)];
    const auto chunks = static_cast<std::size_t>(kMaxChunks);
    slot.live.resize(chunks);
    slot.zero_freed.resize(chunks);
    return slot;
}

void FreeListChecker::take(int buffer_id, BufferAddress address, std::size_t size) {
    slot_of(buffer_id).live[static_cast<std::size_t>(address.chunk)].emplace(address.offset, size);
}

void FreeListChecker::give_back(int buffer_id, BufferAddress address, std::size_t size, const std::string& what) {
    Slot& slot = slot_of(buffer_id);
    auto& live = slot.live[static_cast<std::size_t>(address.chunk)];
    if (size == 0) {
        slot.zero_freed[static_cast<std::size_t>(address.chunk)] = true;
    }
    // Freed ranges are whole allocations, or (extra space after in-place reuse) the end of one.
    for (auto [it, end] = live.equal_range(address.offset); it != end; ++it) {
        if (it->second == size) {
            live.erase(it);
            return;
        }
    }
    for (auto it = live.begin(); it != live.end(); ++it) {
        if (it->first < address.offset && it->first + it->second == address.offset + size) {
            it->second -= size;
            return;
        }
    }
    problem(what + " gives back " + range(address.offset, size) + " in chunk " + std::to_string(address.chunk) +
            ", which is not in use");
}

void FreeListChecker::on_event(const ObservedEvent& event) {
    ++events_;
    std::string after = "?";
    if (std::holds_alternative<Observed<event::PlanStarted>>(event)) {
        // The allocator resets its chunks after this event: nothing to check yet.
        slots_.clear();
        holding_.clear();
        return;
    }
    if (const auto* allocated = std::get_if<Observed<event::TensorAllocated>>(&event)) {
        take(allocated->buffer_id, allocated->taken.decision.address, allocated->taken.decision.size);
        holding_.insert(allocated->tensor);
        after = "allocating " + allocated->tensor->name;
    } else if (const auto* reused = std::get_if<Observed<event::InPlaceReused>>(&event)) {
        const Tensor* owner = reused->view_source != nullptr ? reused->view_source : reused->parent;
        if (holding_.erase(owner) == 0) {
            problem(reused->node->name + " reuses " + owner->name + "'s memory, which it does not hold");
        }
        holding_.insert(reused->node);
        after = reused->node->name + " reusing " + reused->parent->name;
    } else if (const auto* extra = std::get_if<Observed<event::ExtraSpaceFreed>>(&event)) {
        give_back(extra->buffer_id, extra->freed.address, extra->freed.size, extra->node->name + "'s extra space");
        after = "freeing " + extra->node->name + "'s extra space";
    } else if (const auto* freed = std::get_if<Observed<event::TensorFreed>>(&event)) {
        give_back(freed->buffer_id, freed->freed.address, freed->freed.size, freed->tensor->name);
        if (freed->tensor->has_flag(TensorFlag::output)) {
            problem("output " + freed->tensor->name + " was freed");
        }
        if (holding_.erase(freed->tensor) == 0) {
            problem(freed->tensor->name + " was freed but does not hold memory");
        }
        after = "freeing " + freed->tensor->name;
    } else {
        return;  // the other events change no free list
    }
    check(after);
}

void FreeListChecker::check(const std::string& after) {
    for (auto& [id, slot] : slots_) {
        for (const std::string& p : free_list_violations(allocator_->allocator(id), slot.live, slot.zero_freed)) {
            problem("buffer " + std::to_string(id) + ", after " + after + ": " + p);
        }
    }
}

void FreeListChecker::problem(std::string text) {
    constexpr std::size_t kEnough = 20;  // the first problems tell the story
    if (problems_.size() < kEnough) {
        problems_.push_back(std::move(text));
    }
}

} // namespace gallocsim::fuzz
