#pragma once
// What ggml's dynamic allocator keeps true of its free lists between any two calls,
// checked against an independent record of the bytes in use. See free_list_violations
// for the exact statement, including what zero-byte tensors relax.

#include "reference/graph_allocator.hpp"
#include "reference/observer.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gallocsim::fuzz {

// The aligned ranges handed out and not yet given back, per chunk (offset -> sizes; a
// zero-byte allocation may share its offset with another).
using LiveRanges = std::vector<std::multimap<std::size_t, std::size_t>>;

// Checks each chunk of `allocator` against `live` (one entry per chunk):
//  - at most 256 free blocks (MAX_FREE_BLOCKS);
//  - blocks of positive size are in strictly increasing address order, never overlap,
//    and never touch (a freed range merges with the neighbours it touches);
//  - every positive block but the last one (the tail) ends at or below the high-water mark;
//  - below the high-water mark, free blocks and live ranges tile the chunk exactly: no
//    byte both free and in use, no byte lost;
//  - there is no zero-size block.
// Zero-byte tensors relax this, exactly as upstream ggml does, in a chunk where a zero-byte
// range was freed (`zero_freed`): freeing a zero-byte range that no block touches inserts
// a zero-size block, which may land out of address order (even after the tail), and
// which a later free can merge with instead of the real neighbour, leaving two positive
// blocks that touch (fuzz/free_list_test.cpp shows both). The tiling still holds, so
// plans stay correct; they may just use a few more bytes.
std::vector<std::string> free_list_violations(const DynamicAllocator& allocator, const LiveRanges& live,
                                              const std::vector<bool>& zero_freed);

// Watches a GraphAllocator plan: keeps its own record of the bytes each allocation took
// and gave back, checks the free lists after every event, and remembers which tensors
// hold memory at the end and whether an output was ever freed.
class FreeListChecker final : public AllocationObserver {
public:
    explicit FreeListChecker(const GraphAllocator& allocator) : allocator_(&allocator) {}

    void on_event(const Event& event) override;

    const std::vector<std::string>& problems() const { return problems_; }
    // Tensors whose memory was allocated and not freed (ownership follows in-place reuse).
    const std::set<const Tensor*>& holding() const { return holding_; }
    int events_checked() const { return events_; }

private:
    struct Slot {
        LiveRanges live;
        std::vector<bool> zero_freed;
    };
    Slot& slot_of(int buffer_id);
    void take(int buffer_id, BufferAddress address, std::size_t size);
    void give_back(int buffer_id, BufferAddress address, std::size_t size, const std::string& what);
    void check(const std::string& after);
    void problem(std::string text);

    const GraphAllocator* allocator_;
    std::map<int, Slot> slots_;  // by canonical buffer id
    std::set<const Tensor*> holding_;
    std::vector<std::string> problems_;
    int events_ = 0;
};

} // namespace gallocsim::fuzz
