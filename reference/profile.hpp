#pragma once
// Allocator version profiles: every state of ggml_gallocr's plan-relevant rules between the
// seed era (ggml f54604ef, 2024-06) and llama.cpp 0c1e570 (2026-10), as data the one
// allocator reads. The states form a history: each profile is the one before it plus one
// upstream change (`RuleChange`), described once here and read by `diff`, the docs test and
// the version map. A profile is chosen once, when an allocator is made; planning reads its
// fields directly, so the hot loop pays a bit test where it used to call a constexpr switch.

#include "reference/ops.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

// A set of ops (one bit each), buildable at compile time.
class OpSet {
public:
    constexpr OpSet() = default;
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
    constexpr OpSet with(std::initializer_list<Op> ops) const {
        OpSet copy = *this;
        for (Op op : ops) {
            copy = copy.with(op);
        }
        return copy;
    }
    constexpr bool operator==(const OpSet&) const = default;

private:
    static_assert(kOpCount <= 128, "OpSet holds 128 ops");
    static constexpr std::size_t index(Op op) { return static_cast<std::size_t>(op); }
    static constexpr std::uint64_t bit(Op op) { return std::uint64_t{1} << (index(op) % 64); }
    std::array<std::uint64_t, 2> words_{};
};

// Which chunk's tail takes a request that no free block fits.
enum class TailChoice : std::uint8_t {
    first_that_fits,  // the first chunk whose tail fits (254ea3e5)
    reuse_factor,     // the tail that needs no growth and leaves least unused, else grows least (058128a6)
};

// When reserve replaces a buffer type's chunks.
enum class Reallocation : std::uint8_t {
    when_total_grows,    // the plan's total is larger than the buffer's (every version up to 254ea3e5)
    when_a_chunk_grows,  // any chunk of the plan is larger than the chunk the buffer has (b3f27f37)
};

// Which free block before a chunk's tail a request takes. Every upstream state has `best`;
// the others are alternatives a policy file may choose (docs/policies.md).
enum class BlockFit : std::uint8_t {
    best,     // the smallest that fits (per chunk; a later chunk's fit wins over an earlier one's)
    first,    // the first that fits, in chunk and address order
    largest,  // the largest that fits ("worst fit": what stays free is as large as it can be)
};

// Which of several equally good free blocks wins.
enum class FitTies : std::uint8_t {
    last,   // the later one (upstream's `<=` scan)
    first,  // the earlier one
};

// The rules by which one buffer type's dynamic allocator picks a block.
struct FitRules {
    BlockFit block_fit = BlockFit::best;
    FitTies ties = FitTies::last;
    TailChoice tail_choice = TailChoice::reuse_factor;
    constexpr bool operator==(const FitRules&) const = default;
};

// What happens to the bytes of a larger parent past the end of a node that takes it over.
enum class ExtraSpace : std::uint8_t {
    kept,           // taken until the node is freed, then only the node's size comes back
    freed,          // freed at once from the node's (unaligned) end (9dea367c)
    freed_aligned,  // freed at once, both sizes aligned first (3129a944)
};

// The rules of one upstream state. Field defaults are the newest behaviour.
struct AllocatorProfile {
    std::string_view name;    // what --ggml-version takes: "ggml-254ea3e5"
    std::string_view commit;  // the upstream commit that made this state
    std::string_view date;    // that commit's date, YYYY-MM-DD
    std::string_view upstream;  // the upstream it reproduces, in words
    // Other names --ggml-version takes for it (names of earlier gallocsim releases).
    std::span<const std::string_view> aliases;
    // The `expected.source` strings of graph files planned by that upstream (the first is
    // what gallocsim writes for it).
    std::span<const std::string_view> sources;

    // ggml_op_can_inplace: ops whose result may take over a parent's memory.
    OpSet inplace_ops;
    // A buffer type's plan is split into chunks of at most its max size. Without: one
    // buffer per buffer type, the max size ignored while planning.
    bool chunks = true;
    TailChoice tail_choice = TailChoice::reuse_factor;  // with chunks only
    BlockFit block_fit = BlockFit::best;
    FitTies fit_ties = FitTies::last;
    Reallocation reallocation = Reallocation::when_a_chunk_grows;
    ExtraSpace free_extra_space = ExtraSpace::freed_aligned;
    // A node may take over the memory of a view parent's source (a view showing its whole
    // source, as a RESHAPE does, that is the source's only view, the source read by nothing else). Upstream has the branch but
    // never reaches it (a view owns no memory, so the ownership check rejects it first): no
    // upstream state has it; a policy may.
    bool inplace_through_views = false;
    // A tensor on an external buffer but without data counts as allocated (not planned).
    // Without, the allocator plans it like any other.
    bool external_buffer_is_allocated = true;
    // ggml_gallocr_reserve_n_size exists.
    bool has_reserve_n_size = true;
    // needs_realloc answers yes for a tensor that had external data when planned and has
    // none now. Without, upstream asks a null buffer type for its size and crashes (we
    // return an error).
    bool replans_when_data_dropped = true;
    // ggml_backend_buft_alloc_buffer answers a request for 0 bytes with a dummy buffer (no
    // memory, no base), so a tensor cannot be placed in it. Before, the buffer type
    // allocated it like any other: a base, and with `chunks` off every buffer type holds its
    // one buffer even when nothing was planned in it.
    bool empty_buffers_are_dummies = true;
    // A policy that runs in place an op no ggml kernel can run over its source (its file says
    // "unsafe": true; docs/policies.md): what it saves no backend could have, so every report
    // marks it. No upstream state sets it.
    bool unsafe = false;

    constexpr bool can_inplace(Op op) const { return inplace_ops.contains(op); }
    constexpr FitRules fit_rules() const { return {block_fit, fit_ties, tail_choice}; }
    // The largest chunk planning makes in a buffer type with this max size: the max size
    // itself with chunks; before chunks, no limit (the max size played no part in planning,
    // and the one block of a plan was as large as a measure allocator's).
    constexpr std::size_t planning_max_size(std::size_t buffer_type_max) const {
        return chunks ? buffer_type_max : SIZE_MAX;
    }
};

// One upstream change that moved a plan-relevant rule: the step from one profile to the
// next. Each rule is described here and nowhere else (docs/versions.md is checked against it).
struct RuleChange {
    std::string_view commit;    // upstream's commit ("254ea3e5"; llama.cpp's PR where no commit is known)
    std::string_view date;      // YYYY-MM-DD
    std::string_view pr;        // "llama.cpp #15815"
    std::string_view title;     // upstream's subject line
    std::string_view field;     // the AllocatorProfile field it changes
    std::string_view sentence;  // what it changes, in one sentence
};

// Every profile, newest first.
std::span<const AllocatorProfile> allocator_profiles();
// One of allocator_profiles(), not a policy made at run time (a policy file's profile).
bool is_builtin_profile(const AllocatorProfile& profile);
// The change that made `profile` from the one before it; nullptr for the oldest and for a
// policy.
const RuleChange* change_that_made(const AllocatorProfile& profile);
// The states from the older of two profiles to the newer, both included, oldest first:
// each one after the first is the one before it plus change_that_made(it). With a policy,
// just the two (no history joins them).
std::vector<const AllocatorProfile*> history_between(const AllocatorProfile& a, const AllocatorProfile& b);

// A profile's place in the history: 0 for the seed era, 1 for the state after it, …
// (std::logic_error for a policy: ask is_builtin_profile first).
std::size_t profile_age(const AllocatorProfile& profile);
const AllocatorProfile& profile_of_age(std::size_t age);  // clamped to the newest

// By name or alias.
const AllocatorProfile* find_profile(std::string_view name);
const AllocatorProfile& newest_profile();    // the default everywhere
const AllocatorProfile& baseline_profile();  // what ggml d99724f2 runs: the golden corpus
const AllocatorProfile& seed_era_profile();  // ggml f54604ef: the seeds' allocator
// The profile that reproduces a graph file's `expected.source` ("ggml d99724f2",
// "llama.cpp 0c1e570 (ggml 0.25.3)", "ggml f54604ef", or what gallocsim_source wrote);
// nullptr for any other.
const AllocatorProfile* profile_for_source(std::string_view expected_source);
// The source gallocsim writes into a plan it made: "gallocsim llama.cpp-0c1e570".
std::string gallocsim_source(const AllocatorProfile& profile);
// "llama.cpp-0c1e570, ggml-0a2b6b20, …": for error messages.
std::string_view known_profile_names();

// The ops whose ggml CPU kernel can write its result over a source of the same layout, so a
// backend could run the plan a policy makes with them in place: every op some upstream state
// lists in ggml_op_can_inplace (safe by upstream's own word), and the ops whose kernels
// docs/policies.md's table justifies one by one. A policy may add only these unless it says
// "unsafe": true.
OpSet kernel_inplace_ops();
// Why `op` is not one of kernel_inplace_ops(), in one clause for a policy file's error
// ("MUL_MAT's kernel reads whole rows of its sources for every element it writes").
std::string why_not_in_place(Op op);

} // namespace gallocsim
