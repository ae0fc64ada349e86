#pragma once
// `gallocsim conform DIR` on a capture folder: every session replayed call by call, each
// call a pass or a failure printed as golden-file mismatches are.

#include "reference/profile.hpp"

#include <filesystem>
#include <iosfwd>

namespace gallocsim::cli {

struct ConformTally {
    int passed = 0;
    int failed = 0;
    int skipped = 0;
};

// Adds one pass or failure per call (and a failure per unreadable or cut-short session);
// calls after one that cannot be replayed are skipped, with the reason. Each session is
// replayed under `forced` when given, else under the ggml version its program reported (a
// version with no profile fails the session).
void conform_capture(const std::filesystem::path& folder, const AllocatorProfile* forced, bool verbose, ConformTally& tally,
                     std::ostream& out);

} // namespace gallocsim::cli
