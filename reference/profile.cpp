#include "reference/profile.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace gallocsim {
namespace {

// ggml f54604ef (2024-06): the in-place list of the seed era.
constexpr OpSet kSeedEraInplaceOps{
    Op::SCALE, Op::DIAG_MASK_ZERO, Op::DIAG_MASK_INF, Op::ADD, Op::ADD1, Op::SUB, Op::MUL, Op::DIV,
    Op::SQR, Op::SQRT, Op::LOG, Op::UNARY, Op::ROPE, Op::RMS_NORM, Op::SOFT_MAX,
};

// The history, oldest first: each step is one upstream change and the profile it makes.
// Read from `git log f54604ef..d99724f2 -- src/ggml-alloc.c` (and ggml-backend.cpp for the
// empty buffers) in ggml-org/ggml, commit by commit, and llama.cpp's CLAMP change on top;
// docs/versions.md lists the commits that were read and found to change no plan.
struct Step {
    RuleChange change;
    std::string_view name;
    std::string_view upstream;
    void (*apply)(AllocatorProfile&);
    std::span<const std::string_view> aliases = {};
    std::span<const std::string_view> sources = {};
};

constexpr std::string_view kSeedEraSources[] = {"ggml f54604ef"};
constexpr std::string_view kBaselineSources[] = {"ggml d99724f2"};
constexpr std::string_view kBaselineAliases[] = {"ggml-d99724f2"};
constexpr std::string_view kLlamaSources[] = {"llama.cpp 0c1e570 (ggml 0.25.3)"};

constexpr AllocatorProfile kSeedEra{
    .name = "ggml-f54604ef",
    .commit = "f54604ef",
    .date = "2024-06-13",
    .upstream = "ggml f54604ef (llama-cpp-python 0.2.80): the seeds' allocator, one buffer per buffer type",
    .aliases = {},
    .sources = kSeedEraSources,
    .inplace_ops = kSeedEraInplaceOps,
    .chunks = false,
    .tail_choice = TailChoice::first_that_fits,
    .reallocation = Reallocation::when_total_grows,
    .free_extra_space = ExtraSpace::kept,
    .external_buffer_is_allocated = false,
    .has_reserve_n_size = false,
    .replans_when_data_dropped = false,
    .empty_buffers_are_dummies = false,
};

constexpr Step kSteps[] = {
    {{"da649f70", "2024-10-30", "llama.cpp #10026", "llama : refactor model loader with backend registry",
      "empty_buffers_are_dummies",
      "a request for 0 bytes gets a dummy buffer with no memory and no base, so a zero-byte tensor cannot be placed "
      "in it (before, the buffer type allocated it like any other)"},
     "ggml-da649f70", "ggml da649f70: zero-byte buffers are dummies (ggml-backend.cpp)",
     [](AllocatorProfile& p) { p.empty_buffers_are_dummies = true; }},
    {{"93ea0016", "2025-01-16", "llama.cpp #11257", "CUDA: backwards pass for misc. ops, add tests", "inplace_ops",
      "ROPE_BACK, SILU_BACK, RMS_NORM_BACK and SOFT_MAX_BACK may run in place"},
     "ggml-93ea0016", "ggml 93ea0016: the backward ops in place",
     [](AllocatorProfile& p) {
         p.inplace_ops = p.inplace_ops.with({Op::ROPE_BACK, Op::SILU_BACK, Op::RMS_NORM_BACK, Op::SOFT_MAX_BACK});
     }},
    {{"1e04f6ae", "2025-05-01", "llama.cpp #13222", "ggml: Don't assert fail when tensor data changes",
      "replans_when_data_dropped",
      "a tensor that had external data when the graph was planned and has none now makes alloc_graph plan again "
      "(before, upstream asked a null buffer type for its size and crashed)"},
     "ggml-1e04f6ae", "ggml 1e04f6ae: a tensor whose data was dropped makes alloc_graph plan again",
     [](AllocatorProfile& p) { p.replans_when_data_dropped = true; }},
    {{"3b145175", "2025-08-05", "llama.cpp #15091", "llama : add gpt-oss", "inplace_ops", "ADD_ID may run in place"},
     "ggml-3b145175", "ggml 3b145175: ADD_ID in place",
     [](AllocatorProfile& p) { p.inplace_ops = p.inplace_ops.with(Op::ADD_ID); }},
    {{"254ea3e5", "2025-09-24", "llama.cpp #15815", "ggml : split graph allocations according to backend max buffer size",
      "chunks",
      "a buffer type's plan is split into chunks of at most its max size (up to 16; a tensor larger than the max gets a "
      "chunk of its own, the last chunk is unbounded); a request no free block fits takes the first chunk's tail that "
      "fits, best fit keeps a later chunk's fitting block over an earlier chunk's (before, one buffer per buffer type "
      "and the max size ignored while planning)"},
     "ggml-254ea3e5", "ggml 254ea3e5: chunks of at most the max size",
     [](AllocatorProfile& p) { p.chunks = true; }},
    {{"b3f27f37", "2025-10-03", "llama.cpp #16396", "ggml : fix graph reallocation with multiple chunks", "reallocation",
      "reserve reallocates a buffer when any chunk of the plan is larger than the chunk it has (before, only when the "
      "plan's total was larger than the buffer's)"},
     "ggml-b3f27f37", "ggml b3f27f37: reallocation when a chunk grows",
     [](AllocatorProfile& p) { p.reallocation = Reallocation::when_a_chunk_grows; }},
    {{"9dea367c", "2025-10-20", "llama.cpp #16679", "ggml-alloc : fix leak when reusing a tensor with a larger size",
      "free_extra_space",
      "a node that takes over a larger parent frees the parent's bytes past its own (unaligned) end at once (before, "
      "they stayed taken, and only the node's size came back when the node was freed)"},
     "ggml-9dea367c", "ggml 9dea367c: free_extra_space",
     [](AllocatorProfile& p) { p.free_extra_space = ExtraSpace::freed; }},
    {{"058128a6", "2025-10-26", "llama.cpp #16788", "ggml-alloc : make gallocr prefer chunks that allow memory reuse",
      "tail_choice",
      "among the chunks' tails that fit, the one that needs no growth and leaves least unused is taken, else the one "
      "that grows least (the reuse factor; before, the first tail that fits)"},
     "ggml-058128a6", "ggml 058128a6: the reuse factor picks the tail",
     [](AllocatorProfile& p) { p.tail_choice = TailChoice::reuse_factor; }},
    {{"106c2686", "2025-12-09", "llama.cpp #17870", "ggml : allow fill node alloc inplace", "inplace_ops",
      "FILL may run in place"},
     "ggml-106c2686", "ggml 106c2686: FILL in place",
     [](AllocatorProfile& p) { p.inplace_ops = p.inplace_ops.with(Op::FILL); }},
    {{"3129a944", "2025-12-11", "llama.cpp #17884", "ggml-alloc : fix reuse-parent logic for misaligned sizes",
      "free_extra_space",
      "free_extra_space aligns the parent's and the node's sizes first, so the freed block starts aligned"},
     "ggml-3129a944", "ggml 3129a944: free_extra_space aligned",
     [](AllocatorProfile& p) { p.free_extra_space = ExtraSpace::freed_aligned; }},
    {{"0a2b6b20", "2025-12-15", "llama.cpp #16653",
      "llama: automatically set parameters not set by the user in such a way that maximizes GPU utilization",
      "external_buffer_is_allocated",
      "a tensor on an external buffer without data counts as allocated and is not planned, and "
      "ggml_gallocr_reserve_n_size plans without allocating"},
     "ggml-0a2b6b20",
     "ggml 0a2b6b20 (ggml-alloc.c's plans unchanged through d99724f2, 2026-08-21, the golden corpus)",
     [](AllocatorProfile& p) {
         p.external_buffer_is_allocated = true;
         p.has_reserve_n_size = true;
     },
     kBaselineAliases, kBaselineSources},
    // llama.cpp's change, not yet in the ggml history read here: no commit of its own is
    // known, so the profile is named after the llama.cpp commit it was verified at.
    {{"llama.cpp #27644", "2026-08-24", "llama.cpp #27644", "ggml : fix ggml_clamp", "inplace_ops",
      "CLAMP may run in place (ggml_clamp makes a new tensor instead of a view of its input)"},
     "llama.cpp-0c1e570", "llama.cpp 0c1e570 (ggml 0.25.3), a commit of 2026-10-01: ggml 0a2b6b20's rules plus CLAMP in place, "
     "from llama.cpp #27644 of 2026-08-24",
     [](AllocatorProfile& p) { p.inplace_ops = p.inplace_ops.with(Op::CLAMP); }, {}, kLlamaSources},
};

constexpr std::size_t kProfileCount = std::size(kSteps) + 1;

// Newest first: kProfiles[0] is the last step's, kProfiles[kProfileCount - 1] the seed era.
constexpr std::array<AllocatorProfile, kProfileCount> make_profiles() {
    std::array<AllocatorProfile, kProfileCount> profiles{};
    AllocatorProfile state = kSeedEra;
    profiles[kProfileCount - 1] = state;
    for (std::size_t i = 0; i < std::size(kSteps); ++i) {
        const Step& step = kSteps[i];
        step.apply(state);
        state.name = step.name;
        state.commit = step.change.commit;
        state.date = step.change.date;
        state.upstream = step.upstream;
        state.aliases = step.aliases;
        state.sources = step.sources;
        profiles[kProfileCount - 2 - i] = state;
    }
    return profiles;
}

constexpr std::array<AllocatorProfile, kProfileCount> kProfiles = make_profiles();

bool in_history(const AllocatorProfile& profile) {
    const std::less<const AllocatorProfile*> before;
    return !before(&profile, kProfiles.data()) && before(&profile, kProfiles.data() + kProfileCount);
}

// The position of a profile in the history: 0 for the seed era. A policy has none.
std::size_t age(const AllocatorProfile& profile) {
    if (!in_history(profile)) {
        throw std::logic_error("profile " + std::string(profile.name) + " is a policy, not a state of ggml's history");
    }
    const auto index = static_cast<std::size_t>(&profile - kProfiles.data());
    return kProfileCount - 1 - index;
}

// The golden corpus was made by ggml d99724f2, whose plans are 0a2b6b20's state.
constexpr std::size_t kBaselineIndex = [] {
    std::size_t index = 0;
    while (index < kProfileCount && kProfiles[index].name != "ggml-0a2b6b20") {
        ++index;
    }
    return index;
}();
static_assert(kBaselineIndex < kProfileCount, "the baseline profile is in the history");

} // namespace

std::span<const AllocatorProfile> allocator_profiles() { return kProfiles; }

bool is_builtin_profile(const AllocatorProfile& profile) { return in_history(profile); }

std::size_t profile_age(const AllocatorProfile& profile) { return age(profile); }

const AllocatorProfile& profile_of_age(std::size_t step) {
    return kProfiles[kProfileCount - 1 - std::min(step, kProfileCount - 1)];
}

const RuleChange* change_that_made(const AllocatorProfile& profile) {
    if (!in_history(profile)) {
        return nullptr;
    }
    const std::size_t step = age(profile);
    return step == 0 ? nullptr : &kSteps[step - 1].change;
}

std::vector<const AllocatorProfile*> history_between(const AllocatorProfile& a, const AllocatorProfile& b) {
    if (!in_history(a) || !in_history(b)) {
        return {&a, &b};
    }
    const std::size_t older = std::min(age(a), age(b));
    const std::size_t newer = std::max(age(a), age(b));
    std::vector<const AllocatorProfile*> states;
    for (std::size_t step = older; step <= newer; ++step) {
        states.push_back(&kProfiles[kProfileCount - 1 - step]);
    }
    return states;
}

const AllocatorProfile* find_profile(std::string_view name) {
    for (const AllocatorProfile& profile : kProfiles) {
        if (profile.name == name || std::ranges::find(profile.aliases, name) != profile.aliases.end()) {
            return &profile;
        }
    }
    return nullptr;
}

const AllocatorProfile& newest_profile() { return kProfiles.front(); }
const AllocatorProfile& baseline_profile() { return kProfiles[kBaselineIndex]; }
const AllocatorProfile& seed_era_profile() { return kProfiles.back(); }

std::string gallocsim_source(const AllocatorProfile& profile) { return "gallocsim " + std::string(profile.name); }

const AllocatorProfile* profile_for_source(std::string_view expected_source) {
    // A plan gallocsim wrote (plan --json) names the profile it planned by.
    if (constexpr std::string_view ours = "gallocsim "; expected_source.starts_with(ours)) {
        const std::string_view name = expected_source.substr(ours.size());
        const AllocatorProfile* profile = find_profile(name);
        return profile != nullptr && profile->name == name ? profile : nullptr;
    }
    for (const AllocatorProfile& profile : kProfiles) {
        if (std::ranges::find(profile.sources, expected_source) != profile.sources.end()) {
            return &profile;
        }
    }
    return nullptr;
}

std::string_view known_profile_names() {
    static const std::string names = [] {
        std::string text;
        for (const AllocatorProfile& profile : kProfiles) {
            text += (text.empty() ? "" : ", ") + std::string(profile.name);
        }
        return text;
    }();
    return names;
}

// Beyond upstream's lists, the ops whose CPU kernels (ggml-org/ggml src/ggml-cpu, read at
// d99724f2) write each result element from the source elements at the same index only, row by
// row, so a result over a source of the same layout reads every value before it is replaced:
// GLU (ops.cpp's reglu/geglu/swiglu/geglu_erf/geglu_quick/swiglu_oai call a vector function
// y[i] = f(x[i]) * g[i] per row; the fused form's result has half its source's width, so the
// allocator's same-layout check never lets it take its source over), SIN and COS (unary-ops.cpp:
// y[i] = op(x[i]) per row). docs/policies.md has the table, with the ops refused and why.
constexpr OpSet kKernelCheckedInplaceOps{Op::GLU, Op::SIN, Op::COS};

OpSet kernel_inplace_ops() {
    static const OpSet ops = [] {
        OpSet all = kKernelCheckedInplaceOps;
        for (const AllocatorProfile& profile : kProfiles) {
            for (std::size_t i = 0; i < kOpCount; ++i) {
                if (profile.can_inplace(static_cast<Op>(i))) {
                    all = all.with(static_cast<Op>(i));
                }
            }
        }
        return all;
    }();
    return ops;
}

std::string why_not_in_place(Op op) {
    const std::string name(op_name(op));
    switch (op) {
    case Op::MUL_MAT:
    case Op::MUL_MAT_ID:
        return name + "'s kernel reads a whole row and column of its sources for each element it writes, "
                      "so a result written over a source destroys values later elements still read";
    case Op::CPY:
        return "CPY's kernel writes into its second source (its result is a view of it), copying with memcpy "
               "where the types match, whose source and destination must not overlap";
    case Op::CONT:
    case Op::DUP:
        return name + "'s kernel copies with memcpy, whose source and destination must not overlap, or "
                      "gathers a non-contiguous source into another order";
    case Op::GET_ROWS:
        return "GET_ROWS's kernel copies source row idx[i] to result row i, so writing row i can destroy a "
               "source row a later index still reads";
    default:
        return "no ggml CPU kernel of " + name + " was found to write over its source (docs/policies.md "
               "lists the ops whose kernels were read)";
    }
}

} // namespace gallocsim
