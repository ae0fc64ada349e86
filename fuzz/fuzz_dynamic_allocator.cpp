// libFuzzer harness (b): random sequences of dynamic allocator calls (allocate, free,
// free the end of an allocation, reset) with any alignment and maximum size. After each
// call: the result is aligned and disjoint from everything in use, and the free lists
// satisfy free_list_violations against this harness's own record of what is in use. A
// call that throws AllocatorError (out of free blocks) must leave the allocator as it was.
// The record of what is in use is kept up to date call by call (rebuilding it for every
// check made an input of k calls cost k^2 log k: 2,400 executions a second fell to 400 as
// libFuzzer grew the inputs), and the campaign caps inputs at 1,024 bytes.
#include "fuzz/free_list.hpp"
#include "fuzz/harness.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>

using namespace gallocsim;
using namespace gallocsim::fuzz;

namespace {

struct Allocation {
    BufferAddress address;
    std::size_t size = 0;  // aligned
    LiveRanges::value_type::iterator range;  // its entry in the record of what is in use
};

class Session {
public:
    Session(std::size_t alignment, std::size_t max_size) : allocator_(alignment, max_size) {}

    void allocate(std::size_t size) {
        const AllocationDecision decision = allocator_.allocate(size);
        const BufferAddress at = decision.address;
        require(decision.size == align_up(size, allocator_.alignment()), "the aligned size is wrong");
        require(at.offset % allocator_.alignment() == 0, "an unaligned offset");
        require(at.chunk >= 0 && at.chunk < allocator_.chunk_count(), "an address in no chunk");
        for (const Allocation& other : live_) {
            const bool overlap = other.address.chunk == at.chunk && decision.size > 0 && other.size > 0 &&
                                 at.offset < other.address.offset + other.size && other.address.offset < at.offset + decision.size;
            require(!overlap, "a new allocation overlaps one in use");
        }
        if (in_use_.size() < static_cast<std::size_t>(allocator_.chunk_count())) {
            in_use_.resize(static_cast<std::size_t>(allocator_.chunk_count()));
            zero_freed_.resize(in_use_.size());
        }
        const auto range = in_use_[static_cast<std::size_t>(at.chunk)].emplace(at.offset, decision.size);
        live_.push_back({at, decision.size, range});
    }

    void free(std::size_t index) {
        if (live_.empty()) {
            return;
        }
        const auto it = live_.begin() + static_cast<std::ptrdiff_t>(index % live_.size());
        if (give_back(it->address, it->size)) {
            in_use_[static_cast<std::size_t>(it->address.chunk)].erase(it->range);
            live_.erase(it);
        }
    }

    // What the graph allocator does after in-place reuse of a larger parent: free the end.
    void free_end(std::size_t index, std::size_t keep) {
        if (live_.empty()) {
            return;
        }
        Allocation& a = live_[index % live_.size()];
        const std::size_t kept = align_up(keep % (a.size + 1), allocator_.alignment());
        if (kept >= a.size) {
            return;
        }
        if (give_back({a.address.chunk, a.address.offset + kept}, a.size - kept)) {
            a.size = kept;
            a.range->second = kept;
        }
    }

    void reset() {
        allocator_.reset();
        live_.clear();
        in_use_.clear();
        zero_freed_.clear();
    }

    void check() {
        // A chunk the allocator made without handing out anything from it yet.
        in_use_.resize(static_cast<std::size_t>(allocator_.chunk_count()));
        zero_freed_.resize(in_use_.size());
        require_none(free_list_violations(allocator_, in_use_, zero_freed_), "free lists");
    }

private:
    // False when the allocator refused (out of free blocks), having changed nothing.
    bool give_back(BufferAddress address, std::size_t size) {
        const std::vector<Chunk> before = allocator_.chunks();
        try {
            allocator_.free(address, size);
        } catch (const AllocatorError&) {
            require(allocator_.chunks() == before, "a failed free changed the free lists");
            return false;
        }
        if (size == 0) {
            zero_freed_[static_cast<std::size_t>(address.chunk)] = true;
        }
        return true;
    }

    DynamicAllocator allocator_;
    std::vector<Allocation> live_;
    LiveRanges in_use_;              // the same ranges, per chunk, as free_list_violations takes them
    std::vector<bool> zero_freed_;   // per chunk: a zero-byte range was given back there
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const std::size_t alignment = std::size_t{1} << in.ConsumeIntegralInRange(0, 8);
    const std::size_t max_size = in.ConsumeBool() ? SIZE_MAX : in.ConsumeIntegralInRange<std::size_t>(1, 1 << 16);
    Session session(alignment, max_size);
    while (in.remaining_bytes() > 0) {
        switch (in.ConsumeIntegralInRange(0, 7)) {
        case 0: session.allocate(0); break;
        case 1: case 2: session.allocate(in.ConsumeIntegralInRange<std::size_t>(1, 512)); break;
        case 3: session.allocate(in.ConsumeIntegralInRange<std::size_t>(1, std::size_t{1} << 24)); break;
        case 4: case 5: session.free(in.ConsumeIntegral<std::uint16_t>()); break;
        case 6: session.free_end(in.ConsumeIntegral<std::uint16_t>(), in.ConsumeIntegral<std::uint32_t>()); break;
        default: if (in.ConsumeIntegralInRange(0, 15) == 0) { session.reset(); } break;
        }
        session.check();
    }
    return 0;
}
