// MainWindow: the views and their docks, and the wiring between the controller, the controls
// and the views. Its actions, menus and toolbars are in main_window_actions.cpp; opening,
// saving and exporting files in main_window_files.cpp.
#include "gui/main_window.hpp"

#include "gui/breakpoint_slider.hpp"
#include "gui/capture_panel.hpp"
#include "gui/event_log.hpp"
#include "gui/buffer_settings_dialog.hpp"
#include "gui/graph_view.hpp"
#include "gui/load_progress.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/peak_panel.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/state_tables.hpp"
#include "gui/statistics_panel.hpp"
#include "gui/text.hpp"
#include "gui/timeline_view.hpp"
#include "simulator/analysis/graph_order.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QCompleter>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStringListModel>
#include <QToolTip>

#include <utility>

namespace gallocsim::gui {

MainWindow::MainWindow(bool saved_settings, QWidget* parent)
    : QMainWindow(parent), controller_(new SimulationController(this)), graph_view_(new GraphView(*controller_)),
      memory_map_(new MemoryMapView(*controller_)), timeline_(new TimelineView(*controller_)),
      state_tables_(new StateTables(*controller_)), event_log_(new EventLog(*controller_)),
      statistics_(new StatisticsPanel(*controller_)), peak_panel_(new PeakPanel(*controller_)),
      capture_panel_(new CapturePanel(*controller_)),
      current_view_(graph_view_) {
    setWindowTitle(tr("gallocsim"));
    setAcceptDrops(true);
    setCentralWidget(graph_view_);
    message_sink_ = [this](const QString& title, const QString& message) {
        QMessageBox::warning(this, title, message);
        focus_current_view();
    };

    build_docks();
    build_actions();
    build_menus();
    build_toolbars();
    connect_views();
    statusBar()->showMessage(tr("Ready"));
    restore_settings(saved_settings);
    update_controls();
}

MainWindow::~MainWindow() = default;

// --- Docks ----------------------------------------------------------------------------

QDockWidget* MainWindow::add_dock(const QString& title, const QString& name, QWidget* body, Qt::DockWidgetArea area) {
    auto* widget = new QDockWidget(title, this);
    widget->setObjectName(name);  // saveState() needs names
    widget->setWidget(body);
    addDockWidget(area, widget);
    return widget;
}

void MainWindow::build_docks() {
    auto* events = add_dock(tr("Explanation and events"), "events_dock", event_log_, Qt::LeftDockWidgetArea);
    auto* memory = add_dock(tr("Memory map"), "memory_dock", memory_map_, Qt::RightDockWidgetArea);
    auto* timeline = add_dock(tr("Timeline"), "timeline_dock", timeline_, Qt::BottomDockWidgetArea);
    auto* tables = add_dock(tr("State"), "state_dock", state_tables_, Qt::BottomDockWidgetArea);
    auto* statistics = add_dock(tr("Statistics"), "statistics_dock", statistics_, Qt::BottomDockWidgetArea);
    auto* peak = add_dock(tr("Peak"), "peak_dock", peak_panel_, Qt::BottomDockWidgetArea);
    // The calls of an opened capture: shown when a capture is opened, tabbed with the events.
    auto* capture = add_dock(tr("Capture"), "capture_dock", capture_panel_, Qt::LeftDockWidgetArea);
    tabifyDockWidget(events, capture);
    events->raise();
    connect(controller_, &SimulationController::capture_changed, this, [this, capture] {
        if (controller_->capture() != nullptr) {
            capture->show();
            capture->raise();
        }
    });
    tabifyDockWidget(timeline, tables);
    tabifyDockWidget(tables, statistics);
    tabifyDockWidget(statistics, peak);
    // go_to_peak shows what it found in the Peak panel.
    connect(controller_, &SimulationController::peak_shown, this, [peak](bool shown) {
        if (shown) {
            peak->show();
            peak->raise();
        }
    });
    timeline->raise();
    resize(1440, 900);
    resizeDocks({events, memory}, {400, 380}, Qt::Horizontal);
    resizeDocks({timeline}, {270}, Qt::Vertical);
}

bool MainWindow::raise_dock(const QString& name) {
    auto* dock = findChild<QDockWidget*>(name + "_dock");
    if (dock == nullptr) {
        return false;
    }
    dock->show();
    dock->raise();
    return true;
}

// --- Wiring ---------------------------------------------------------------------------

void MainWindow::connect_views() {
    new LoadProgress(*controller_, *this, [this] { focus_current_view(); });
    connect_controls();
    connect(controller_, &SimulationController::graph_changed, this, &MainWindow::graph_changed);
    connect_messages();
    connect_playback_controls();
    connect(search_, &QLineEdit::returnPressed, this, &MainWindow::search);
    connect_canvas_views();
    connect(controller_, &SimulationController::selection_changed, this, &MainWindow::update_controls);
}

// The slider, the step label, the actions and the kind menu follow the cursor and the breakpoints.
void MainWindow::connect_controls() {
    connect(controller_, &SimulationController::position_changed, this, &MainWindow::update_controls);
    connect(controller_, &SimulationController::running_changed, this, &MainWindow::update_controls);
    connect(controller_, &SimulationController::breakpoints_changed, this, [this] {
        std::vector<int> ticks;
        for (std::size_t p : controller_->breakpoint_positions()) {
            ticks.push_back(static_cast<int>(p));
        }
        slider_->set_ticks(std::move(ticks));
        for (QAction* action : kind_menu_->actions()) {
            const QSignalBlocker block(action);
            action->setChecked(controller_->has_kind_breakpoint(*parse_kind(action->text().toStdString())));
        }
        update_controls();
    });
}

// Errors go to the status bar and the message sink; a status message carries the note about
// a graph just opened (note_early_reads) with the message that says it is loaded.
void MainWindow::connect_messages() {
    connect(controller_, &SimulationController::error_occurred, this, [this](const QString& title, const QString& message) {
        statusBar()->showMessage(title + ": " + message.section('\n', 0, 0), 10000);
        message_sink_(title, message);
    });
    connect(controller_, &SimulationController::status_message, this, [this](const QString& message) {
        const QString note = std::exchange(pending_note_, QString());
        statusBar()->showMessage(note.isEmpty() ? message : message + " " + note, note.isEmpty() ? 8000 : 30000);
    });
}

// The slider, the speed box and the unlimited box move the controller, and show what it does.
void MainWindow::connect_playback_controls() {
    connect(controller_, &SimulationController::speed_changed, this, [this](int speed, bool unlimited) {
        const QSignalBlocker block_speed(speed_), block_unlimited(unlimited_);
        speed_->setValue(speed);
        unlimited_->setChecked(unlimited);
    });
    connect(slider_, &QSlider::valueChanged, this, [this](int value) {
        controller_->pause();
        controller_->jump(static_cast<std::size_t>(value));
    });
    connect(speed_, qOverload<int>(&QSpinBox::valueChanged), controller_, &SimulationController::set_speed);
    connect(unlimited_, &QCheckBox::toggled, controller_, &SimulationController::set_unlimited);
}

// A click on a tensor in any picture selects it; hovering shows its description. The picture
// clicked or focused last is the one the zoom and export actions act on.
void MainWindow::connect_canvas_views() {
    for (CanvasView* view : std::initializer_list<CanvasView*>{graph_view_, memory_map_, timeline_}) {
        connect(view, &CanvasView::tensor_clicked, this, [this, view](std::size_t tensor) {
            current_view_ = view;
            controller_->select(static_cast<TensorId>(tensor));
        });
        connect(view, &CanvasView::tensor_hovered, this, &MainWindow::show_tensor_tooltip);
    }
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        if (auto* view = qobject_cast<CanvasView*>(now)) {
            current_view_ = view;
        }
    });
}

void MainWindow::graph_changed() {
    // What was looked for in one graph means nothing in another (a re-plan keeps it).
    const QString source = controller_->has_graph() ? controller_->source() : QString();
    if (source != shown_source_) {
        search_->clear();
        shown_source_ = source;
        note_early_reads();
    }
    complete_tensor_names();
    update_title();
    update_controls();
}

// The find box completes the names of the graph shown, anywhere in a name, in any case.
void MainWindow::complete_tensor_names() {
    auto* completer = new QCompleter(search_);
    QStringList names;
    if (controller_->has_graph()) {
        for (const TraceTensor& tensor : controller_->trace().tensors) {
            names << qstr(tensor.name);
        }
    }
    completer->setModel(new QStringListModel(names, completer));
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    delete search_->completer();
    search_->setCompleter(completer);
    connect(completer, qOverload<const QString&>(&QCompleter::activated), this, [this] { search(); });
}

// --- Settings -------------------------------------------------------------------------

void MainWindow::restore_settings(bool layout) {
    QSettings settings;
    if (layout) {
        restoreGeometry(settings.value("window/geometry").toByteArray());
        restoreState(settings.value("window/state").toByteArray());
        controller_->set_speed(settings.value("playback/speed", SimulationController::kDefaultSpeed).toInt());
    }
    rebuild_recent_menu();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("playback/speed", controller_->speed());
    QMainWindow::closeEvent(event);
}

void MainWindow::set_timeline_axis(TimeAxis axis) {
    events_axis_action_->setChecked(axis == TimeAxis::events);
    timeline_->set_axis(axis);
}

void MainWindow::set_offset_scale(OffsetScaleKind kind) {
    const QSignalBlocker block(log_offsets_action_);
    log_offsets_action_->setChecked(kind == OffsetScaleKind::logarithmic);
    timeline_->set_offset_scale(kind);
    memory_map_->set_offset_scale(kind);
}

// --- Tensors, breakpoints, buffer settings ---------------------------------------------

void MainWindow::update_title() {
    setWindowTitle(controller_->has_graph() ? tr("%1 — gallocsim").arg(controller_->graph_name()) : tr("gallocsim"));
}

void MainWindow::show_tensor_tooltip(std::optional<std::size_t> tensor, QPoint global_pos) {
    if (!tensor || !controller_->has_graph()) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(global_pos, controller_->describe_tensor(static_cast<TensorId>(*tensor)));
}

void MainWindow::search() {
    const QString name = search_->text().trimmed();
    if (name.isEmpty()) {
        return;
    }
    if (const auto tensor = controller_->find_tensor(name)) {
        controller_->select(*tensor);
        graph_view_->reveal(*tensor);
        statusBar()->showMessage(tr("Selected %1").arg(name), 4000);
    } else {
        statusBar()->showMessage(tr("No tensor named \"%1\"").arg(name), 6000);
    }
}

void MainWindow::toggle_selected_breakpoint() {
    const auto tensor = controller_->selected();
    if (!tensor) {
        return;
    }
    const bool on = !controller_->has_tensor_breakpoint(*tensor);
    controller_->set_tensor_breakpoint(*tensor, on);
    const QString name = qstr(controller_->trace().tensor(*tensor).name);
    statusBar()->showMessage(on ? tr("Breakpoint: stop at every event about %1").arg(name) : tr("Breakpoint on %1 removed").arg(name),
                             5000);
}

void MainWindow::buffer_settings_dialog() {
    if (!controller_->has_graph()) {
        return;
    }
    BufferSettingsDialog dialog(controller_->file().buffer_types, this);
    const bool accepted = dialog.exec() == QDialog::Accepted;
    focus_current_view();
    if (accepted) {
        controller_->set_buffer_types(dialog.settings());
    }
}

// After a dialog the keys go to the pictures again, not to the find box (where the arrows
// and Space would edit text instead of stepping): the view in front takes the focus.
void MainWindow::focus_current_view() {
    current_view_->setFocus(Qt::OtherFocusReason);
}

// A graph whose nodes read a node run after them (or themselves) is planned as ggml plans it;
// the status bar says so once, with the message that the graph is loaded, in the words the
// command line uses.
void MainWindow::note_early_reads() {
    if (!controller_->has_graph()) {
        return;
    }
    const GraphFile& file = controller_->file();
    const std::vector<EarlyRead> reads = early_reads(file);
    if (reads.empty()) {
        return;
    }
    QString text = qstr(sentence(file, reads.front()));
    if (reads.size() > 1) {
        text = tr("%1 nodes read a node run after them, or themselves; the first: %2").arg(reads.size()).arg(text);
    }
    pending_note_ = tr("Note: %1").arg(text);
}

} // namespace gallocsim::gui
