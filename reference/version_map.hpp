#pragma once
// Which allocator profile a program ran, from what its ggml says about itself: the version
// string of ggml_version() ("0.13.1", "0.9.2-dev", "0.9.3-dirty", or "0.0.N" before
// semantic versioning), ggml_commit() where it names a commit, and which of a few marker
// functions its library exports (the capture records them; programs before ggml_version()
// existed have nothing else). Worked out from ggml-org/ggml's history: which release tag
// contains which allocator change, and when each marker function appeared
// (docs/versions.md, "The version map").
//
// Each piece of evidence bounds the program's state in the profile history from below and
// above; the profile used is the oldest state within the bounds ("the nearest known one
// below"), and when the bounds hold more than one state, or the version is not in the map,
// a one-line note says so.

#include "reference/profile.hpp"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

// Functions whose presence in a program's ggml bounds its age. Header-only data: the
// capture library (which links nothing of the project) probes exactly these.
struct MarkerFunction {
    std::string_view name;
    std::string_view appeared;         // the upstream commit and date that added it
    std::string_view at_least;         // present: the program's state is this profile or newer
    std::string_view at_most_if_absent;  // absent: this profile or older
};

// Each was checked against ggml-org/ggml's history (git merge-base --is-ancestor): it came
// after the state it names as `at_least` and before the state after `at_most_if_absent`.
inline constexpr std::array<MarkerFunction, 10> kMarkerFunctions{{
    {"ggml_graph_n_nodes", "1cb6721a 2024-09-20", "ggml-f54604ef", "ggml-f54604ef"},
    {"ggml_graph_get_grad", "0ce22266 2024-11-16", "ggml-da649f70", "ggml-da649f70"},
    // Added by the change that made a profile: exact on both sides.
    {"ggml_soft_max_ext_back", "93ea0016 2025-01-16", "ggml-93ea0016", "ggml-da649f70"},
    {"ggml_custom_4d", "52991e37 2025-04-09", "ggml-93ea0016", "ggml-93ea0016"},
    {"ggml_is_contiguously_allocated", "1985c3f6 2025-05-06", "ggml-1e04f6ae", "ggml-1e04f6ae"},
    {"ggml_version", "04052199 2025-07-02", "ggml-1e04f6ae", "ggml-1e04f6ae"},
    {"ggml_add_id", "3b145175 2025-08-05", "ggml-3b145175", "ggml-1e04f6ae"},
    {"ggml_ceil", "9715e19c 2025-10-15", "ggml-b3f27f37", "ggml-b3f27f37"},
    {"ggml_cumsum", "f45db474 2025-11-13", "ggml-058128a6", "ggml-058128a6"},
    {"ggml_gallocr_reserve_n_size", "0a2b6b20 2025-12-15", "ggml-0a2b6b20", "ggml-3129a944"},
}};

// What a program's ggml reports about itself.
struct ProgramGgml {
    std::optional<std::string> version;  // ggml_version(); nullopt when it has none
    std::optional<std::string> commit;   // ggml_commit(); "unknown" in builds without git
    // For each of kMarkerFunctions in order, whether the library exports it; empty when
    // not checked (captures made before the markers were recorded).
    std::vector<bool> markers;
};

struct VersionMatch {
    const AllocatorProfile* profile = nullptr;  // nullptr: nothing can be inferred
    const AllocatorProfile* newest = nullptr;   // the newest state the evidence allows (profile when exact)
    bool exact = false;  // the evidence allows this state only
    // The one sentence every front end shows for the match (conform, watch, versions, the
    // GUI): when not exact, when the evidence is odd, and always when nothing can be
    // inferred; else empty.
    std::string note;
};

VersionMatch match_ggml(const ProgramGgml& program);

// The first llama.cpp build that carries each allocator state. llama.cpp numbers its builds
// by their commit count on master (`git rev-list --count`, what `llama-cli --version` prints
// and the release tags bNNNN name), so build N carries every state whose first build is at
// most N.
struct LlamaCppBuild {
    int first_build;              // the build of the llama.cpp commit that brought the change
    std::string_view first_tag;   // the first release tag containing it (bNNNN; later when that build had none)
    std::string_view commit;      // that llama.cpp commit
    std::string_view profile;
};

// Checked in a clone of ggml-org/llama.cpp's history (to upstream build 9187, commit 0253fb21,
// 2026-05-16): each state's commit found by its PR number, its build by `git rev-list --count`,
// its first tag by `git tag --contains`, the tag before it checked not to contain it with
// `git merge-base --is-ancestor`, and the commit's ggml/src/ggml-alloc.c (ggml-alloc.c in 2024)
// compared with the ggml commit that names the state: the same blob (da649f70's change is in
// ggml-backend.cpp, so its ggml-alloc.c is the one before). The seeds' state starts where
// llama.cpp's ggml-alloc.c became f54604ef's (#6210); llama.cpp #27644 (CLAMP) is not in the
// history read, so a build after kLlamaCppBuildsCheckedTo may carry it or not.
inline constexpr std::array<LlamaCppBuild, 12> kLlamaCppBuilds{{
    {3143, "b3143", "f578b86b", "ggml-f54604ef"},  // #6210, 2024-06-13
    {3990, "b3990", "c5b0f4b5", "ggml-da649f70"},  // #10026, 2024-10-30
    {4493, "b4493", "9c8dcefe", "ggml-93ea0016"},  // #11257, 2025-01-16
    {5253, "b5253", "f057808f", "ggml-1e04f6ae"},  // #13222, 2025-05-01
    {6096, "b6096", "fd1234cb", "ggml-3b145175"},  // #15091, 2025-08-05
    {6568, "b6568", "f2a789e3", "ggml-254ea3e5"},  // #15815, 2025-09-24
    {6682, "b6682", "638d3302", "ggml-b3f27f37"},  // #16396, 2025-10-03
    {6808, "b6808", "b617cfd2", "ggml-9dea367c"},  // #16679, 2025-10-20
    {6848, "b6848", "3470a5c8", "ggml-058128a6"},  // #16788, 2025-10-26
    {7335, "b7335", "86a3f0fa", "ggml-106c2686"},  // #17870, 2025-12-09
    {7359, "b7360", "c6f6e4f9", "ggml-3129a944"},  // #17884, 2025-12-11 (no tag b7359)
    {7407, "b7410", "b1f3a6e5", "ggml-0a2b6b20"},  // #16653, 2025-12-15 (no tag b7407)
}};
inline constexpr int kLlamaCppBuildsCheckedTo = 9187;

// What a user names an allocator state by, read by one resolver for --ggml-version, a policy's
// "base" and `gallocsim versions`: a state's name or alias; a ggml version whose release carries
// one state ("0.13.1"); a llama.cpp build ("b6568"); or a prefix of a ggml or llama.cpp commit
// the map knows (7 hex digits or more). Anything else, or anything that could be more than one
// state, gets no profile and a `problem` that says what to name instead.
struct ResolvedVersion {
    const AllocatorProfile* profile = nullptr;
    std::string what;     // what the text was read as: "ggml 0.13.1", "llama.cpp build b6568", "ggml commit 254ea3e5"
    std::string problem;  // why no profile: "ggml 0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one"
};
ResolvedVersion resolve_version(std::string_view text);
// Whether `text` reads as a version ggml_version() could report ("0.9.4", "0.9.2-dev").
bool is_ggml_version(std::string_view text);

// resolve_version's profile (nullptr where it has a problem), for the GUI's selector.
const AllocatorProfile* profile_named(std::string_view name_or_version);
// What resolve_version takes, for messages: "a state (ggml-f54604ef, ...), a ggml release
// that carries one (0.13.1), a llama.cpp build bNNNN, or a commit the map knows".
std::string version_forms_text();
// Why profile_named gave nothing when there is no better reason: "unknown version; known: " and
// version_forms_text().
std::string unknown_version_text();

// A ggml release the map knows: the version, the tag's commit, the profile it carries.
struct KnownRelease {
    std::string_view version;
    std::string_view commit;
    std::string_view profile;
};
std::span<const KnownRelease> known_releases();

} // namespace gallocsim
