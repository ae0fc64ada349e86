#include "gui/simulation_controller.hpp"

#include "gui/session_document.hpp"
#include "gui/tensor_color.hpp"
#include "gui/tensor_description.hpp"
#include "gui/text.hpp"
#include "simulator/model/input_file.hpp"
#include "simulator/trace/capture_replay.hpp"
#include "simulator/trace/explain.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>


#include <algorithm>
#include <cmath>

namespace gallocsim::gui {

namespace {

// ggml's plan of a graph shown, the one run of the allocator on it: what comparison() and
// why_answers() read. `tensors`: the graph's description (an earlier trace's, or a new one).
std::shared_ptr<const GgmlPlan> plan_graph(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile) {
    return std::make_shared<const GgmlPlan>(run_ggml_plan(file, std::move(tensors), profile));
}

// The trace a Loaded shows: the replay, or else the plan's own (sharing the plan, not a copy).
std::shared_ptr<const Trace> shown_trace(const std::shared_ptr<const GgmlPlan>& plan, std::optional<Trace>& replay) {
    return replay ? std::make_shared<const Trace>(std::move(*replay)) : std::shared_ptr<const Trace>(plan, &plan->trace);
}

} // namespace

SimulationController::Loaded::Loaded(GraphFile graph, std::shared_ptr<const GgmlPlan> ggml, const AllocatorProfile& planned_by,
                                     std::optional<Trace> replay, QString from)
    : file(std::move(graph)), plan(std::move(ggml)), profile(&planned_by), cursor(shown_trace(plan, replay)), final_state(cursor.state_at(cursor.size())),
      timeline(shows_plan() ? std::shared_ptr<const Timeline>(plan, &plan->timeline) : std::make_shared<const Timeline>(cursor.trace())),
      // A trace that only places (a capture's alloc_graph that kept another graph's plan) knows no lifetimes.
      lifetimes(!timeline->has_plan() ? std::make_shared<const GraphLifetimes>()
                : shows_plan()        ? std::shared_ptr<const GraphLifetimes>(plan, &plan->lifetimes)
                                      : std::make_shared<const GraphLifetimes>(plan_lifetimes(file, cursor.trace(), *timeline))),
      explanations(explain_all(cursor.trace())), source(std::move(from)),
      peaks(buffer_peaks(cursor.trace())), splits(scheduler_splits(cursor.trace())) {
    colors.reserve(cursor.trace().tensors.size());
    for (const TraceTensor& tensor : cursor.trace().tensors) {
        colors.push_back(tensor_color(tensor.name));
    }
}

SimulationController::SimulationController(QObject* parent) : QObject(parent) {
    connect(&timer_, &QTimer::timeout, this, &SimulationController::tick);
}

SimulationController::~SimulationController() = default;

void SimulationController::cancel_loading() {
    background_.cancel();
}

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

QString SimulationController::graph_name() const {
    if (!has_graph()) {
        return {};
    }
    return file().name.empty() ? QFileInfo(source()).fileName() : qstr(file().name);
}

const Comparison& SimulationController::comparison() {
    if (!loaded_->comparison) {
        // The exact search may use its whole time limit on a large graph: it runs off the GUI
        // thread, keeping the graph it reads alive (a cancelled job runs on until it notices,
        // maybe after another graph is loaded), and a cancel
        // stops it; the plans are then made again at once, the search told to stop, so the panel
        // shows the heuristics' plans and an exact row that says it was cancelled.
        auto stop = std::make_shared<std::stop_source>();
        ExactLimits limits;
        limits.time_limit = std::chrono::seconds(2);  // as compare's default
        limits.stop = stop->get_token();
        std::optional<Comparison> compared =
            off_thread(tr("searching for the smallest arena"), tr("Comparing planners failed"),
                       [loaded = loaded_, limits] { return compare_planners(loaded->file, *loaded->plan, limits); });
        if (!compared) {
            stop->request_stop();
            compared = compare_planners(loaded_->file, *loaded_->plan, limits);
        }
        loaded_->comparison = std::move(*compared);
    }
    return *loaded_->comparison;
}

const std::vector<BufferAnswer>& SimulationController::why_answers() {
    if (!loaded_->answers) {
        const Comparison& compared = comparison();
        // By the rules the plan shown was made by, not the toolbar's: a capture's call is planned
        // by its session's version, and its what-if plans must not come from another allocator.
        loaded_->answers = gallocsim::why_answers(loaded_->file, planned_by(), trace(), compared, loaded_->peaks);
    }
    return *loaded_->answers;
}

bool SimulationController::fail(const QString& title, const QString& message) {
    Q_EMIT error_occurred(title, message);
    return false;
}

// --- Loading --------------------------------------------------------------------------

bool SimulationController::install(GraphFile file, QString from, std::size_t start_at, bool same_graph) {
    pause();
    // The same graph under other settings keeps its tensors: their description is shared.
    std::optional<TraceTensors> tensors;
    if (same_graph && loaded_) {
        tensors = trace().tensors;
    }
    auto loaded = off_thread(tr("Planning %1").arg(from), tr("Cannot plan the graph"),
                             [file = std::move(file), tensors = std::move(tensors), from, profile = profile_]() mutable {
                                 try {
                                     TraceTensors described = tensors ? std::move(*tensors) : describe_tensors(file);
                                     auto plan = plan_graph(file, std::move(described), *profile);
                                     return std::make_unique<Loaded>(std::move(file), std::move(plan), *profile, std::nullopt, from);
                                 } catch (const std::exception& error) {
                                     throw std::runtime_error(from.toStdString() + ": " + error.what());
                                 }
                             });
    if (!loaded) {
        return false;
    }
    show(std::move(*loaded), start_at, same_graph);
    set_selected_call(std::nullopt, {});
    return true;
}

void SimulationController::show(std::unique_ptr<Loaded> loaded, std::size_t start_at, bool same_graph) {
    const QString from = loaded->source;
    loaded_ = std::move(loaded);
    shown_peak_.reset();
    if (!same_graph) {
        breakpoints_.clear();
        selected_.reset();
    }
    loaded_->cursor.jump(std::min(start_at, loaded_->cursor.size()));
    before_ = loaded_->cursor.state_at(position() == 0 ? 0 : position() - 1);
    breakpoints_.locate(&loaded_->cursor);
    Q_EMIT graph_changed();
    Q_EMIT breakpoints_changed();
    Q_EMIT selection_changed(selected_);
    Q_EMIT position_changed(this->position());
    if (!trace().error.empty()) {
        Q_EMIT error_occurred(tr("The plan failed"),
                            tr("%1: %2\nThe events up to the failure can still be followed.").arg(from, qstr(trace().error)));
    }
    Q_EMIT status_message(tr("%1: %2 tensors, %3 events").arg(graph_name()).arg(trace().tensors.size()).arg(event_count()));
}

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
    pause();
    capture_ = std::move(loaded);
    Q_EMIT capture_changed();
    for (const std::string& error : capture_->errors) {
        Q_EMIT error_occurred(tr("A session cannot be read"), qstr(error));
    }
    for (const CaptureSession& session : capture_->sessions) {
        if (!session.truncated.empty()) {
            Q_EMIT error_occurred(tr("The capture is cut short"), qstr(session.file.string() + ": " + session.truncated));
        }
    }
    return select_call(static_cast<std::size_t>(first - capture_->sessions.begin()), 0);
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
    auto loaded = off_thread(tr("Replaying %1").arg(from), tr("Cannot replay the call"),
                             [chosen, call, &profile, from] {
        CallTrace traced = trace_call(chosen, call, profile);
        // Beside the replay, ggml's plan of the call's graph for the comparison and the why
        // answers, by the rules of the ggml version the replay shows (the program's, as the
        // version map placed it), so that the reports speak of the allocator on screen.
        // Choosing another version replans the call's graph alone (set_profile).
        auto plan = plan_graph(traced.file, traced.trace.tensors, profile);
        return std::pair(std::make_unique<Loaded>(std::move(traced.file), std::move(plan), profile, std::move(traced.trace), from),
                         qstr(traced.note));
    });
    if (!loaded) {
        return false;
    }
    show(std::move(loaded->first), 0, false);
    set_selected_call(CallChoice{session, call}, loaded->second);
    return true;
}

bool SimulationController::load_graph(GraphFile file, const QString& source) {
    if (!install(std::move(file), source, 0, false)) {
        return false;
    }
    if (capture_) {
        capture_.reset();  // a graph of its own: the capture's calls are no longer what is shown
        Q_EMIT capture_changed();
    }
    return true;
}

bool SimulationController::open_file(const QString& path) {
    if (QFileInfo(path).isDir()) {
        return is_capture_dir(path.toStdString())
                   ? open_capture(path)
                   : fail(tr("Cannot open the folder"), tr("%1: not a capture (it has no session-*.jsonl)").arg(path));
    }
    QByteArray text;
    try {
        text = QByteArray::fromStdString(read_input_file(path.toStdString()));  // bounded: /dev/zero is refused
    } catch (const GraphFileError& error) {
        return fail(tr("Cannot open file"), QString::fromUtf8(error.what()));
    }
    // A saved session is recognised by its format tag; anything else must be a graph file.
    if (text.contains(kSessionFormat)) {
        QJsonParseError parse_error;
        const QJsonDocument document = QJsonDocument::fromJson(text, &parse_error);
        if (document.isObject() && document.object().value("format").toString() == kSessionFormat) {
            return restore_session(document.object(), path);
        }
    }
    auto file = off_thread(tr("Reading %1").arg(path), tr("Cannot read the graph file"), [text, path] {
        return parse_graph_file(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), path.toStdString());
    });
    return file && load_graph(std::move(*file), path);
}

bool SimulationController::load_example(const QString& name, const ExampleOptions& options) {
    try {
        return load_graph(make_example(name.toStdString(), options), "example:" + name);
    } catch (const std::exception& error) {
        return fail(tr("Cannot build the example"), QString::fromUtf8(error.what()));
    }
}

namespace {

// The decision the cursor shows (the last event applied), to be found again after a re-plan
// under other rules: the event count moves, so the same number would show an unrelated one.
struct ShownDecision {
    EventKind kind;
    TensorId tensor;        // the first tensor the event touches (kNoTensor: none)
    std::size_t node_step;  // the node step it belongs to
};

std::optional<ShownDecision> shown_decision(const Trace& trace, std::size_t position) {
    if (position == 0 || position > trace.size()) {
        return std::nullopt;
    }
    const TraceEvent& event = trace.events[position - 1];
    const auto touched = touched_tensors(event);
    return ShownDecision{kind_of(event), touched.empty() ? kNoTensor : touched.front(), node_step(trace, event)};
}

// Where the same decision is in `trace` (positions count applied events): the same kind of event
// on the same tensor; else the last event of the same node step; else the end.
std::size_t position_of(const Trace& trace, const ShownDecision& shown) {
    for (std::size_t i = 0; shown.tensor != kNoTensor && i < trace.size(); ++i) {
        const TraceEvent& event = trace.events[i];
        if (kind_of(event) != shown.kind) {
            continue;
        }
        if (const auto touched = touched_tensors(event); std::ranges::find(touched, shown.tensor) != touched.end()) {
            return i + 1;
        }
    }
    std::size_t position = 0;
    for (std::size_t i = 0; i < trace.size() && node_step(trace, trace.events[i]) <= shown.node_step; ++i) {
        position = i + 1;
    }
    return position;
}

} // namespace

bool SimulationController::set_profile(const AllocatorProfile& profile) {
    if (&profile == profile_) {
        return true;
    }
    const AllocatorProfile* previous = profile_;
    profile_ = &profile;
    if (has_graph()) {
        try {
            const auto shown = shown_decision(trace(), position());
            GraphFile copy = parse_graph_file(graph_file_to_json(file()), source().toStdString());
            if (!install(std::move(copy), source(), position(), true)) {
                profile_ = previous;
                return false;
            }
            // The selected tensor's placement under the new rules, or else the decision shown.
            if (const auto placing = selected_ ? timeline().placing_event(*selected_) : std::nullopt) {
                jump(*placing + 1);
            } else if (shown) {
                jump(position_of(trace(), *shown));
            }
        } catch (const std::exception& error) {
            profile_ = previous;
            return fail(tr("Cannot plan the graph"), QString::fromUtf8(error.what()));
        }
    }
    Q_EMIT profile_changed();
    Q_EMIT status_message(tr("Planning by the rules of %1").arg(qstr(profile_->name)));
    return true;
}

bool SimulationController::set_buffer_types(const std::vector<BufferTypeSpec>& types) {
    if (!has_graph()) {
        return false;
    }
    if (types.size() != file().buffer_types.size()) {
        return fail(tr("Invalid buffer settings"), tr("%1 buffer types given, the graph has %2")
                                                       .arg(types.size())
                                                       .arg(file().buffer_types.size()));
    }
    // A copy through the file format: the same validation as a file gets, and the shown
    // graph stays untouched if the settings are refused.
    try {
        GraphFile copy = parse_graph_file(graph_file_to_json(file()), source().toStdString());
        copy.buffer_types = types;
        copy.expected.reset();  // upstream's plan was for the old settings
        copy = parse_graph_file(graph_file_to_json(copy), "buffer settings");
        return install(std::move(copy), source(), position(), true);
    } catch (const std::exception& error) {
        return fail(tr("Invalid buffer settings"), QString::fromUtf8(error.what()));
    }
}

// --- The cursor -----------------------------------------------------------------------

void SimulationController::jump(std::size_t target) {
    if (!has_graph()) {
        return;
    }
    target = std::min(target, event_count());
    if (target == position()) {
        return;
    }
    if (target == position() + 1) {
        before_ = state();  // shares its pages with the cursor's state: cheap
    } else {
        before_ = loaded_->cursor.state_at(target == 0 ? 0 : target - 1);
    }
    loaded_->cursor.jump(target);
    moved();
}

void SimulationController::step_forward() {
    pause();
    jump(position() + 1);
}

void SimulationController::step_back() {
    pause();
    if (position() > 0) {
        jump(position() - 1);
    }
}

void SimulationController::moved() {
    if (shown_peak_ && shown_peak() == nullptr) {
        shown_peak_.reset();
        Q_EMIT peak_shown(false);
    }
    Q_EMIT position_changed(position());
}

void SimulationController::go_to_peak(std::optional<std::size_t> buffer_index) {
    if (!has_graph() || peaks().empty()) {
        return;
    }
    if (!buffer_index) {
        const auto largest = std::max_element(peaks().begin(), peaks().end(),
                                              [](const BufferPeak& a, const BufferPeak& b) { return a.size < b.size; });
        buffer_index = static_cast<std::size_t>(largest - peaks().begin());
    }
    const BufferPeak& peak = peaks().at(*buffer_index);
    if (!peak.event) {
        Q_EMIT status_message(tr("Nothing was planned in buffer %1").arg(peak.buffer_id));
        return;
    }
    pause();
    shown_peak_.reset();
    jump(*peak.event + 1);
    shown_peak_ = buffer_index;
    Q_EMIT peak_shown(true);
    Q_EMIT status_message(tr("Buffer %1 reached its %2 at event %3, node step %4")
                              .arg(peak.buffer_id)
                              .arg(human_bytes(peak.size))
                              .arg(*peak.event + 1)
                              .arg(node_step(trace(), trace().events[*peak.event])));
}

const BufferPeak* SimulationController::shown_peak() const {
    if (!has_graph() || !shown_peak_ || *shown_peak_ >= peaks().size()) {
        return nullptr;
    }
    const BufferPeak& peak = peaks()[*shown_peak_];
    return peak.event && position() == *peak.event + 1 ? &peak : nullptr;
}

std::vector<TensorId> SimulationController::last_event_tensors() const {
    if (!has_graph() || cursor().last_event() == nullptr) {
        return {};
    }
    return touched_tensors(*cursor().last_event());
}

// --- Running --------------------------------------------------------------------------

void SimulationController::run() {
    if (!has_graph() || is_running()) {
        return;
    }
    if (cursor().at_end()) {
        jump(0);  // run again from the start, as a media player does
    }
    if (unlimited_) {
        const auto stop = breakpoints_.next_after(position());
        jump(stop.value_or(event_count()));
        Q_EMIT status_message(stop ? tr("Stopped at a breakpoint, event %1").arg(*stop) : tr("Ran to the end"));
        return;
    }
    timer_.start(std::max(kTickMilliseconds, 1000 / std::max(1, speed_)));
    Q_EMIT running_changed(true);
}

void SimulationController::pause() {
    if (timer_.isActive()) {
        timer_.stop();
        Q_EMIT running_changed(false);
    }
}

void SimulationController::tick() {
    // Each tick moves as many events as the speed asks for in one tick's time, and
    // stops early at a breakpoint: one redraw per tick however fast the run.
    const auto per_tick = static_cast<std::size_t>(std::max(1, speed_ * timer_.interval() / 1000));
    std::size_t target = std::min(position() + per_tick, event_count());
    const auto stop = breakpoints_.next_after(position());
    const bool at_breakpoint = stop && *stop <= target;
    if (at_breakpoint) {
        target = *stop;
    }
    jump(target);
    if (at_breakpoint) {
        pause();
        Q_EMIT status_message(tr("Stopped at a breakpoint, event %1").arg(target));
    } else if (cursor().at_end()) {
        pause();
    }
}

void SimulationController::set_speed(int events_per_second) {
    speed_ = std::clamp(events_per_second, 1, 10000);
    if (is_running()) {
        timer_.setInterval(std::max(kTickMilliseconds, 1000 / speed_));
    }
    Q_EMIT speed_changed(speed_, unlimited_);
}

void SimulationController::set_unlimited(bool unlimited) {
    unlimited_ = unlimited;
    if (unlimited_ && is_running()) {
        pause();
        run();
    }
    Q_EMIT speed_changed(speed_, unlimited_);
}

// --- Breakpoints ----------------------------------------------------------------------

void SimulationController::set_tensor_breakpoint(TensorId tensor, bool on) {
    breakpoints_.set_tensor(tensor, on);
    breakpoints_changed_now();
}

void SimulationController::set_kind_breakpoint(EventKind kind, bool on) {
    breakpoints_.set_kind(kind, on);
    breakpoints_changed_now();
}

void SimulationController::clear_breakpoints() {
    breakpoints_.clear();
    breakpoints_changed_now();
}

void SimulationController::breakpoints_changed_now() {
    breakpoints_.locate(has_graph() ? &cursor() : nullptr);
    Q_EMIT breakpoints_changed();
}

// --- Selection and descriptions -------------------------------------------------------

void SimulationController::select(std::optional<TensorId> tensor) {
    if (tensor == selected_) {
        return;
    }
    selected_ = tensor;
    Q_EMIT selection_changed(selected_);
}

std::optional<TensorId> SimulationController::find_tensor(const QString& name) const {
    if (!has_graph()) {
        return std::nullopt;
    }
    const std::string wanted = name.toStdString();
    if (auto found = trace().find(wanted)) {
        return found;
    }
    // A name the window shows with escapes (qstr) is found as shown, too.
    for (const TraceTensor& tensor : trace().tensors) {
        if (!is_visible_text(tensor.name) && visible_text(tensor.name) == wanted) {
            return trace().find(tensor.name);
        }
    }
    return std::nullopt;
}

QString SimulationController::describe_tensor(TensorId id) const {
    return gui::describe_tensor({file(), cursor(), timeline(), splits(), loaded_->explanations}, id);
}

// --- Sessions -------------------------------------------------------------------------

bool SimulationController::load_policy(const QString& path) {
    std::unique_ptr<const Policy> policy;
    try {
        policy = load_policy_file(path.toStdString());
    } catch (const std::exception& error) {
        return fail(tr("Cannot read the policy"), QString::fromUtf8(error.what()));
    }
    return set_profile(keep_policy(std::move(policy)));
}

const AllocatorProfile& SimulationController::keep_policy(std::unique_ptr<const Policy> policy) {
    const Policy& kept = *policies_.emplace_back(std::move(policy));
    Q_EMIT policies_changed();
    return kept.profile();
}

const AllocatorProfile* SimulationController::profile_named(const QString& name) const {
    const std::string text = name.toStdString();
    if (const AllocatorProfile* state = gallocsim::profile_named(text)) {
        return state;
    }
    // The latest policy of that name (a file read again after an edit).
    for (auto it = policies_.rbegin(); it != policies_.rend(); ++it) {
        if ((*it)->name() == text) {
            return &(*it)->profile();
        }
    }
    return nullptr;
}

QJsonObject SimulationController::session() const {
    if (!has_graph()) {
        return QJsonObject{{"format", kSessionFormat}};
    }
    return write_session({file(), trace(), source(), *profile_, position(), breakpoints_.tensors(), breakpoints_.kinds(), speed_,
                          unlimited_, selected_});
}

bool SimulationController::restore_session(const QJsonObject& session, const QString& origin) {
    SessionDocument document;
    try {
        document = read_session(session, origin, [this](const QString& name) { return profile_named(name); });
    } catch (const SessionError& error) {
        return fail(tr("Cannot open the session"), QString::fromUtf8(error.what()));
    }
    const AllocatorProfile* previous = profile_;
    profile_ = document.policy ? &keep_policy(std::move(document.policy)) : document.profile ? document.profile : profile_;
    if (!install(std::move(document.file), document.source, document.position, false)) {
        profile_ = previous;
        return false;
    }
    if (profile_ != previous) {
        Q_EMIT profile_changed();
    }
    for (const std::string& name : document.tensor_breakpoints) {
        breakpoints_.set_tensor(*trace().find(name), true);
    }
    for (EventKind kind : document.kind_breakpoints) {
        breakpoints_.set_kind(kind, true);
    }
    breakpoints_changed_now();
    unlimited_ = document.unlimited;
    set_speed(document.speed > 0 ? document.speed : kDefaultSpeed);
    if (!document.selected.isEmpty()) {
        select(find_tensor(document.selected));
    }
    return true;
}

bool SimulationController::save_session(const QString& path) {
    QFile output(path);
    if (!output.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return fail(tr("Cannot save the session"), tr("%1: %2").arg(path, output.errorString()));
    }
    output.write(QJsonDocument(session()).toJson(QJsonDocument::Indented));
    if (!output.flush()) {
        return fail(tr("Cannot save the session"), tr("%1: %2").arg(path, output.errorString()));
    }
    return true;
}

bool SimulationController::open_session(const QString& path) {
    return open_file(path);
}

} // namespace gallocsim::gui
