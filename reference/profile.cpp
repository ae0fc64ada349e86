#include "reference/profile.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <tuple>

namespace gallocsim {
namespace {

// ggml f54604ef (2024-06): the in-place list of the seed era.
constexpr OpSet kSeedEraInplaceOps{
    Op::SCALE, Op::DIAG_MASK_ZERO, Op::DIAG_MASK_INF, Op::ADD, Op::ADD1, Op::SUB, Op::MUL, Op::DIV,
    Op::SQR, Op::SQRT, Op::LOG, Op::UNARY, Op::ROPE, Op::RMS_NORM, Op::SOFT_MAX,
};

// ggml d99724f2: the seed era's list plus the backward ops (93ea0016, #11257), ADD_ID
// (3b145175, #15091) and FILL (106c2686, #17870).
constexpr OpSet kBaselineInplaceOps = kSeedEraInplaceOps.with(Op::ROPE_BACK)
                                          .with(Op::SILU_BACK)
                                          .with(Op::RMS_NORM_BACK)
                                          .with(Op::SOFT_MAX_BACK)
                                          .with(Op::ADD_ID)
                                          .with(Op::FILL);

constexpr std::string_view kLlamaSources[] = {"llama.cpp 0c1e570 (ggml 0.25.3)"};
constexpr std::string_view kBaselineSources[] = {"ggml d99724f2"};
constexpr std::string_view kSeedEraSources[] = {"ggml f54604ef"};

constexpr std::array<AllocatorProfile, 3> kProfiles{{
    {
        .name = "llama.cpp-0c1e570",
        .upstream = "llama.cpp 0c1e570 (2026-10-01, ggml 0.25.3): ggml d99724f2 plus CLAMP in place (llama.cpp #27644)",
        .sources = kLlamaSources,
        .inplace_ops = kBaselineInplaceOps.with(Op::CLAMP),
    },
    {
        .name = "ggml-d99724f2",
        .upstream = "ggml d99724f2 (2026-08-21; ggml-alloc.c unchanged since 2026-05-21, ggml 0.15.3 to 0.21.0)",
        .sources = kBaselineSources,
        .inplace_ops = kBaselineInplaceOps,
    },
    {
        .name = "ggml-f54604ef",
        .upstream = "ggml f54604ef (2024-06-15, llama-cpp-python 0.2.80): the seed-era allocator, one buffer per buffer type",
        .sources = kSeedEraSources,
        .inplace_ops = kSeedEraInplaceOps,
        .chunks = false,
        .free_extra_space = false,
        .external_buffer_is_allocated = false,
        .has_reserve_n_size = false,
        .replans_when_data_dropped = false,
        .empty_buffers_are_dummies = false,
    },
}};

using Version = std::tuple<int, int, int>;

// "MAJOR.MINOR.PATCH", digits only; anything else is no version.
std::optional<Version> parse_version(std::string_view text) {
    std::array<int, 3> parts{};
    const char* at = text.data();
    const char* const end = text.data() + text.size();
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            if (at == end || *at != '.') {
                return std::nullopt;
            }
            ++at;
        }
        const auto [next, error] = std::from_chars(at, end, parts[i]);
        if (error != std::errc{} || next == at || *at == '-' || *at == '+') {
            return std::nullopt;
        }
        at = next;
    }
    if (at != end) {
        return std::nullopt;
    }
    return Version{parts[0], parts[1], parts[2]};
}

} // namespace

std::span<const AllocatorProfile> allocator_profiles() { return kProfiles; }

const AllocatorProfile* find_profile(std::string_view name) {
    const auto found = std::ranges::find(kProfiles, name, &AllocatorProfile::name);
    return found == kProfiles.end() ? nullptr : &*found;
}

const AllocatorProfile& newest_profile() { return kProfiles[0]; }
const AllocatorProfile& baseline_profile() { return kProfiles[1]; }

const AllocatorProfile* profile_for_source(std::string_view expected_source) {
    for (const AllocatorProfile& profile : kProfiles) {
        if (std::ranges::find(profile.sources, expected_source) != profile.sources.end()) {
            return &profile;
        }
    }
    return nullptr;
}

// Only releases whose ggml-alloc.c was compared with a profile's commit: ggml 0.15.3 to
// 0.21.0 carry d99724f2's byte for byte, llama.cpp 0c1e570 vendors 0.25.3. Versions between
// (0.21.1 to 0.25.2) may or may not have CLAMP in place, so they get no guess.
const AllocatorProfile* profile_for_ggml_version(std::string_view ggml_version) {
    const auto version = parse_version(ggml_version);
    if (!version) {
        return nullptr;
    }
    if (*version >= Version{0, 15, 3} && *version <= Version{0, 21, 0}) {
        return find_profile("ggml-d99724f2");
    }
    if (*version == Version{0, 25, 3}) {
        return find_profile("llama.cpp-0c1e570");
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

} // namespace gallocsim
