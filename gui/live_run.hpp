#pragma once
// A program the GUI runs and watches (File > Run a program…, gallocsim-gui --run): started
// under the capture library with the live socket (simulator/live), polled from the GUI's
// event loop. Each call the program makes is read from its session file as soon as it is
// written and replayed on the spot, so the Capture dock lists it with its verdict. Where the
// person asked to stop (before each call, at a call that plans a tensor of a given name, at
// one gallocsim predicts will grow a buffer past a size, after a call that fails) the
// program waits until go_on(); the controller shows gallocsim's plan of the waiting call.
//
// The program never waits on a LiveRun that is gone: destroying it closes the socket, and
// the capture library lets the program go on unwatched.

#include "reference/profile.hpp"
#include "simulator/analysis/watch_report.hpp"
#include "simulator/live/live_capture.hpp"
#include "simulator/live/live_server.hpp"
#include "simulator/live/program_run.hpp"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace gallocsim::gui {

// Where the program stops (waits for Continue).
struct LiveStops {
    bool each_call = false;           // before every planning call
    QString tensor;                   // before a call whose graph has a tensor of this name
    std::optional<std::size_t> past;  // before a call gallocsim predicts grows a buffer past this many bytes
    bool at_failure = false;          // after a call that failed (an out-of-memory): its graph stays shown
    bool any_before() const { return each_call || !tensor.isEmpty() || past.has_value(); }
};

// A process of the program waiting: before a call (pending) or after one that failed.
struct LiveWait {
    int connection = 0;
    std::size_t session = 0;                  // index into capture().sessions()
    std::optional<live::PendingCall> before;  // none: after a failed call
    std::size_t call = 0;                     // the call's index in its session
    QString why;                              // "stopped before each call", ...
};

class LiveRun : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMilliseconds = 20;

    // Starts the program; throws std::runtime_error with the reason when it cannot.
    LiveRun(const QStringList& command, const QString& folder, LiveStops stops, QObject* parent = nullptr);
    ~LiveRun() override;

    const QStringList& command() const { return command_; }
    pid_t pid() const { return program_->pid(); }
    const QString& folder() const { return folder_; }
    const live::LiveCapture& capture() const { return capture_; }
    // The verdict on a call already read, by its session's file name and index.
    const CallReplay* verdict(const std::string& session, std::size_t call) const;
    const WatchTally& tally() const { return tally_; }
    // The call read last: its session's file name and its index.
    const std::optional<std::pair<std::string, std::size_t>>& newest_call() const { return newest_; }
    const LiveStops& stops() const { return stops_; }
    void set_stops(LiveStops stops);
    // The process waiting for Continue, if one is.
    const LiveWait* waiting() const { return waits_.empty() ? nullptr : &waits_.front(); }
    // Lets the waiting process go on (the next waiting one, if any, is shown next).
    void go_on();
    const std::optional<live::ProgramEnd>& end() const { return end_; }
    // One line for the dock and the status bar: running, stopped, or finished, with the tally.
    QString status_text() const;
    // While this says the GUI is busy (a replay on its worker), messages wait in the socket.
    void set_busy(std::function<bool()> busy) { busy_ = std::move(busy); }

Q_SIGNALS:
    void calls_read(std::size_t count);  // new sessions or calls read and replayed
    void mismatch(const QString& line);  // a call gallocsim's plan does not reproduce
    void stopped();                      // a process waits: waiting() says where
    void finished();                     // the program ended and every call is read

private:
    void poll();
    void handle(const live::LiveMessage& message);
    void read_calls();
    std::optional<QString> reason_to_stop(const live::FollowedSession& followed, const live::PendingCall& pending) const;
    void show_next_wait();

    QStringList command_;
    QString folder_;
    LiveStops stops_;
    live::LiveServer server_;
    live::LiveCapture capture_;
    std::unique_ptr<live::ProgramRun> program_;
    std::optional<live::ProgramEnd> end_;
    std::map<std::pair<std::string, std::size_t>, CallReplay> verdicts_;
    WatchTally tally_;
    std::optional<std::pair<std::string, std::size_t>> newest_;
    std::deque<LiveWait> waits_;
    bool told_stopped_ = false;
    std::function<bool()> busy_;
    QTimer timer_;
};

} // namespace gallocsim::gui
