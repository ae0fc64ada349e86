#include "simulator/cli/capture_commands.hpp"

#include "simulator/cli/errors.hpp"
#include "simulator/cli/graph_notes.hpp"
#include "simulator/model/capture_call.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <ostream>
#include <set>

namespace gallocsim::cli {

namespace {

ConformVerdict call_verdict(const CaptureSession& session, const CallReplay& replay) {
    const CapturedCall& call = session.calls[replay.index];
    // The call number --call takes, and the buffer sizes the program reported after it.
    std::string what = session.file.string() + " call " + std::to_string(call.number) + " (" +
                       std::string(captured_function_name(call.function)) + ", " + call.graph + "; " +
                       call_buffer_sizes_text(call) + ")";
    switch (replay.outcome) {
    case CallOutcome::passed: return {ConformVerdict::Result::pass, std::move(what), {}, true};
    case CallOutcome::not_replayed: return {ConformVerdict::Result::skip, std::move(what), {replay.error}, false};
    case CallOutcome::failed: {
        ConformVerdict verdict{ConformVerdict::Result::fail, std::move(what), replay.differences, false};
        if (!replay.error.empty()) {
            verdict.details.insert(verdict.details.begin(), replay.error);
        }
        return verdict;
    }
    }
    return {};
}

// The version a session is replayed under: the one asked for, else the version map's answer
// for what its program reported.
const AllocatorProfile& replay_profile(const CaptureSession& session, const AllocatorProfile* forced, ConformTally& tally) {
    if (forced != nullptr) {
        return *forced;
    }
    const VersionMatch match = session_profile(session);
    if (match.profile == nullptr) {
        throw UsageError(session.file.string() + ": " + match.note + "; pass --ggml-version (" +
                         std::string(known_profile_names()) + ")");
    }
    if (!match.note.empty()) {
        tally.add({ConformVerdict::Result::note, session.file.string(), {match.note}, false});
    }
    return *match.profile;
}

} // namespace

void ConformTally::add(ConformVerdict verdict, int calls_skipped) {
    switch (verdict.result) {
    case ConformVerdict::Result::pass: ++passed; break;
    case ConformVerdict::Result::fail: ++failed; break;
    case ConformVerdict::Result::skip: ++skipped; break;
    case ConformVerdict::Result::note: break;
    }
    skipped += calls_skipped;
    verdicts.push_back(std::move(verdict));
}

void ConformTally::add_warnings(const std::string& subject, const GraphFile& file) {
    for (auto& warning : early_reads_json(file)) {
        warnings.emplace_back(subject, std::move(warning));
    }
}

void conform_capture(const std::filesystem::path& folder, const AllocatorProfile* forced, ConformTally& tally) {
    Capture capture;
    try {
        capture = load_capture(folder);
    } catch (const GraphFileError& error) {
        tally.add({ConformVerdict::Result::fail, error.what(), {}, false});
        return;
    }
    for (const std::string& error : capture.errors) {
        tally.add({ConformVerdict::Result::fail, error, {}, false});
    }
    // What the capture could not see: its sessions are not all the program did.
    for (const std::string& gap : capture.gaps()) {
        tally.add({ConformVerdict::Result::fail, folder.string() + ": " + gap, {}, false});
    }
    std::vector<const AllocatorProfile*> profiles;
    for (const CaptureSession& session : capture.sessions) {
        profiles.push_back(&replay_profile(session, forced, tally));
    }
    for (std::size_t i = 0; i < capture.sessions.size(); ++i) {
        const CaptureSession& session = capture.sessions[i];
        for (const CallReplay& replay : replay_session(session, *profiles[i])) {
            tally.add(call_verdict(session, replay));
        }
        // Each graph the session planned, once, for what its order means (most have nothing to say).
        std::set<std::string, std::less<>> seen;
        for (const CapturedCall& call : session.calls) {
            if (seen.insert(call.graph).second) {
                try {
                    tally.add_warnings((session.folder / call.graph).string(), load_call_graph(session, call));
                } catch (const GraphFileError&) {
                    // The call's verdict says what is wrong with its graph.
                }
            }
        }
        // A cut-short session is not all the program did: what is missing counts as a failure.
        if (!session.truncated.empty()) {
            tally.add({ConformVerdict::Result::fail, session.file.string() + ": " + session.truncated, {}, false});
        }
    }
}

} // namespace gallocsim::cli
