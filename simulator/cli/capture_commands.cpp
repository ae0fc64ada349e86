#include "simulator/cli/capture_commands.hpp"

#include "simulator/trace/capture_replay.hpp"

#include <ostream>

namespace gallocsim::cli {

namespace {

void report_call(const CaptureSession& session, const CallReplay& replay, bool verbose, ConformTally& tally,
                 std::ostream& out) {
    const CapturedCall& call = session.calls[replay.index];
    const std::string what = session.file.string() + " call " + std::to_string(replay.index) + " (" +
                             std::string(captured_function_name(call.function)) + ", " + call.graph + ")";
    switch (replay.outcome) {
    case CallOutcome::passed:
        ++tally.passed;
        if (verbose) {
            out << "PASS " << what << "\n";
        }
        return;
    case CallOutcome::not_replayed:
        ++tally.skipped;
        out << "SKIP " << what << ": " << replay.error << "\n";
        return;
    case CallOutcome::failed:
        ++tally.failed;
        out << "FAIL " << what << "\n";
        if (!replay.error.empty()) {
            out << "  " << replay.error << "\n";
        }
        for (const std::string& line : replay.differences) {
            out << "  " << line << "\n";
        }
        return;
    }
}

// The version a session is replayed under: the one asked for, else the one its program reported.
const AllocatorProfile* replay_profile(const CaptureSession& session, const AllocatorProfile* forced, std::string& why_none) {
    if (forced != nullptr) {
        return forced;
    }
    if (const AllocatorProfile* profile = session_profile(session)) {
        return profile;
    }
    why_none = session.file.string() + ": the program's ggml " +
               (session.ggml_version ? "reports version \"" + *session.ggml_version + "\", which has no profile"
                                     : std::string("reports no version")) +
               " (known: " + std::string(known_profile_names()) + "); choose one with --ggml-version";
    return nullptr;
}

} // namespace

void conform_capture(const std::filesystem::path& folder, const AllocatorProfile* forced, bool verbose, ConformTally& tally,
                     std::ostream& out) {
    Capture capture;
    try {
        capture = load_capture(folder);
    } catch (const GraphFileError& error) {
        ++tally.failed;
        out << "FAIL " << error.what() << "\n";
        return;
    }
    for (const std::string& error : capture.errors) {
        ++tally.failed;
        out << "FAIL " << error << "\n";
    }
    for (const CaptureSession& session : capture.sessions) {
        std::string why_none;
        const AllocatorProfile* profile = replay_profile(session, forced, why_none);
        if (profile == nullptr) {
            ++tally.failed;
            tally.skipped += static_cast<int>(session.calls.size());
            out << "FAIL " << why_none << "\n";
            continue;
        }
        for (const CallReplay& replay : replay_session(session, *profile)) {
            report_call(session, replay, verbose, tally, out);
        }
        // A cut-short session is not all the program did: what is missing counts as a failure.
        if (!session.truncated.empty()) {
            ++tally.failed;
            out << "FAIL " << session.file.string() << ": " << session.truncated << "\n";
        }
    }
}

} // namespace gallocsim::cli
