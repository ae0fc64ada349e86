// SimulationController's captures: a folder of sessions opened, and one call shown as the
// program made it (simulator/trace/capture_replay.hpp, trace_call), planned by the rules of
// the ggml its program ran.
#include "gui/simulation_controller.hpp"

#include "gui/text.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <algorithm>
#include <utility>

namespace gallocsim::gui {

void SimulationController::set_selected_call(std::optional<CallChoice> call, QString note) {
    selected_call_ = call;
    call_note_ = std::move(note);
    Q_EMIT selected_call_changed();
}

bool SimulationController::open_capture(const QString& folder) {
    Capture loaded;
    try {
        loaded = load_capture(folder.toStdString());
    } catch (const std::exception& error) {
        return fail(tr("Cannot read the capture"), QString::fromUtf8(error.what()));
    }
    if (loaded.sessions.empty()) {
        return fail(tr("Cannot read the capture"),
                    tr("%1: no session could be read\n%2").arg(folder, qstr(loaded.errors.empty() ? "" : loaded.errors.front())));
    }
    const auto first = std::ranges::find_if(loaded.sessions, [](const CaptureSession& s) { return !s.calls.empty(); });
    if (first == loaded.sessions.end()) {
        return fail(tr("Cannot read the capture"), tr("%1: no session has a complete call").arg(folder));
    }
    const auto first_session = static_cast<std::size_t>(first - loaded.sessions.begin());
    pause();
    capture_ = std::move(loaded);
    Q_EMIT capture_changed();
    report_capture_problems();
    return select_call(first_session, 0);
}

// What could not be read is said, but does not stop the sessions that could from being shown.
void SimulationController::report_capture_problems() {
    for (const std::string& error : capture_->errors) {
        Q_EMIT error_occurred(tr("A session cannot be read"), qstr(error));
    }
    for (const CaptureSession& session : capture_->sessions) {
        if (!session.truncated.empty()) {
            Q_EMIT error_occurred(tr("The capture is cut short"), qstr(session.file.string() + ": " + session.truncated));
        }
    }
}

bool SimulationController::select_call(std::size_t session, std::size_t call) {
    if (!capture_) {
        return fail(tr("Cannot replay a call"), tr("no capture is open: calls are a capture folder's"));
    }
    if (session >= capture_->sessions.size()) {
        return fail(tr("Cannot replay a call"),
                    tr("no session %1: the capture has %2, counted from 0").arg(session).arg(capture_->sessions.size()));
    }
    const CaptureSession& chosen = capture_->sessions[session];
    const QString from = qstr(chosen.file.string()) + tr(" call %1").arg(call);
    pause();
    const VersionMatch match = session_profile(chosen);
    const AllocatorProfile& profile = match.profile != nullptr ? *match.profile : newest_profile();
    // The worker gets its own copy: a cancelled replay may outlive the capture shown.
    auto loaded = off_thread(tr("Replaying %1").arg(from), tr("Cannot replay the call"), [chosen, call, &profile, from] {
        CallTrace traced = trace_call(chosen, call, profile);
        // Beside the replay, ggml's plan of the call's graph for the comparison and the why
        // answers, by the rules of the ggml version the replay shows (the program's, as the
        // version map placed it), so that the reports speak of the allocator on screen.
        // Choosing another version replans the call's graph alone (set_profile).
        TraceTensors tensors = traced.trace.tensors;  // shared, not copied
        return std::pair(std::make_unique<LoadedGraph>(std::move(traced.file), std::move(tensors), profile, std::move(traced.trace), from),
                         qstr(traced.note));
    });
    if (!loaded) {
        return false;
    }
    show(std::move(loaded->first), 0, false);
    // Then which ggml the replay plans as, in the words conform and watch use (VersionMatch::note);
    // the panel ends the note with a full stop.
    QString note = loaded->second;
    if (!match.note.empty()) {
        const QString replayed = match.profile != nullptr ? QString() : tr("; replayed as the newest state, %1").arg(qstr(profile.name));
        note += (note.isEmpty() ? QString() : QStringLiteral(".\n")) + qstr(match.note) + replayed;
    }
    set_selected_call(CallChoice{session, call}, note);
    following_ = is_newest_call(session, call);  // a pick of an older call stops a live run's following
    return true;
}

} // namespace gallocsim::gui
