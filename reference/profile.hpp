#pragma once
// Allocator version profiles: the rules of ggml_gallocr that changed between the upstream
// versions people run, as data the one allocator reads (docs/versions.md lists each rule with
// its commit). A profile is chosen once, when an allocator is made; planning reads its fields
// directly, so the hot loop pays a bit test where it used to call a constexpr switch.

#include "reference/ops.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

namespace gallocsim {

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(Op::GLU) + 1;

// A set of ops (one bit each), buildable at compile time.
class OpSet {
public:
    constexpr OpSet(std::initializer_list<Op> ops) {
        for (Op op : ops) {
            words_[index(op) / 64] |= bit(op);
        }
    }
    constexpr bool contains(Op op) const { return (words_[index(op) / 64] & bit(op)) != 0; }
    constexpr OpSet with(Op op) const {
        OpSet copy = *this;
        copy.words_[index(op) / 64] |= bit(op);
        return copy;
    }
    constexpr bool operator==(const OpSet&) const = default;

private:
    static_assert(kOpCount <= 128, "OpSet holds 128 ops");
    static constexpr std::size_t index(Op op) { return static_cast<std::size_t>(op); }
    static constexpr std::uint64_t bit(Op op) { return std::uint64_t{1} << (index(op) % 64); }
    std::array<std::uint64_t, 2> words_{};
};

struct AllocatorProfile {
    std::string_view name;      // what --ggml-version takes: "ggml-d99724f2"
    std::string_view upstream;  // the upstream it reproduces, in words
    // The `expected.source` strings of graph files planned by that upstream (the first is
    // what gallocsim writes for it).
    std::span<const std::string_view> sources;

    // ggml_op_can_inplace: ops whose result may take over a parent's memory.
    OpSet inplace_ops;
    // #15815 (254ea3e5): a buffer type's plan is split into chunks of at most its max size.
    // Without: one buffer per buffer type, the max size ignored while planning.
    bool chunks = true;
    // #16679 (9dea367c), aligned by #17884 (3129a944): a node taking over a larger parent
    // returns the bytes past its own end to the free list. Without, they stay taken until
    // the node is freed, and then only the node's size comes back.
    bool free_extra_space = true;
    // #16653 (0a2b6b20): a tensor on an external buffer but without data counts as allocated
    // (not planned). Without, the allocator plans it like any other.
    bool external_buffer_is_allocated = true;
    // #16653 (0a2b6b20): ggml_gallocr_reserve_n_size exists.
    bool has_reserve_n_size = true;
    // #13222 (1e04f6ae): needs_realloc answers yes for a tensor that had external data when
    // planned and has none now. Without, upstream asks a null buffer type for its size and
    // crashes (we return an error).
    bool replans_when_data_dropped = true;

    // da649f70 (#10026, 2024-10-30): ggml_backend_buft_alloc_buffer answers a request for 0
    // bytes with a dummy buffer (no memory, no base), so a tensor cannot be placed in it.
    // Before, the buffer type allocated it like any other: a base, and with `chunks` off
    // every buffer type holds its one buffer even when nothing was planned in it.
    bool empty_buffers_are_dummies = true;

    constexpr bool can_inplace(Op op) const { return inplace_ops.contains(op); }
};

// Every profile, newest first.
std::span<const AllocatorProfile> allocator_profiles();
const AllocatorProfile* find_profile(std::string_view name);
const AllocatorProfile& newest_profile();  // the default everywhere
const AllocatorProfile& baseline_profile();  // ggml-d99724f2: the golden corpus
// The profile that reproduces a graph file's `expected.source` ("ggml d99724f2",
// "llama.cpp 0c1e570 (ggml 0.25.3)", "ggml f54604ef"); nullptr for any other.
const AllocatorProfile* profile_for_source(std::string_view expected_source);
// The profile for ggml's version string as ggml_version() reports it ("0.25.3"): only the
// releases whose ggml-alloc.c is known; nullptr for any other.
const AllocatorProfile* profile_for_ggml_version(std::string_view ggml_version);
// "ggml-d99724f2, llama.cpp-0c1e570, ggml-f54604ef": for error messages.
std::string_view known_profile_names();

} // namespace gallocsim
