#include "reference/version_map.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <tuple>

namespace gallocsim {
namespace {

// ggml-org/ggml's release tags (semantic versioning began at 0.9.0-dev, 2025-09-16; 0.9.2 was
// never tagged), each with the profile of the ggml-alloc.c it carries (the blob at the tag,
// matched to the history of src/ggml-alloc.c); and llama.cpp 0c1e570's vendored ggml, which
// reports 0.25.3.
constexpr KnownRelease kReleases[] = {
    {"0.9.1", "ebdf2fb7", "ggml-3b145175"},  {"0.9.3", "7bffd79a", "ggml-254ea3e5"},
    {"0.9.4", "72632094", "ggml-254ea3e5"},  {"0.9.5", "ebc3a0f4", "ggml-0a2b6b20"},
    {"0.9.6", "95e935da", "ggml-0a2b6b20"},  {"0.9.7", "d6754f3d", "ggml-0a2b6b20"},
    {"0.9.8", "2fb6431f", "ggml-0a2b6b20"},  {"0.9.9", "a04eea07", "ggml-0a2b6b20"},
    {"0.9.10", "50634c28", "ggml-0a2b6b20"}, {"0.9.11", "49f84a92", "ggml-0a2b6b20"},
    {"0.10.0", "1c40d85a", "ggml-0a2b6b20"}, {"0.10.1", "387fa29f", "ggml-0a2b6b20"},
    {"0.10.2", "4db80ea2", "ggml-0a2b6b20"}, {"0.11.0", "ac6f7b44", "ggml-0a2b6b20"},
    {"0.11.1", "628249b3", "ggml-0a2b6b20"}, {"0.12.0", "0ce7ad34", "ggml-0a2b6b20"},
    {"0.12.1", "0a37c216", "ggml-0a2b6b20"}, {"0.13.0", "e705c5fe", "ggml-0a2b6b20"},
    {"0.13.1", "1e33fed3", "ggml-0a2b6b20"}, {"0.14.0", "7142aa6b", "ggml-0a2b6b20"},
    {"0.15.0", "a5ce761c", "ggml-0a2b6b20"}, {"0.15.1", "f158c192", "ggml-0a2b6b20"},
    {"0.15.2", "707321c4", "ggml-0a2b6b20"}, {"0.15.3", "eced84c8", "ggml-0a2b6b20"},
    {"0.16.0", "524f974b", "ggml-0a2b6b20"}, {"0.17.0", "9be31331", "ggml-0a2b6b20"},
    {"0.18.0", "06ca9761", "ggml-0a2b6b20"}, {"0.18.1", "90951f99", "ggml-0a2b6b20"},
    {"0.19.0", "30bf8685", "ggml-0a2b6b20"}, {"0.20.0", "2d191b5d", "ggml-0a2b6b20"},
    {"0.20.1", "3834fd81", "ggml-0a2b6b20"}, {"0.20.2", "8c63e709", "ggml-0a2b6b20"},
    {"0.21.0", "8599e0ea", "ggml-0a2b6b20"}, {"0.25.3", "0c1e570", "llama.cpp-0c1e570"},
};

// ggml_version() reported "0.0.N" (N a commit count) from 04052199 (2025-07-02) until
// semantic versioning (9db4785d, 2025-09-16): the states of that time.
constexpr std::string_view kBuildNumberEraFirst = "ggml-1e04f6ae";
constexpr std::string_view kBuildNumberEraLast = "ggml-3b145175";

using Version = std::tuple<int, int, int>;

struct ParsedVersion {
    Version number;
    bool dev = false;    // "-dev": after the release before it, before this one
    bool dirty = false;  // "-dirty": built from modified sources
};

// "MAJOR.MINOR.PATCH" with an optional "-dev" and "-dirty"; anything else is no version.
std::optional<ParsedVersion> parse_version(std::string_view text) {
    ParsedVersion parsed;
    auto strip = [&](std::string_view suffix) {
        if (text.ends_with(suffix)) {
            text.remove_suffix(suffix.size());
            return true;
        }
        return false;
    };
    parsed.dirty = strip("-dirty");
    parsed.dev = strip("-dev");
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
    parsed.number = {parts[0], parts[1], parts[2]};
    return parsed;
}

Version release_number(const KnownRelease& release) { return parse_version(release.version)->number; }

std::size_t age_of(std::string_view profile_name) {
    const AllocatorProfile* profile = find_profile(profile_name);
    return profile != nullptr ? profile_age(*profile) : 0;
}

std::string name_at(std::size_t age) { return std::string(profile_of_age(age).name); }

// The bounds the evidence puts on the program's state, and what to say about them.
struct Bounds {
    std::size_t lo = 0;
    std::size_t hi = profile_age(newest_profile());
    bool known = false;  // some evidence was read
    std::string about;   // what the version evidence was, for the note
    std::string remark;  // a version the map does not hold, modified sources, …

    void at_least(std::size_t age) { lo = std::max(lo, age); }
    void at_most(std::size_t age) { hi = std::min(hi, age); }
};

void read_version(std::string_view text, Bounds& bounds) {
    const auto parsed = parse_version(text);
    bounds.about = "ggml " + std::string(text);
    if (!parsed) {
        bounds.remark = "ggml reports version \"" + std::string(text) + "\", which the version map cannot read";
        return;
    }
    bounds.known = true;
    if (parsed->dirty) {
        bounds.remark = "ggml " + std::string(text) + " was built from modified sources";
    }
    const Version version = parsed->number;
    if (std::get<0>(version) == 0 && std::get<1>(version) == 0) {  // 0.0.N: a build number
        bounds.at_least(age_of(kBuildNumberEraFirst));
        bounds.at_most(age_of(kBuildNumberEraLast));
        return;
    }
    // The newest release at or below the version (strictly below for "-dev"), and the one after it.
    const KnownRelease* below = nullptr;
    const KnownRelease* above = nullptr;
    for (const KnownRelease& release : kReleases) {
        const Version number = release_number(release);
        if (number < version || (number == version && !parsed->dev)) {
            below = &release;
        } else if (above == nullptr) {
            above = &release;
        }
    }
    if (below == nullptr) {
        if (version < Version{0, 9, 0}) {  // semantic versioning began with 0.9.0-dev
            bounds.known = false;
            bounds.remark = "ggml reports version " + std::string(text) + ", older than any ggml version there was";
            return;
        }
        // The days of 0.9.0-dev and 0.9.1-dev, before the first tag.
        bounds.at_least(age_of(kBuildNumberEraLast));
        bounds.at_most(age_of(kReleases[0].profile));
        return;
    }
    // A program built between two releases reports the older one (ggml) or carries changes
    // its vendored ggml got before the next release (llama.cpp), so it may hold any state
    // up to the next release's.
    bounds.at_least(age_of(below->profile));
    if (above != nullptr) {
        bounds.at_most(age_of(above->profile));
    }
    if (release_number(*below) != version || parsed->dev) {
        bounds.remark = "ggml " + std::string(text) + " is not in the version map: planned as the nearest known version below it, " +
                        std::string(below->version);
    }
}

void read_commit(std::string_view commit, Bounds& bounds) {
    if (commit.ends_with("-dirty")) {
        commit.remove_suffix(std::string_view("-dirty").size());
    }
    if (commit.size() < 7) {
        return;  // "unknown", or too short to name a commit
    }
    auto names = [&](std::string_view known) { return known.starts_with(commit) || commit.starts_with(known); };
    for (const KnownRelease& release : kReleases) {
        if (names(release.commit)) {
            bounds.known = true;
            bounds.at_least(age_of(release.profile));
            bounds.at_most(age_of(release.profile));
            return;
        }
    }
    for (const AllocatorProfile& profile : allocator_profiles()) {
        if (names(profile.commit)) {
            bounds.known = true;
            bounds.at_least(profile_age(profile));
            bounds.at_most(profile_age(profile));
            return;
        }
    }
}

void read_markers(const std::vector<bool>& markers, Bounds& bounds) {
    for (std::size_t i = 0; i < markers.size() && i < kMarkerFunctions.size(); ++i) {
        bounds.known = true;
        if (markers[i]) {
            bounds.at_least(age_of(kMarkerFunctions[i].at_least));
        } else {
            bounds.at_most(age_of(kMarkerFunctions[i].at_most_if_absent));
        }
    }
}

std::string either_of(const AllocatorProfile& oldest, const AllocatorProfile& newest) {
    return "could be any of " + std::string(oldest.name) + " … " + std::string(newest.name) + "; name one";
}

bool is_hex(std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// "b6568": a llama.cpp build. Up to 6 digits, so that a commit prefix such as "b1234567" stays a commit.
bool looks_like_build(std::string_view text) {
    return text.size() >= 2 && text.size() <= 7 && text.front() == 'b' &&
           std::ranges::all_of(text.substr(1), [](char c) { return c >= '0' && c <= '9'; });
}

// Build N carries the newest state whose first build is at most N; past the history the map
// read, the CLAMP change may have come or not.
ResolvedVersion resolve_build(std::string_view text) {
    int build = 0;
    std::from_chars(text.data() + 1, text.data() + text.size(), build);
    const std::string what = "llama.cpp build " + std::string(text);
    const LlamaCppBuild& oldest = kLlamaCppBuilds.front();
    if (build < oldest.first_build) {
        return {nullptr, what,
                what + " is older than the oldest allocator state the map knows (" + std::string(oldest.profile) + ", from " +
                    std::string(oldest.first_tag) + "); name a later build or a state"};
    }
    const auto carried = std::ranges::find_if(kLlamaCppBuilds.rbegin(), kLlamaCppBuilds.rend(),
                                              [build](const LlamaCppBuild& b) { return b.first_build <= build; });
    const AllocatorProfile& state = *find_profile(carried->profile);
    if (build > kLlamaCppBuildsCheckedTo && carried == kLlamaCppBuilds.rbegin() && &state != &newest_profile()) {
        return {nullptr, what,
                what + " " + either_of(state, newest_profile()) + " (the llama.cpp history the map read ends at build " +
                    std::to_string(kLlamaCppBuildsCheckedTo) + ")"};
    }
    return {&state, what, {}};
}

// A ggml version names a state only where the map holds its release and the release could
// carry one state: a program reporting a release may carry changes made before the next one.
ResolvedVersion resolve_ggml_version(std::string_view text) {
    const std::string what = "ggml " + std::string(text);
    const bool build_number = text.starts_with("0.0.");
    const bool released = std::ranges::any_of(kReleases, [&](const KnownRelease& r) { return r.version == text; });
    const VersionMatch match = match_ggml({std::string(text), std::nullopt, {}});
    if (match.profile == nullptr) {
        return {nullptr, what, match.note};
    }
    if (!released && !build_number) {
        return {nullptr, what,
                what + " is not a release the map knows (" + std::string(kReleases[0].version) + " to " +
                    std::string(std::rbegin(kReleases)->version) + ", `gallocsim versions` lists them); name one of them, a state or a llama.cpp build bNNNN"};
    }
    if (match.newest != match.profile) {
        return {nullptr, what, what + " " + either_of(*match.profile, *match.newest)};
    }
    return {match.profile, what, {}};
}

// The commits the map knows, each with the state in force there: the releases' tags, the
// commits that made the states (and the ggml commit an alias names), and the llama.cpp
// commits that brought each state.
struct KnownCommit {
    std::string commit;
    std::string_view repository;
    const AllocatorProfile* profile;
};

std::vector<KnownCommit> known_commits() {
    std::vector<KnownCommit> commits;
    for (const KnownRelease& release : kReleases) {
        // 0.25.3 is what llama.cpp 0c1e570's vendored ggml reports; the commit is llama.cpp's.
        const bool llama = std::string_view(release.profile).starts_with("llama.cpp-");
        commits.push_back({std::string(release.commit), llama ? "llama.cpp" : "ggml", find_profile(release.profile)});
    }
    for (const AllocatorProfile& profile : allocator_profiles()) {
        if (is_hex(profile.commit)) {
            commits.push_back({std::string(profile.commit), "ggml", &profile});
        }
        for (const std::string_view alias : profile.aliases) {
            if (alias.starts_with("ggml-") && is_hex(alias.substr(5))) {
                commits.push_back({std::string(alias.substr(5)), "ggml", &profile});
            }
        }
    }
    for (const LlamaCppBuild& build : kLlamaCppBuilds) {
        commits.push_back({std::string(build.commit), "llama.cpp", find_profile(build.profile)});
    }
    return commits;
}

ResolvedVersion resolve_commit(std::string_view prefix) {
    std::string lower(prefix);
    std::ranges::transform(lower, lower.begin(), [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    if (lower.size() < 7) {
        return {nullptr, "commit " + lower, "commit " + lower + ": too short to name a commit (7 hex digits at least)"};
    }
    static const std::vector<KnownCommit> commits = known_commits();
    const KnownCommit* found = nullptr;
    for (const KnownCommit& known : commits) {
        // A prefix of a known commit, or a longer hash of which the map keeps the prefix.
        if (!std::string_view(known.commit).starts_with(lower) && !std::string_view(lower).starts_with(known.commit)) {
            continue;
        }
        if (found != nullptr && found->profile != known.profile) {
            return {nullptr, "commit " + lower, "commit " + lower + " " + either_of(*found->profile, *known.profile)};
        }
        found = &known;  // one state twice (a release's tag that is also a state's commit) is one answer
    }
    if (found == nullptr) {
        return {nullptr, "commit " + lower,
                "commit " + lower + ": not a commit the map knows; name a ggml version or a llama.cpp build bNNNN"};
    }
    return {found->profile, std::string(found->repository) + " commit " + lower, {}};
}

} // namespace

std::span<const KnownRelease> known_releases() { return kReleases; }

const AllocatorProfile* profile_named(std::string_view name_or_version) { return resolve_version(name_or_version).profile; }

std::string version_forms_text() {
    return "a state (" + std::string(known_profile_names()) +
           "), a ggml release that carries exactly one of them (0.9.1, 0.13.1, 0.25.3, ...), a llama.cpp build bNNNN (b" +
           std::to_string(kLlamaCppBuilds.front().first_build) + " or later), or a ggml or llama.cpp commit the map knows";
}

std::string unknown_version_text() { return "unknown version; known: " + version_forms_text(); }

bool is_ggml_version(std::string_view text) { return parse_version(text).has_value(); }

ResolvedVersion resolve_version(std::string_view text) {
    if (const AllocatorProfile* profile = find_profile(text)) {
        return {profile, "state " + std::string(profile->name), {}};
    }
    if (looks_like_build(text)) {
        return resolve_build(text);
    }
    if (parse_version(text)) {
        return resolve_ggml_version(text);
    }
    if (is_hex(text)) {
        return resolve_commit(text);
    }
    return {nullptr, std::string(text), unknown_version_text()};
}

VersionMatch match_ggml(const ProgramGgml& program) {
    Bounds bounds;
    if (program.version) {
        read_version(*program.version, bounds);
    } else {
        bounds.about = "a ggml without ggml_version()";
    }
    Bounds by_version = bounds;
    if (program.commit) {
        read_commit(*program.commit, bounds);
    }
    read_markers(program.markers, bounds);
    VersionMatch match;
    if (!bounds.known) {
        match.note = !bounds.remark.empty() ? bounds.remark : bounds.about + " tells nothing the version map can place it by";
        return match;
    }
    if (bounds.lo > bounds.hi) {
        // The functions it exports disagree with its version: the version wins.
        match.note = bounds.about + " exports functions of another version; planned by what the version says";
        bounds = by_version;
        bounds.hi = std::max(bounds.hi, bounds.lo);
    }
    match.profile = &profile_of_age(bounds.lo);
    match.newest = &profile_of_age(bounds.hi);
    match.exact = bounds.lo == bounds.hi;
    if (!bounds.remark.empty()) {
        match.note = bounds.remark + " (" + name_at(bounds.lo) + ")";
    } else if (!match.exact && match.note.empty()) {
        match.note = bounds.about + " may be any allocator state from " + name_at(bounds.lo) + " to " + name_at(bounds.hi) +
                     ": planned as the oldest, " + name_at(bounds.lo);
    }
    return match;
}

} // namespace gallocsim
