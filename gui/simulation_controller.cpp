// SimulationController: loading and planning the graph shown, and what it is (names,
// selection, descriptions). The rest of the class, by what it does: the cursor and runs in
// simulation_controller_playback.cpp, captures in simulation_controller_capture.cpp, the
// reports in simulation_controller_reports.cpp, sessions and policies in
// simulation_controller_sessions.cpp.
#include "gui/simulation_controller.hpp"

#include "gui/live_run.hpp"
#include "gui/session_document.hpp"
#include "gui/shown_decision.hpp"
#include "gui/tensor_description.hpp"
#include "gui/text.hpp"
#include "simulator/model/input_file.hpp"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

namespace gallocsim::gui {

SimulationController::SimulationController(QObject* parent) : QObject(parent) {
    connect(&timer_, &QTimer::timeout, this, &SimulationController::tick);
}

SimulationController::~SimulationController() = default;

void SimulationController::cancel_loading() {
    background_.cancel();
}

QString SimulationController::graph_name() const {
    if (!has_graph()) {
        return {};
    }
    return file().name.empty() ? QFileInfo(source()).fileName() : qstr(file().name);
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
                                     return std::make_unique<LoadedGraph>(std::move(file), std::move(described), *profile, std::nullopt, from);
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

void SimulationController::show(std::unique_ptr<LoadedGraph> loaded, std::size_t start_at, bool same_graph) {
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

// --- Rules and settings ---------------------------------------------------------------

bool SimulationController::set_profile(const AllocatorProfile& profile) {
    if (&profile == profile_) {
        return true;
    }
    const AllocatorProfile* previous = profile_;
    profile_ = &profile;
    if (has_graph() && !plan_again_showing_the_same_decision()) {
        profile_ = previous;
        return false;
    }
    Q_EMIT profile_changed();
    Q_EMIT status_message(tr("Planning by the rules of %1").arg(qstr(profile_->name)));
    return true;
}

// The shown graph planned again by profile_, keeping breakpoints and selection; shown is the
// same decision under the new rules: the selected tensor's placement, else the decision shown.
bool SimulationController::plan_again_showing_the_same_decision() {
    try {
        const auto shown = shown_decision(trace(), position());
        GraphFile copy = parse_graph_file(graph_file_to_json(file()), source().toStdString());
        if (!install(std::move(copy), source(), position(), true)) {
            return false;
        }
        if (const auto placing = selected_ ? timeline().placing_event(*selected_) : std::nullopt) {
            jump(*placing + 1);
        } else if (shown) {
            jump(position_of(trace(), *shown));
        }
        return true;
    } catch (const std::exception& error) {
        return fail(tr("Cannot plan the graph"), QString::fromUtf8(error.what()));
    }
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

} // namespace gallocsim::gui
