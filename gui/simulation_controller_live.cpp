// SimulationController's live run: a program started under the capture and watched
// (gui/live_run.hpp). The Capture dock lists its calls as they are read; the newest is
// replayed and shown as it arrives unless the person picked another; a process waiting
// before a call shows gallocsim's plan of that call, one waiting after a failed call shows
// that call.
#include "gui/simulation_controller.hpp"

#include "gui/live_run.hpp"
#include "gui/text.hpp"
#include "simulator/trace/capture_replay.hpp"


#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gallocsim::gui {

bool SimulationController::start_live(const QStringList& command, const QString& folder, const LiveStops& stops) {
    if (live_ && !live_->end()) {
        return fail(tr("Cannot run the program"), tr("%1 is still running: a window watches one program at a time")
                                                      .arg(live_->command().front()));
    }
    try {
        live_ = std::make_unique<LiveRun>(command, folder, stops);
    } catch (const std::exception& error) {
        return fail(tr("Cannot run the program"), qstr(error.what()));
    }
    live_->set_busy([this] { return is_loading(); });
    connect(live_.get(), &LiveRun::calls_read, this, &SimulationController::live_calls_read);
    connect(live_.get(), &LiveRun::stopped, this, &SimulationController::live_stopped);
    connect(live_.get(), &LiveRun::mismatch, this, [this](const QString& line) {
        Q_EMIT status_message(tr("Mismatch: %1").arg(line));
    });
    connect(live_.get(), &LiveRun::finished, this, [this] {
        Q_EMIT live_changed();
        Q_EMIT status_message(live_->status_text());
    });
    following_ = true;
    pause();
    capture_ = Capture{folder.toStdString(), {}, {}, {}};
    Q_EMIT capture_changed();
    Q_EMIT live_changed();
    Q_EMIT status_message(tr("Running %1, captured into %2").arg(command.join(' '), folder));
    return true;
}

void SimulationController::continue_live() {
    if (live_ && live_->waiting()) {
        following_ = true;
        live_->go_on();
        Q_EMIT live_changed();
        Q_EMIT status_message(live_->status_text());
    }
}

void SimulationController::set_live_stops(const LiveStops& stops) {
    if (live_) {
        live_->set_stops(stops);
        Q_EMIT live_changed();
    }
}

// The capture as read so far (copied from the run's sessions, not read again from disk).
void SimulationController::live_calls_read() {
    Capture now;
    now.folder = live_->folder().toStdString();
    for (const auto& followed : live_->capture().sessions()) {
        if (!followed->problem.empty()) {
            now.errors.push_back(followed->problem);
        }
        if (!followed->session.buffer_types.empty()) {
            now.sessions.push_back(followed->session);
        }
    }
    capture_ = std::move(now);
    Q_EMIT capture_changed();
    Q_EMIT live_changed();
    if (following_ && !live_->waiting()) {
        show_newest_call();
    }
}

bool SimulationController::is_newest_call(std::size_t session, std::size_t call) const {
    const auto newest = live_ ? live_->newest_call() : std::nullopt;
    return newest && capture_ && session < capture_->sessions.size() &&
           capture_->sessions[session].label() == newest->first && call == newest->second;
}

// Shows the call of the capture's session of that file name (the capture shown may lack a
// session of the run's: one whose header could not be read).
void SimulationController::select_live_call(const std::string& session, std::size_t call) {
    const auto found = std::ranges::find(capture_->sessions, session, &CaptureSession::label);
    if (found != capture_->sessions.end()) {
        select_call(static_cast<std::size_t>(found - capture_->sessions.begin()), call);
    }
}

// The call read last, replayed and shown.
void SimulationController::show_newest_call() {
    if (const auto newest = live_->newest_call()) {
        select_live_call(newest->first, newest->second);
    }
}

void SimulationController::live_stopped() {
    const LiveWait* wait = live_->waiting();
    if (wait == nullptr) {
        return;
    }
    Q_EMIT live_changed();
    const live::FollowedSession& followed = *live_->capture().sessions()[wait->session];
    if (!wait->before) {
        select_live_call(followed.session.label(), wait->call);
        Q_EMIT status_message(live_->status_text());
        return;
    }
    pause();
    const AllocatorProfile& profile = *followed.profile;
    const QString from = tr("%1 call %2, before ggml plans it").arg(qstr(followed.session.label())).arg(wait->call);
    auto loaded = off_thread(tr("Predicting %1").arg(from), tr("Cannot predict the call"),
                             [session = followed.session, pending = *wait->before, &profile, from] {
                                 CallTrace traced = live::trace_pending_call(session, pending, profile);
                                 TraceTensors tensors = traced.trace.tensors;
                                 return std::make_unique<LoadedGraph>(std::move(traced.file), std::move(tensors), profile,
                                                                      std::move(traced.trace), from);
                             });
    if (!loaded) {
        return;
    }
    show(std::move(*loaded), 0, false);
    set_selected_call(std::nullopt, tr("The program waits before call %1 of allocator %2 (%3). Shown is the plan "
                                       "gallocsim predicts for it; Continue lets ggml plan it, and the dock then says "
                                       "whether ggml did the same.")
                                        .arg(wait->call)
                                        .arg(followed.session.allocator)
                                        .arg(wait->why));
    Q_EMIT status_message(live_->status_text());
}

} // namespace gallocsim::gui
