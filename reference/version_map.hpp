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
    bool exact = false;  // the evidence allows this state only
    std::string note;    // one line when not exact, or when the evidence is odd; else empty
};

VersionMatch match_ggml(const ProgramGgml& program);

// What --ggml-version (and the GUI's selector) takes: a profile's name or alias, or a ggml
// version the map pins to one state ("0.13.1"); nullptr for anything else.
const AllocatorProfile* profile_named(std::string_view name_or_version);
// Why profile_named gave nothing, for every front end that takes a version from a user:
// "unknown version; known: ggml-f54604ef, ..., or a ggml release that carries exactly one of them (0.9.1, ...)".
std::string unknown_version_text();

// A ggml release the map knows: the version, the tag's commit, the profile it carries.
struct KnownRelease {
    std::string_view version;
    std::string_view commit;
    std::string_view profile;
};
std::span<const KnownRelease> known_releases();

} // namespace gallocsim
