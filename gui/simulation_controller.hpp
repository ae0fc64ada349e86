#pragma once
// The one QObject between the simulator and the views. It owns the loaded graph, its
// recorded trace and a cursor over it; it moves the cursor (step, jump, run at a speed or
// unlimited, to breakpoints), keeps the selection, loads and saves sessions, and tells the
// views what changed through signals. Views read what they draw from it and never change
// the simulation themselves. Redraws are throttled: a run moves the cursor in ticks of at
// most 25 per second, one signal per tick, and an unlimited run signals once, where it stops.
//
// Errors (unreadable files, bad settings) never replace what is shown: the controller
// emits error_occurred with a title and a message naming the problem and keeps the graph.
//
// What is shown is one LoadedGraph (gui/loaded_graph.hpp), made whole by the loader. The
// class is defined in parts, by what each does: simulation_controller.cpp (loading, planning,
// selection), _playback.cpp (the cursor, runs, breakpoints, peaks), _capture.cpp (capture
// calls), _reports.cpp (comparison, why answers), _sessions.cpp (sessions and policies),
// _live.cpp (a program run and watched).

#include "gui/background_work.hpp"
#include "gui/breakpoint_set.hpp"
#include "gui/loaded_graph.hpp"
#include "simulator/model/capture_session.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/policy_file.hpp"
#include "simulator/model/rules.hpp"

#include <QColor>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QString>
#include <QTimer>

#include <cstddef>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gallocsim::gui {

struct SessionDocument;
class LiveRun;
struct LiveStops;

class SimulationController : public QObject {
    Q_OBJECT
public:
    static constexpr int kTickMilliseconds = 40;  // at most 25 redraws per second while running
    static constexpr int kDefaultSpeed = 10;      // events per second

    explicit SimulationController(QObject* parent = nullptr);
    ~SimulationController() override;

    // --- What is loaded --------------------------------------------------------------
    bool has_graph() const { return loaded_ != nullptr; }
    const GraphFile& file() const { return loaded_->file; }
    const Trace& trace() const { return loaded_->cursor.trace(); }
    const Cursor& cursor() const { return loaded_->cursor; }
    const SimState& state() const { return loaded_->cursor.state(); }
    // The state one step earlier (the same as state() at the start): what the last step changed.
    const SimState& state_before() const { return before_; }
    const SimState& final_state() const { return loaded_->final_state; }
    const Timeline& timeline() const { return *loaded_->timeline; }
    const GraphLifetimes& lifetimes() const { return *loaded_->lifetimes; }
    const std::string& explanation(std::size_t event) const { return loaded_->explanations.at(event); }
    // The tensor's colour in every view (tensor_color of its name, worked out once).
    const QColor& color(TensorId tensor) const { return loaded_->colors[static_cast<std::size_t>(tensor)]; }
    // ggml's plan of the graph shown, made once by the loader: the trace shown is its own, or,
    // for a capture's call, the replay beside it; comparison() and why_answers() read it.
    const GgmlPlan& plan() const { return *loaded_->plan; }
    // ggml's plan beside the lower bound, no reuse and the other planners on the same
    // lifetimes; worked out on first use from the plan the loader made (nothing is planned again).
    const Comparison& comparison();
    // Why each buffer is as large as it is (the answer `why` prints), with what each of the
    // largest tensors live at its high-water mark costs on its own; worked out on first use.
    const std::vector<BufferAnswer>& why_answers();
    // The rules the graph shown was planned by: profile() when it was planned here, the
    // version its session's program ran for a capture's call (select_call). The plan, the
    // comparison and the what-if plans of why_answers() are all made by it.
    const AllocatorProfile& planned_by() const { return *loaded_->profile; }
    // Where the graph came from: a file path, or "example:NAME".
    const QString& source() const { return loaded_->source; }
    QString graph_name() const;

    // --- Loading (false and error_occurred on failure; the previous graph stays) ------
    // Planning, recording and explaining run on a worker thread while the window's event
    // loop goes on (it repaints, and a progress dialog can offer cancel_loading()); these
    // calls still return only when the graph is shown, refused or cancelled. busy_changed
    // says when such work starts and ends, with what it is doing.
    bool open_file(const QString& path);
    bool load_example(const QString& name, const ExampleOptions& options = {});
    bool load_graph(GraphFile file, const QString& source);
    // Re-plans the graph with other buffer type settings (alignment, max size).
    bool set_buffer_types(const std::vector<BufferTypeSpec>& types);
    // The ggml version whose rules plan every graph (the newest at first); setting it
    // re-plans the shown graph, keeping breakpoints and selection, and shows the same
    // decision under the new rules: the selected tensor's placement, else the event shown.
    const AllocatorProfile& profile() const { return *profile_; }
    bool set_profile(const AllocatorProfile& profile);
    // Reads a policy file (docs/policies.md) and plans by it like by a version; false, with
    // the file's error, when it cannot be read or the plan fails. Policies read stay
    // selectable by name for the rest of the run (policies_changed).
    bool load_policy(const QString& path);
    const std::vector<std::shared_ptr<const Policy>>& policies() const { return policies_; }
    // Plans by rules resolved as the command line resolves them (model/rules.hpp); a policy among
    // them is kept as load_policy keeps one.
    bool use_rules(const Rules& rules);
    // A state (by name or alias) or a policy read before, by its name; nullptr for neither.
    const AllocatorProfile* profile_named(const QString& name) const;

    // --- Captures (a folder of sessions, docs/graph-format.md) ---------------------------
    // Opens the folder and shows its first call; open_file on a folder does the same.
    bool open_capture(const QString& folder);
    const Capture* capture() const { return capture_ ? &*capture_ : nullptr; }
    // Shows one call as the program made it (simulator/trace/capture_replay.hpp, trace_call): an
    // alloc_graph that kept a reserved plan shows that reserve's planning, then its placement.
    bool select_call(std::size_t session, std::size_t call);
    struct CallChoice {
        std::size_t session = 0;
        std::size_t call = 0;
    };
    // The call shown; none when the graph shown is not one of the capture's calls.
    std::optional<CallChoice> selected_call() const { return selected_call_; }
    // What the shown trace is: "alloc_graph reused the plan of call 2 (reserve_n): ...".
    const QString& call_note() const { return call_note_; }

    // --- Live: a program run under the capture and watched (gui/live_run.hpp) ------------
    // Starts `command` capturing into `folder` (made; must hold no capture); the capture's
    // calls are listed as they are made and the newest shown, unless another call was picked.
    bool start_live(const QStringList& command, const QString& folder, const LiveStops& stops);
    LiveRun* live() const { return live_.get(); }
    // Lets a process waiting at a stop go on; the call it plans is then shown and checked.
    void continue_live();
    void set_live_stops(const LiveStops& stops);

    // Gives up the loading under way: the call that started it returns false at once and
    // the graph shown stays; the worker's result is dropped when it ends.
    void cancel_loading();
    bool is_loading() const { return background_.is_waiting(); }
    // How long a load may take before busy_changed says it is under way (small graphs
    // load in less and show nothing); tests set 0 to see every load as one.
    void set_quiet_period(std::chrono::milliseconds period) { background_.set_quiet_period(period); }

    // --- The cursor -------------------------------------------------------------------
    std::size_t event_count() const { return has_graph() ? cursor().size() : 0; }
    std::size_t position() const { return has_graph() ? cursor().position() : 0; }
    void jump(std::size_t position);
    void step_forward();
    void step_back();
    void to_first() {
        pause();
        jump(0);
    }
    void to_last() {
        pause();
        jump(event_count());
    }
    // The tensors the last step's event is about (highlighted in every view).
    std::vector<TensorId> last_event_tensors() const;

    // --- Running ----------------------------------------------------------------------
    void run();
    void pause();
    void toggle_run() { is_running() ? pause() : run(); }
    bool is_running() const { return timer_.isActive(); }
    void set_speed(int events_per_second);
    int speed() const { return speed_; }
    // Unlimited: a run jumps straight to the next breakpoint or the end, drawing nothing between.
    void set_unlimited(bool unlimited);
    bool is_unlimited() const { return unlimited_; }

    // --- Breakpoints ------------------------------------------------------------------
    void set_tensor_breakpoint(TensorId tensor, bool on);
    void set_kind_breakpoint(EventKind kind, bool on);
    bool has_tensor_breakpoint(TensorId tensor) const { return breakpoints_.has_tensor(tensor); }
    bool has_kind_breakpoint(EventKind kind) const { return breakpoints_.has_kind(kind); }
    void clear_breakpoints();
    // Positions (1..event_count()) whose step hits a breakpoint, ascending.
    const std::vector<std::size_t>& breakpoint_positions() const { return breakpoints_.positions(); }

    // --- Selection --------------------------------------------------------------------
    void select(std::optional<TensorId> tensor);
    std::optional<TensorId> selected() const { return selected_; }
    std::optional<TensorId> find_tensor(const QString& name) const;

    // --- Peaks: why each buffer is as large as it is ----------------------------------------
    // Per allocator, where its high-water mark was set, what was live and the holes then.
    const std::vector<BufferPeak>& peaks() const { return loaded_->peaks; }
    const SchedulerSplits& splits() const { return loaded_->splits; }
    // Jumps to just after the event that set the largest buffer's size (or `buffer_index`'s,
    // an index into peaks()) and shows that peak in the views until the cursor moves on.
    void go_to_peak(std::optional<std::size_t> buffer_index = std::nullopt);
    // The peak the views highlight: set by go_to_peak, while the cursor stays there.
    const BufferPeak* shown_peak() const;

    // What a tooltip says about a tensor at the cursor: name, op, type, shape, size,
    // offset, lifetime, and why it is where it is.
    QString describe_tensor(TensorId tensor) const;

    // --- Sessions ---------------------------------------------------------------------
    QJsonObject session() const;
    bool restore_session(const QJsonObject& session, const QString& origin);
    bool save_session(const QString& path);
    bool open_session(const QString& path);

Q_SIGNALS:
    void graph_changed();  // another graph or plan: views lay out again
    void position_changed(std::size_t position);
    void running_changed(bool running);
    void speed_changed(int events_per_second, bool unlimited);
    void breakpoints_changed();
    void selection_changed(std::optional<TensorId> tensor);
    void profile_changed();
    void policies_changed();  // a policy file was read: one more name to plan by
    void error_occurred(const QString& title, const QString& message);
    void capture_changed();       // another capture (or none)
    void selected_call_changed();  // another call of the capture shown (or none)
    void live_changed();           // the live run started, read calls, stopped, went on or ended
    void status_message(const QString& message);
    void peak_shown(bool shown);  // go_to_peak showed a peak, or the cursor left it
    void busy_changed(bool busy, const QString& what);  // loading on the worker began (what) or ended

private:
    // Plans `file` and shows it at `start_at` (clamped); false, with the error emitted, when
    // planning throws. `same_graph`: a re-plan of the shown graph keeps breakpoints and selection.
    bool install(GraphFile file, QString from, std::size_t start_at, bool same_graph);
    // Shows a recorded trace of `file`.
    void show(std::unique_ptr<LoadedGraph> loaded, std::size_t start_at, bool same_graph);
    bool plan_again_showing_the_same_decision();  // set_profile's re-plan
    void report_capture_problems();               // sessions of an opened capture that cannot be read
    Comparison compare_in_background();
    void restore_controls(const SessionDocument& document);
    void set_selected_call(std::optional<CallChoice> call, QString note);
    void live_calls_read();
    void live_stopped();
    void show_newest_call();
    void select_live_call(const std::string& session, std::size_t call);
    bool is_newest_call(std::size_t session, std::size_t call) const;
    void moved();  // after every cursor move
    void tick();
    void breakpoints_changed_now();  // locates the breakpoints again and says so
    bool fail(const QString& title, const QString& message);
    // Runs `work` on a worker thread and waits for it in a local event loop; nothing when it
    // threw (error_occurred with `failure`) or was cancelled. (Defined below: every part of
    // the class that loads or compares uses it.)
    template <typename Work>
    auto off_thread(const QString& what, const QString& failure, Work work) -> std::optional<decltype(work())>;

    std::shared_ptr<LoadedGraph> loaded_;  // shared with a comparison still running off the GUI thread
    BackgroundWork background_;  // planning and loading off the GUI thread
    const AllocatorProfile* profile_ = &newest_profile();
    std::vector<std::shared_ptr<const Policy>> policies_;  // every policy read; profile_ may point into one
    // Keeps a policy read from a file or a session; the one of the same name read before is
    // replaced only when nothing plans by it.
    const AllocatorProfile& keep_policy(std::shared_ptr<const Policy> policy);
    SimState before_;
    QTimer timer_;
    int speed_ = kDefaultSpeed;
    bool unlimited_ = false;
    BreakpointSet breakpoints_;
    std::optional<TensorId> selected_;
    std::optional<Capture> capture_;
    std::optional<CallChoice> selected_call_;
    QString call_note_;
    std::unique_ptr<LiveRun> live_;
    bool following_ = false;  // the newest call of the live run is shown as it comes
    std::optional<std::size_t> shown_peak_;  // index into peaks()
};

template <typename Work>
auto SimulationController::off_thread(const QString& what, const QString& failure, Work work) -> std::optional<decltype(work())> {
    auto outcome = background_.run(what, std::move(work), [this](bool busy, const QString& doing) { Q_EMIT busy_changed(busy, doing); });
    if (outcome.error) {
        fail(failure, *outcome.error);
    } else if (!outcome.result) {
        Q_EMIT status_message(tr("Cancelled: %1").arg(what));
    }
    return std::move(outcome.result);
}

} // namespace gallocsim::gui
