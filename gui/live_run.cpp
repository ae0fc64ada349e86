#include "gui/live_run.hpp"

#include "gui/text.hpp"
#include "simulator/model/amount_text.hpp"

#include <stdexcept>
#include <vector>

namespace gallocsim::gui {

namespace {

std::vector<std::string> std_strings(const QStringList& list) {
    std::vector<std::string> strings;
    for (const QString& item : list) {
        strings.push_back(item.toStdString());
    }
    return strings;
}

live::LiveSettings settings_for(const LiveStops& stops) { return {stops.any_before(), stops.at_failure}; }

std::unique_ptr<live::ProgramRun> start(const QStringList& command, const QString& folder, const live::LiveServer& server) {
    if (command.isEmpty()) {
        throw std::runtime_error("no program to run");
    }
    const live::FoundLibrary library = live::find_capture_library();
    if (!library.path) {
        throw std::runtime_error(library.problem);
    }
    if (const std::string problem = live::prepare_capture_folder(folder.toStdString()); !problem.empty()) {
        throw std::runtime_error(problem);
    }
    return std::make_unique<live::ProgramRun>(std_strings(command), *library.path, folder.toStdString(), server.socket_path());
}

} // namespace

LiveRun::LiveRun(const QStringList& command, const QString& folder, LiveStops stops, QObject* parent)
    : QObject(parent), command_(command), folder_(folder), stops_(std::move(stops)), server_(settings_for(stops_)),
      capture_(folder.toStdString(), nullptr), program_(start(command, folder, server_)) {
    connect(&timer_, &QTimer::timeout, this, &LiveRun::poll);
    timer_.start(kPollMilliseconds);
}

LiveRun::~LiveRun() = default;  // the server closes every connection: a waiting process goes on

const CallReplay* LiveRun::verdict(const std::string& session, std::size_t call) const {
    const auto found = verdicts_.find({session, call});
    return found != verdicts_.end() ? &found->second : nullptr;
}

void LiveRun::set_stops(LiveStops stops) {
    stops_ = std::move(stops);
    server_.set_settings(settings_for(stops_));
}

void LiveRun::go_on() {
    if (waits_.empty()) {
        return;
    }
    server_.go(waits_.front().connection);
    waits_.pop_front();
    told_stopped_ = false;
    show_next_wait();
}

QString LiveRun::status_text() const {
    const QString tally = qstr(tally_.line());
    if (end_) {
        return tr("%1 %2; %3").arg(command_.front(), qstr(end_->words()), tally);
    }
    if (const LiveWait* wait = waiting()) {
        const QString where = wait->before ? tr("before call %1").arg(wait->call) : tr("after call %1 failed").arg(wait->call);
        return tr("Stopped %1 of allocator %2 (%3): Continue lets the program go on; %4")
            .arg(where)
            .arg(capture_.sessions()[wait->session]->session.allocator)
            .arg(wait->why, tally);
    }
    return tr("Running %1: %2").arg(command_.front(), tally);
}

void LiveRun::poll() {
    server_.welcome_new_processes();  // a new process waits for its greeting's answer, busy or not
    if (busy_ && busy_()) {
        return;  // the GUI is replaying a call: the socket keeps what comes meanwhile
    }
    const auto messages = server_.read(std::chrono::milliseconds(0));
    if (!messages.empty()) {
        read_calls();
    }
    for (const live::LiveMessage& message : messages) {
        handle(message);
    }
    show_next_wait();
    if (!end_ && (end_ = program_->poll(false))) {
        read_calls();  // what a process wrote without telling (one that could not connect)
        timer_.stop();
        Q_EMIT finished();
    }
}

void LiveRun::read_calls() {
    const auto watched = capture_.catch_up();
    for (const live::WatchedCall& call : watched) {
        const CaptureSession& session = capture_.sessions()[call.session]->session;
        tally_.add(call.replay);
        if (call.replay.outcome == CallOutcome::failed) {
            Q_EMIT mismatch(qstr(watched_call_line(session, call.replay)));
        }
        verdicts_[{session.label(), call.replay.index}] = call.replay;
        newest_ = std::pair(session.label(), call.replay.index);
    }
    if (!watched.empty()) {
        Q_EMIT calls_read(watched.size());
    }
}

void LiveRun::handle(const live::LiveMessage& message) {
    using Kind = live::LiveMessage::Kind;
    if (message.kind != Kind::planning && !(message.kind == Kind::planned && message.returned == false)) {
        return;
    }
    const std::optional<std::size_t> session = capture_.index_of(message.session);
    const live::FollowedSession* followed = session ? capture_.sessions()[*session].get() : nullptr;
    if (followed == nullptr || followed->profile == nullptr) {
        server_.go(message.connection);  // nothing to predict it by: nothing to stop for
        return;
    }
    if (message.kind == Kind::planned) {
        if (stops_.at_failure) {
            waits_.push_back({message.connection, *session, std::nullopt, static_cast<std::size_t>(message.call),
                              tr("the call failed")});
        }
        return;
    }
    const auto function = live::captured_function_named(message.function);
    live::PendingCall pending{function.value_or(CapturedFunction::reserve_n), message.graph, message.nodes, message.leafs};
    const std::optional<QString> why = function ? reason_to_stop(*followed, pending) : std::nullopt;
    if (!why) {
        server_.go(message.connection);
        return;
    }
    waits_.push_back({message.connection, *session, pending, static_cast<std::size_t>(message.call), *why});
}

std::optional<QString> LiveRun::reason_to_stop(const live::FollowedSession& followed, const live::PendingCall& pending) const {
    if (stops_.each_call) {
        return tr("stopped before each call");
    }
    try {
        if (!stops_.tensor.isEmpty()) {
            CapturedCall call;
            call.graph = pending.graph;
            call.nodes = pending.nodes;
            call.leafs = pending.leafs;
            const GraphFile graph = load_call_graph(followed.session, call);
            if (graph.context.find(stops_.tensor.toStdString()) != nullptr) {
                return tr("the call plans a tensor named %1").arg(stops_.tensor);
            }
        }
        if (stops_.past) {
            const auto sizes = live::predicted_buffer_sizes(followed.session, pending, *followed.profile);
            for (std::size_t id = 0; id < sizes.size(); ++id) {
                if (sizes[id] > *stops_.past) {
                    return tr("gallocsim predicts buffer %1 grows to %2, past %3")
                        .arg(id)
                        .arg(qstr(binary_size(sizes[id])), qstr(binary_size(*stops_.past)));
                }
            }
        }
    } catch (const GraphFileError& error) {
        return tr("gallocsim cannot predict this call: %1").arg(qstr(error.what()));
    }
    return std::nullopt;
}

void LiveRun::show_next_wait() {
    if (!waits_.empty() && !told_stopped_) {
        told_stopped_ = true;
        Q_EMIT stopped();
    }
}

} // namespace gallocsim::gui
