#pragma once
// `gallocsim conform DIR` on a capture folder: every session replayed call by call, each
// call a pass or a failure printed as golden-file mismatches are.

#include "reference/profile.hpp"
#include "simulator/model/graph_file.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim::cli {

// What conform found, in the order it found it: one verdict per graph file and captured call
// (and one per problem that stopped a capture or session from being replayed).
struct ConformVerdict {
    enum class Result { pass, fail, skip, note };  // a note counts nowhere: the profile a session was inferred to run
    Result result = Result::pass;
    std::string subject;               // "FILE" or "SESSION call N (function, graph)"
    std::vector<std::string> details;  // the differences, or why it failed or was skipped
    bool quiet = false;                // shown only with --verbose (passes, files with nothing to check)
};

struct ConformTally {
    int passed = 0;
    int failed = 0;
    int skipped = 0;
    std::vector<ConformVerdict> verdicts;
    // What a graph's order means for its plan (analysis/graph_order), once per graph file: the
    // file, and the report's JSON item (its `text` is the note conform writes on standard error).
    std::vector<std::pair<std::string, nlohmann::ordered_json>> warnings;

    void add(ConformVerdict verdict, int calls_skipped = 0);
    void add_warnings(const std::string& subject, const GraphFile& file);
};

// Adds one pass or failure per call (and a failure per unreadable or cut-short session, and
// per gap the capture's log reports: calls the capture could not see); calls after one that
// cannot be replayed are skipped, with the reason. Each session is replayed under `forced`
// when given, else under the profile the version map gives for what its program reported
// (with a note when that is inferred). Throws UsageError when a session's program said
// nothing the map can use and no version is forced: a choice only the user can make.
void conform_capture(const std::filesystem::path& folder, const AllocatorProfile* forced, ConformTally& tally);

} // namespace gallocsim::cli
