#include "simulator/capture_commands.hpp"

#include "simulator/capture_replay.hpp"

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

} // namespace

void conform_capture(const std::filesystem::path& folder, bool verbose, ConformTally& tally, std::ostream& out) {
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
        for (const CallReplay& replay : replay_session(session)) {
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
