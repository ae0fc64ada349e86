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

// Checks each chunk of `allocator` against `live` (one entry per chunk) for what
// upstream ggml's free lists really guarantee:
//  - at most 256 free blocks (MAX_FREE_BLOCKS);
//  - blocks of positive size never overlap;
//  - at most one block reaches past the high-water mark (the never-used rest of the chunk);
//  - below the high-water mark, free blocks and live ranges tile the chunk exactly: no
//    byte both free and in use, no byte lost.
// In a chunk where no zero-byte range was freed (`zero_freed`), also:
//  - there is no zero-size block;
//  - blocks are in strictly increasing address order and never touch (a freed range
//    merges with the neighbours it touches), and the block past the high-water mark is last.
// Zero-byte tensors break those three, in upstream too: a zero-byte tensor is placed at
// the start of a free block without taking it, and freeing it where no block touches
// inserts a zero-size block, possibly inside or after a free block. A later free that
// touches it merges into it, at its place in the list, instead of into the real
// neighbour: blocks end up out of address order, and touching blocks stay unmerged
// (fuzz/upstream_quirks_test.cpp; the golden file random-0036-edge shows it in a plan
// upstream made). The guarantees above still hold, so plans stay correct; they may use
// a few more bytes.
std::vector<std::string> free_list_violations(const DynamicAllocator& allocator, const LiveRanges& live,
                                              const std::vector<bool>& zero_freed);

// Watches a GraphAllocator plan: keeps its own record of the bytes each allocation took
// and gave back, checks the free lists after every event, and remembers which tensors
// hold memory at the end and whether an output was ever freed.
class FreeListChecker final : public EventListener {
public:
    explicit FreeListChecker(const GraphAllocator& allocator) : allocator_(&allocator) {}

    void on_event(const ObservedEvent& event) override;

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
