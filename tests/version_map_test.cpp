// The version map (reference/version_map.hpp): from what a program's ggml reports to the
// profile it ran. Expectations come from ggml-org/ggml's history as docs/versions.md lays it
// out: each release tag's ggml-alloc.c matched to the commit that made it, and when each
// marker function appeared.
#include "reference/version_map.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

std::string_view profile_of(const VersionMatch& match) { return match.profile ? match.profile->name : "none"; }

VersionMatch version(const std::string& text) { return match_ggml({text, std::nullopt, {}}); }

// Markers as a program's library would export them: every function that appeared on or before
// `date` (kMarkerFunctions' `appeared` is "COMMIT YYYY-MM-DD").
std::vector<bool> exported_by(std::string_view date) {
    std::vector<bool> markers;
    for (const MarkerFunction& marker : kMarkerFunctions) {
        markers.push_back(marker.appeared.substr(marker.appeared.find(' ') + 1) <= date);
    }
    return markers;
}

// Releases whose ggml-alloc.c is the same as the next release's: nothing else is possible.
// whisper.cpp 1.8.5 reports 0.13.1, stable-diffusion.cpp 0.9.8, ggml-py 0.10.1, ggml-python
// 0.0.45 0.15.3: all carry 0a2b6b20's state (tags v0.9.5 to v0.21.0 hold it).
TEST(VersionMap, ReleasesBetweenTwoOfTheSameStateAreExact) {
    for (const char* text : {"0.9.5", "0.9.8", "0.10.1", "0.13.1", "0.15.3", "0.20.2"}) {
        const VersionMatch match = version(text);
        EXPECT_EQ(profile_of(match), "ggml-0a2b6b20") << text;
        EXPECT_TRUE(match.exact) << text;
        EXPECT_EQ(match.note, "") << text;
    }
    // llama.cpp 0c1e570 reports 0.25.3; nothing newer is known, so nothing newer is possible.
    EXPECT_EQ(profile_of(version("0.25.3")), "llama.cpp-0c1e570");
    EXPECT_TRUE(version("0.25.3").exact);
}

// A release followed by one with another state: the program may be the release itself (a
// ggml build) or carry changes made before the next release (a llama.cpp build reports the
// ggml version it last synced), so it is planned by the release's state with a note.
TEST(VersionMap, AReleaseBeforeAChangePlansByItsOwnStateAndSaysWhatElseItMayBe) {
    const VersionMatch v094 = version("0.9.4");  // tag v0.9.4 (2025-09-30): 254ea3e5; v0.9.5: 0a2b6b20
    EXPECT_EQ(profile_of(v094), "ggml-254ea3e5");
    EXPECT_FALSE(v094.exact);
    EXPECT_NE(v094.note.find("from ggml-254ea3e5 to ggml-0a2b6b20"), std::string::npos) << v094.note;
    const VersionMatch v0210 = version("0.21.0");  // the last ggml tag; CLAMP came to llama.cpp after it
    EXPECT_EQ(profile_of(v0210), "ggml-0a2b6b20");
    EXPECT_NE(v0210.note.find("to llama.cpp-0c1e570"), std::string::npos) << v0210.note;
}

// A version the map does not name: the nearest known release below it, said in the note.
TEST(VersionMap, AnUnknownVersionIsPlannedByTheNearestKnownOneBelow) {
    const VersionMatch between = version("0.23.1");
    EXPECT_EQ(profile_of(between), "ggml-0a2b6b20");
    EXPECT_NE(between.note.find("not in the version map"), std::string::npos) << between.note;
    EXPECT_NE(between.note.find("0.21.0"), std::string::npos) << between.note;
    const VersionMatch newer = version("1.2.0");
    EXPECT_EQ(profile_of(newer), "llama.cpp-0c1e570");
    EXPECT_NE(newer.note.find("0.25.3"), std::string::npos) << newer.note;
    // "-dev" is before the release it names: 0.9.2-dev came after 0.9.1 (3b145175).
    const VersionMatch dev = version("0.9.2-dev");
    EXPECT_EQ(profile_of(dev), "ggml-3b145175");
    EXPECT_NE(dev.note.find("0.9.1"), std::string::npos) << dev.note;
    // "-dirty": modified sources, said so.
    EXPECT_NE(version("0.13.1-dirty").note.find("modified sources"), std::string::npos);
}

// ggml_version() returned "0.0.N" (N a commit count) from 2025-07-02 to 2025-09-16: the
// states of then are 1e04f6ae and 3b145175 (2025-08-05), told apart by ggml_add_id.
TEST(VersionMap, BuildNumberVersionsAreTheSummerOf2025AndMarkersPinThem) {
    const VersionMatch unpinned = version("0.0.2403");
    EXPECT_EQ(profile_of(unpinned), "ggml-1e04f6ae");
    EXPECT_FALSE(unpinned.exact);
    EXPECT_EQ(profile_of(match_ggml({"0.0.6121", std::nullopt, exported_by("2025-08-20")})), "ggml-3b145175");
    EXPECT_TRUE(match_ggml({"0.0.6121", std::nullopt, exported_by("2025-08-20")}).exact);
    EXPECT_EQ(profile_of(match_ggml({"0.0.5900", std::nullopt, exported_by("2025-07-10")})), "ggml-1e04f6ae");
    EXPECT_TRUE(match_ggml({"0.0.5900", std::nullopt, exported_by("2025-07-10")}).exact);
}

// Programs whose ggml has no ggml_version() (before 2025-07-02) are told apart by the
// functions they export: the seeds' llama-cpp-python 0.2.80 (2024-06) has none of the
// markers; llama-cpp-python 0.3.3 (ggml of 2024-11-16) has ggml_graph_n_nodes and
// ggml_graph_get_grad; 0.3.7 (2025-01-16) ggml_soft_max_ext_back too.
TEST(VersionMap, ProgramsWithoutAVersionAreToldByTheFunctionsTheyExport) {
    const VersionMatch seed = match_ggml({std::nullopt, std::nullopt, exported_by("2024-06-13")});
    EXPECT_EQ(profile_of(seed), "ggml-f54604ef");
    EXPECT_TRUE(seed.exact);
    const VersionMatch autumn = match_ggml({std::nullopt, std::nullopt, exported_by("2024-11-20")});
    EXPECT_EQ(profile_of(autumn), "ggml-da649f70");
    EXPECT_TRUE(autumn.exact);
    const VersionMatch january = match_ggml({std::nullopt, std::nullopt, exported_by("2025-01-20")});
    EXPECT_EQ(profile_of(january), "ggml-93ea0016");
    EXPECT_TRUE(january.exact);
    const VersionMatch may = match_ggml({std::nullopt, std::nullopt, exported_by("2025-05-20")});
    EXPECT_EQ(profile_of(may), "ggml-1e04f6ae");
    // Between 2024-09-20 and 2024-11-16 a program may be before or after da649f70.
    const VersionMatch october = match_ggml({std::nullopt, std::nullopt, exported_by("2024-10-15")});
    EXPECT_EQ(profile_of(october), "ggml-f54604ef");
    EXPECT_FALSE(october.exact);
    EXPECT_NE(october.note.find("to ggml-da649f70"), std::string::npos) << october.note;
}

// Markers narrow a release that spans several states: ggml 0.9.4 reported by a llama.cpp of
// late November 2025 that exports ggml_cumsum (2025-11-13) but not reserve_n_size.
TEST(VersionMap, MarkersNarrowAVersionThatSpansSeveralStates) {
    const VersionMatch match = match_ggml({"0.9.4", std::nullopt, exported_by("2025-11-20")});
    EXPECT_EQ(profile_of(match), "ggml-058128a6");
    EXPECT_FALSE(match.exact);  // 106c2686 and 3129a944 (December) left no marker of their own
    EXPECT_NE(match.note.find("to ggml-3129a944"), std::string::npos) << match.note;
}

// A commit hash the map knows (a release tag's, or a profile's) is exact; "unknown" is nothing.
TEST(VersionMap, AKnownCommitIsExact) {
    const VersionMatch tag = match_ggml({"0.9.4", std::string("72632094"), {}});  // tag v0.9.4
    EXPECT_EQ(profile_of(tag), "ggml-254ea3e5");
    EXPECT_TRUE(tag.exact);
    EXPECT_EQ(profile_of(match_ggml({std::nullopt, std::string("b3f27f37-dirty"), {}})), "ggml-b3f27f37");
    EXPECT_EQ(profile_of(match_ggml({std::nullopt, std::string("unknown"), {}})), "none");
}

// Nothing to go by: no profile, and the caller asks the user.
TEST(VersionMap, NothingToGoByGivesNoProfile) {
    const VersionMatch silent = match_ggml({std::nullopt, std::nullopt, {}});
    EXPECT_EQ(profile_of(silent), "none");
    // Every front end shows the note, so it is never empty where nothing is inferred.
    EXPECT_EQ(silent.note, "a ggml without ggml_version() tells nothing the version map can place it by");
    const VersionMatch unreadable = version("v0.25.3");
    EXPECT_EQ(profile_of(unreadable), "none");
    EXPECT_NE(unreadable.note.find("cannot read"), std::string::npos);
}

// Where the evidence contradicts itself the version wins, and the note says so.
TEST(VersionMap, MarkersThatContradictTheVersionAreOverruled) {
    const VersionMatch match = match_ggml({"0.13.1", std::nullopt, exported_by("2024-06-13")});
    EXPECT_EQ(profile_of(match), "ggml-0a2b6b20");
    EXPECT_NE(match.note.find("exports functions of another version"), std::string::npos) << match.note;
}

// --ggml-version takes a profile, an alias, or a ggml version pinned to one state.
TEST(VersionMap, NamesAndPinnedVersionsAreWhatTheSelectorTakes) {
    EXPECT_EQ(profile_named("ggml-b3f27f37")->name, "ggml-b3f27f37");
    EXPECT_EQ(profile_named("ggml-d99724f2")->name, "ggml-0a2b6b20");
    EXPECT_EQ(profile_named("0.13.1")->name, "ggml-0a2b6b20");
    EXPECT_EQ(profile_named("0.9.4"), nullptr);  // spans several states
    EXPECT_EQ(profile_named("0.23.0"), nullptr);  // not in the map
    EXPECT_EQ(profile_named("nonsense"), nullptr);
}

std::string_view resolved(std::string_view text) {
    const ResolvedVersion r = resolve_version(text);
    return r.profile ? r.profile->name : "none";
}

// The builds around each first build, from llama.cpp's history (kLlamaCppBuilds' comment says
// how it was read): #15815 (chunks) is commit f2a789e3, `git rev-list --count` 6568, tagged
// b6568, and tag b6567 does not contain it; #16653 is build 7407, whose first tag is b7410.
TEST(VersionMap, ALlamaCppBuildNamesTheStateItCarries) {
    EXPECT_EQ(resolved("b6567"), "ggml-3b145175");  // the build just before the chunks
    EXPECT_EQ(resolved("b6568"), "ggml-254ea3e5");  // the build that brought them
    EXPECT_EQ(resolved("b6681"), "ggml-254ea3e5");
    EXPECT_EQ(resolved("b6682"), "ggml-b3f27f37");  // #16396
    EXPECT_EQ(resolved("b3143"), "ggml-f54604ef");  // #6210: llama.cpp's ggml-alloc.c became the seeds'
    EXPECT_EQ(resolved("b3989"), "ggml-f54604ef");
    EXPECT_EQ(resolved("b3990"), "ggml-da649f70");  // #10026
    EXPECT_EQ(resolved("b7406"), "ggml-3129a944");
    EXPECT_EQ(resolved("b7407"), "ggml-0a2b6b20");
    EXPECT_EQ(resolved("b9187"), "ggml-0a2b6b20");  // the newest build read: no CLAMP change yet
    EXPECT_EQ(resolve_version("b6568").what, "llama.cpp build b6568");
    // Before the seeds' state the map knows no allocator; after the history read, CLAMP may have come.
    EXPECT_EQ(resolve_version("b3000").problem,
              "llama.cpp build b3000 is older than the oldest allocator state the map knows (ggml-f54604ef, from b3143); "
              "name a later build or a state");
    EXPECT_EQ(resolve_version("b9999").problem,
              "llama.cpp build b9999 could be any of ggml-0a2b6b20 … llama.cpp-0c1e570; name one (the llama.cpp history "
              "the map read ends at build 9187)");
}

// Commits: a state's ggml commit, a release tag's, the llama.cpp commit that brought a state, any
// prefix of 7 hex digits or more; never a guess for a commit the map does not hold.
TEST(VersionMap, ACommitTheMapKnowsNamesItsState) {
    EXPECT_EQ(resolved("f54604ef"), "ggml-f54604ef");
    EXPECT_EQ(resolved("254ea3e"), "ggml-254ea3e5");       // a 7-digit prefix
    EXPECT_EQ(resolved("d99724f2"), "ggml-0a2b6b20");      // the alias's commit: the golden corpus's ggml
    EXPECT_EQ(resolved("72632094"), "ggml-254ea3e5");      // tag v0.9.4's commit: exact, unlike the version
    EXPECT_EQ(resolved("f2a789e3"), "ggml-254ea3e5");      // llama.cpp #15815
    EXPECT_EQ(resolved("F2A789E3"), "ggml-254ea3e5");
    EXPECT_EQ(resolved("0c1e570"), "llama.cpp-0c1e570");
    EXPECT_EQ(resolve_version("f2a789e3").what, "llama.cpp commit f2a789e3");
    EXPECT_EQ(resolve_version("f54604ef").what, "ggml commit f54604ef");
    EXPECT_EQ(resolve_version("abcdef12").problem,
              "commit abcdef12: not a commit the map knows; name a ggml version or a llama.cpp build bNNNN");
    EXPECT_EQ(resolve_version("254ea3").problem, "commit 254ea3: too short to name a commit (7 hex digits at least)");
}

// A ggml version names a state only when its release could carry one: the tags v0.9.3 and v0.9.4
// hold 254ea3e5's ggml-alloc.c and v0.9.5 0a2b6b20's, so a program reporting 0.9.4 may carry either.
TEST(VersionMap, AGgmlVersionThatCouldBeSeveralStatesIsRefused) {
    EXPECT_EQ(resolved("0.13.1"), "ggml-0a2b6b20");
    EXPECT_EQ(resolve_version("0.9.4").problem, "ggml 0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one");
    EXPECT_EQ(resolve_version("0.0.6000").problem, "ggml 0.0.6000 could be any of ggml-1e04f6ae … ggml-3b145175; name one");
    EXPECT_EQ(resolve_version("0.23.0").problem,
              "ggml 0.23.0 is not a release the map knows (0.9.1 to 0.25.3, `gallocsim versions` lists them); name one of "
              "them, a state or a llama.cpp build bNNNN");
    EXPECT_EQ(resolved("ggml-d99724f2"), "ggml-0a2b6b20");
    EXPECT_EQ(resolved("nonsense"), "none");
}

// The build table ascends, and each row names a profile newer than the row before it.
TEST(VersionMap, TheBuildTableAscendsThroughTheHistory) {
    std::size_t previous_age = 0;
    int previous_build = 0;
    for (const LlamaCppBuild& build : kLlamaCppBuilds) {
        ASSERT_NE(find_profile(build.profile), nullptr) << build.first_build;
        const std::size_t age = profile_age(*find_profile(build.profile));
        EXPECT_GT(build.first_build, previous_build);
        EXPECT_TRUE(previous_build == 0 || age == previous_age + 1) << build.profile;
        previous_age = age;
        previous_build = build.first_build;
    }
    EXPECT_EQ(profile_age(*find_profile(kLlamaCppBuilds.back().profile)) + 1, profile_age(newest_profile()));
    EXPECT_GT(kLlamaCppBuildsCheckedTo, kLlamaCppBuilds.back().first_build);
}

// Every marker and release names a profile that exists, releases ascend, and their states
// never go back in time.
TEST(VersionMap, TablesNameProfilesThatExistInOrder) {
    for (const MarkerFunction& marker : kMarkerFunctions) {
        ASSERT_NE(find_profile(marker.at_least), nullptr) << marker.name;
        ASSERT_NE(find_profile(marker.at_most_if_absent), nullptr) << marker.name;
        EXPECT_LE(profile_age(*find_profile(marker.at_most_if_absent)), profile_age(*find_profile(marker.at_least)))
            << marker.name;  // present gives a lower bound at or above what absence leaves
    }
    std::size_t previous = 0;
    for (const KnownRelease& release : known_releases()) {
        ASSERT_NE(find_profile(release.profile), nullptr) << release.version;
        const std::size_t age = profile_age(*find_profile(release.profile));
        EXPECT_GE(age, previous) << release.version;
        previous = age;
    }
}

} // namespace
} // namespace gallocsim
