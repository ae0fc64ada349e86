#include "simulator/cli/capture_commands.hpp"

#include "simulator/trace/capture_replay.hpp"

#include <ostream>

namespace gallocsim::cli {

namespace {

ConformVerdict call_verdict(const CaptureSession& session, const CallReplay& replay) {
    const CapturedCall& call = session.calls[replay.index];
    std::string what = session.file.string() + " call " + std::to_string(replay.index) + " (" +
                       std::string(captured_function_name(call.function)) + ", " + call.graph + ")";
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

void ConformTally::add(ConformVerdict verdict, int calls_skipped) {
    (verdict.result == ConformVerdict::Result::pass   ? passed
     : verdict.result == ConformVerdict::Result::fail ? failed
                                                      : skipped) += 1;
    skipped += calls_skipped;
    verdicts.push_back(std::move(verdict));
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
    for (const CaptureSession& session : capture.sessions) {
        std::string why_none;
        const AllocatorProfile* profile = replay_profile(session, forced, why_none);
        if (profile == nullptr) {
            tally.add({ConformVerdict::Result::fail, why_none, {}, false}, static_cast<int>(session.calls.size()));
            continue;
        }
        for (const CallReplay& replay : replay_session(session, *profile)) {
            tally.add(call_verdict(session, replay));
        }
        // A cut-short session is not all the program did: what is missing counts as a failure.
        if (!session.truncated.empty()) {
            tally.add({ConformVerdict::Result::fail, session.file.string() + ": " + session.truncated, {}, false});
        }
    }
}

} // namespace gallocsim::cli
