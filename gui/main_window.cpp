#include "gui/main_window.hpp"
#include "simulator/analysis/graph_order.hpp"

#include "gui/breakpoint_slider.hpp"
#include "gui/buffer_settings_dialog.hpp"
#include "gui/event_log.hpp"
#include "gui/example_dialog.hpp"
#include "gui/graph_view.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/state_tables.hpp"
#include "gui/statistics_panel.hpp"
#include "gui/peak_panel.hpp"
#include "gui/capture_panel.hpp"
#include "gui/text.hpp"
#include "gui/timeline_view.hpp"

#include <QAction>
#include <QProgressDialog>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCompleter>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStringListModel>
#include <QStyle>
#include <QSvgGenerator>
#include <QTableView>
#include <QToolBar>
#include <QToolTip>

#include <utility>

namespace gallocsim::gui {

namespace {

constexpr int kRecentFiles = 8;
constexpr auto kRecentKey = "recent_files";

} // namespace

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

// --- Construction ---------------------------------------------------------------------

void MainWindow::build_docks() {
    auto dock = [this](const QString& title, const QString& name, QWidget* body, Qt::DockWidgetArea area) {
        auto* widget = new QDockWidget(title, this);
        widget->setObjectName(name);  // saveState() needs names
        widget->setWidget(body);
        addDockWidget(area, widget);
        return widget;
    };
    dock(tr("Explanation and events"), "events_dock", event_log_, Qt::LeftDockWidgetArea);
    dock(tr("Memory map"), "memory_dock", memory_map_, Qt::RightDockWidgetArea);
    auto* timeline = dock(tr("Timeline"), "timeline_dock", timeline_, Qt::BottomDockWidgetArea);
    auto* tables = dock(tr("State"), "state_dock", state_tables_, Qt::BottomDockWidgetArea);
    auto* statistics = dock(tr("Statistics"), "statistics_dock", statistics_, Qt::BottomDockWidgetArea);
    auto* peak = dock(tr("Peak"), "peak_dock", peak_panel_, Qt::BottomDockWidgetArea);
    // The calls of an opened capture: shown when a capture is opened, tabbed with the events.
    auto* capture = dock(tr("Capture"), "capture_dock", capture_panel_, Qt::LeftDockWidgetArea);
    tabifyDockWidget(findChild<QDockWidget*>("events_dock"), capture);
    findChild<QDockWidget*>("events_dock")->raise();
    connect(controller_, &SimulationController::capture_changed, this, [this, capture] {
        if (controller_->capture() != nullptr) {
            capture->show();
            capture->raise();
        }
    });
    tabifyDockWidget(timeline, tables);
    tabifyDockWidget(tables, statistics);
    tabifyDockWidget(statistics, peak);
    connect(controller_, &SimulationController::peak_shown, this, [peak](bool shown) {
        if (shown) {
            peak->show();
            peak->raise();
        }
    });
    timeline->raise();
    resize(1440, 900);
    resizeDocks({findChild<QDockWidget*>("events_dock"), findChild<QDockWidget*>("memory_dock")}, {400, 380},
                Qt::Horizontal);
    resizeDocks({timeline}, {270}, Qt::Vertical);
}

void MainWindow::build_actions() {
    auto make = [this](const QString& text, const QKeySequence& key, auto slot, QStyle::StandardPixmap icon = QStyle::SP_CustomBase) {
        auto* action = new QAction(text, this);
        action->setShortcut(key);
        if (icon != QStyle::SP_CustomBase) {
            action->setIcon(style()->standardIcon(icon));
        }
        action->setToolTip(QStringLiteral("%1 (%2)").arg(text.section('\t', 0, 0).remove('&'), key.toString(QKeySequence::NativeText)));
        connect(action, &QAction::triggered, this, slot);
        addAction(action);  // shortcuts work wherever the focus is in the window
        return action;
    };
    open_action_ = make(tr("&Open…"), QKeySequence::Open, [this] { open_dialog(); }, QStyle::SP_DialogOpenButton);
    open_capture_action_ = make(tr("Open &capture…"), QKeySequence(tr("Ctrl+Shift+O")), [this] { open_capture_dialog(); },
                                QStyle::SP_DirOpenIcon);
    save_session_action_ = make(tr("&Save session…"), QKeySequence::Save, [this] { save_session_dialog(); },
                                QStyle::SP_DialogSaveButton);
    export_png_action_ = make(tr("Export view as &PNG…"), QKeySequence(tr("Ctrl+E")), [this] { export_dialog("png"); });
    export_svg_action_ = make(tr("Export view as S&VG…"), QKeySequence(tr("Ctrl+Shift+E")), [this] { export_dialog("svg"); });
    quit_action_ = make(tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    first_action_ = make(tr("&First event"), QKeySequence(Qt::Key_Home), [this] { controller_->to_first(); },
                         QStyle::SP_MediaSkipBackward);
    back_action_ = make(tr("Step &back"), QKeySequence(Qt::Key_Left), [this] { controller_->step_back(); },
                        QStyle::SP_MediaSeekBackward);
    forward_action_ = make(tr("Step &forward"), QKeySequence(Qt::Key_Right), [this] { controller_->step_forward(); },
                           QStyle::SP_MediaSeekForward);
    last_action_ = make(tr("&Last event"), QKeySequence(Qt::Key_End), [this] { controller_->to_last(); },
                        QStyle::SP_MediaSkipForward);
    run_action_ = make(tr("&Run / pause"), QKeySequence(Qt::Key_Space), [this] { controller_->toggle_run(); },
                       QStyle::SP_MediaPlay);
    faster_action_ = make(tr("Run f&aster"), QKeySequence(Qt::Key_BracketRight),
                          [this] { controller_->set_speed(controller_->speed() * 2); });
    slower_action_ = make(tr("Run s&lower"), QKeySequence(Qt::Key_BracketLeft),
                          [this] { controller_->set_speed(std::max(1, controller_->speed() / 2)); });
    unlimited_action_ = make(tr("&Unlimited speed"), QKeySequence(tr("Ctrl+U")),
                             [this] { controller_->set_unlimited(!controller_->is_unlimited()); });
    breakpoint_action_ = make(tr("Toggle &breakpoint on the selected tensor"), QKeySequence(Qt::Key_F9),
                              [this] { toggle_selected_breakpoint(); });
    clear_breakpoints_action_ = make(tr("&Clear all breakpoints"), QKeySequence(tr("Ctrl+Shift+F9")),
                                     [this] { controller_->clear_breakpoints(); });
    settings_action_ = make(tr("Buffer &types and plan again…"), QKeySequence(tr("Ctrl+B")), [this] { buffer_settings_dialog(); });
    fit_action_ = make(tr("&Fit to window"), QKeySequence(tr("Ctrl+0")), [this] { current_view_->fit_to_window(); });
    zoom_in_action_ = make(tr("Zoom &in"), QKeySequence::ZoomIn, [this] { current_view_->zoom_in(); });
    zoom_out_action_ = make(tr("Zoom &out"), QKeySequence::ZoomOut, [this] { current_view_->zoom_out(); });
    // Offsets only: the view in front if it has an offset axis, else the timeline.
    const auto offset_view = [this]() -> CanvasView& { return current_view_->has_offset_axis() ? *current_view_ : *timeline_; };
    zoom_offsets_in_action_ = make(tr("Zoom in on o&ffsets"), QKeySequence(tr("Ctrl+Shift+Up")), [this, offset_view] {
        CanvasView& view = offset_view();
        view.zoom_offsets_by(1.25, view.rect().center());
    });
    zoom_offsets_out_action_ = make(tr("Zoom out of offs&ets"), QKeySequence(tr("Ctrl+Shift+Down")), [this, offset_view] {
        CanvasView& view = offset_view();
        view.zoom_offsets_by(0.8, view.rect().center());
    });
    zoom_offsets_in_action_->setStatusTip(tr("Zoom the timeline's offsets (or the memory map's) without its time axis; "
                                             "Shift with the wheel does the same"));
    legend_action_ = make(tr("&Legend"), QKeySequence(tr("Ctrl+L")),
                          [this](bool on) { graph_view_->set_legend_visible(on); });
    legend_action_->setCheckable(true);
    legend_action_->setChecked(true);
    events_axis_action_ = make(tr("Timeline in &events"), QKeySequence(tr("Ctrl+T")), [this](bool on) {
        timeline_->set_axis(on ? TimeAxis::events : TimeAxis::node_steps);
    });
    events_axis_action_->setCheckable(true);
    events_axis_action_->setStatusTip(tr("The timeline's x axis: one column per event instead of one per node step"));
    log_offsets_action_ = make(tr("&Logarithmic offsets"), QKeySequence(tr("Ctrl+Shift+L")), [this](bool on) {
        set_offset_scale(on ? OffsetScaleKind::logarithmic : OffsetScaleKind::linear);
    });
    log_offsets_action_->setCheckable(true);
    log_offsets_action_->setStatusTip(tr("Offsets in the timeline and the memory map on a logarithmic scale: small tensors "
                                         "stay visible beside a huge one"));
    peak_action_ = make(tr("Go to the &peak"), QKeySequence(tr("Ctrl+P")), [this] { controller_->go_to_peak(); });
    policy_action_ = make(tr("Plan by a p&olicy file…"), QKeySequence(tr("Ctrl+Shift+P")), [this] { open_policy_dialog(); });
    peak_action_->setStatusTip(tr("Jump to where the largest buffer's size was set: what was live, and the holes"));
    find_action_ = make(tr("&Find tensor…"), QKeySequence::Find, [this] {
        search_->setFocus();
        search_->selectAll();
    });
}

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(open_action_);
    file->addAction(open_capture_action_);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    examples_menu_ = file->addMenu(tr("&Examples"));
    rebuild_examples_menu();
    file->addSeparator();
    file->addAction(save_session_action_);
    file->addAction(export_png_action_);
    file->addAction(export_svg_action_);
    file->addSeparator();
    file->addAction(quit_action_);

    QMenu* simulation = menuBar()->addMenu(tr("&Simulation"));
    for (QAction* action : {first_action_, back_action_, forward_action_, last_action_, run_action_}) {
        simulation->addAction(action);
    }
    simulation->addSeparator();
    for (QAction* action : {faster_action_, slower_action_, unlimited_action_}) {
        simulation->addAction(action);
    }
    simulation->addAction(peak_action_);
    simulation->addSeparator();
    simulation->addAction(settings_action_);
    simulation->addAction(policy_action_);

    QMenu* breakpoints = menuBar()->addMenu(tr("&Breakpoints"));
    breakpoints->addAction(breakpoint_action_);
    kind_menu_ = breakpoints->addMenu(tr("Stop at every event of &kind"));
    for (std::size_t k = 0; k < kEventKindCount; ++k) {
        const auto kind = static_cast<EventKind>(k);
        QAction* action = kind_menu_->addAction(qstr(kind_name(kind)));
        action->setCheckable(true);
        connect(action, &QAction::toggled, this, [this, kind](bool on) { controller_->set_kind_breakpoint(kind, on); });
    }
    breakpoints->addAction(clear_breakpoints_action_);

    view_menu_ = menuBar()->addMenu(tr("&View"));
    view_menu_->addAction(find_action_);
    view_menu_->addAction(fit_action_);
    view_menu_->addAction(zoom_in_action_);
    view_menu_->addAction(zoom_out_action_);
    view_menu_->addAction(zoom_offsets_in_action_);
    view_menu_->addAction(zoom_offsets_out_action_);
    view_menu_->addAction(legend_action_);
    view_menu_->addAction(events_axis_action_);
    view_menu_->addAction(log_offsets_action_);
    view_menu_->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        view_menu_->addAction(dock->toggleViewAction());
    }
}

void MainWindow::build_toolbars() {
    QToolBar* playback = addToolBar(tr("Playback"));
    playback->setObjectName("playback_toolbar");
    playback->addAction(open_action_);
    playback->addSeparator();
    for (QAction* action : {first_action_, back_action_, run_action_, forward_action_, last_action_}) {
        playback->addAction(action);
    }
    step_label_ = new QLabel;
    step_label_->setMinimumWidth(170);
    step_label_->setAlignment(Qt::AlignCenter);
    playback->addWidget(step_label_);
    slider_ = new BreakpointSlider;
    slider_->setMinimumWidth(260);
    slider_->setToolTip(tr("All events; red ticks are breakpoints"));
    playback->addWidget(slider_);
    playback->addSeparator();
    playback->addWidget(new QLabel(tr(" speed ")));
    speed_ = new QSpinBox;
    speed_->setRange(1, 10000);
    speed_->setSuffix(tr(" events/s"));
    speed_->setValue(controller_->speed());
    speed_->setToolTip(tr("Events per second while running (drawn at most 25 times a second)"));
    playback->addWidget(speed_);
    unlimited_ = new QCheckBox(tr("unlimited"));
    unlimited_->setToolTip(tr("Run straight to the next breakpoint or the end, drawing only there"));
    playback->addWidget(unlimited_);

    addToolBarBreak();
    QToolBar* view = addToolBar(tr("View"));
    view->setObjectName("view_toolbar");
    search_ = new QLineEdit;
    search_->setPlaceholderText(tr("Find tensor by name (Ctrl+F)"));
    search_->setClearButtonEnabled(true);
    search_->setMaximumWidth(320);
    view->addWidget(search_);
    view->addAction(fit_action_);
    view->addAction(zoom_in_action_);
    view->addAction(zoom_out_action_);
    view->addSeparator();
    view->addAction(breakpoint_action_);
    view->addAction(settings_action_);
    breakpoint_action_->setIconText(tr("Breakpoint"));
    settings_action_->setIconText(tr("Buffer types…"));
    view->addSeparator();
    view->addWidget(new QLabel(tr(" ggml version ")));
    ggml_version_ = new QComboBox;
    ggml_version_->setObjectName("ggml_version");
    for (const AllocatorProfile& profile : allocator_profiles()) {
        ggml_version_->addItem(qstr(profile.name));
        ggml_version_->setItemData(ggml_version_->count() - 1, qstr(std::string(profile.upstream) + ", " + std::string(profile.date)), Qt::ToolTipRole);
    }
    ggml_version_->setToolTip(tr("Plan by the rules of this ggml version's allocator (docs/versions.md), or of a "
                                 "policy file read with Simulation > Plan by a policy file (docs/policies.md); "
                                 "changing it plans the graph again"));
    view->addWidget(ggml_version_);
    fit_action_->setIconText(tr("Fit"));
}

void MainWindow::connect_views() {
    SimulationController& c = *controller_;
    // Loading runs on a worker: a dialog says what it does and can cancel it, shown only
    // when it takes long enough to notice. It is window-modal, so nothing else starts meanwhile.
    connect(&c, &SimulationController::busy_changed, this, [this](bool busy, const QString& what) {
        delete progress_;
        progress_ = nullptr;
        if (!busy) {
            focus_current_view();
        }
        if (busy) {
            progress_ = new QProgressDialog(what + tr("…"), tr("Cancel"), 0, 0, this);
            progress_->setWindowTitle(tr("gallocsim"));
            progress_->setWindowModality(Qt::WindowModal);
            progress_->setMinimumDuration(300);
            connect(progress_, &QProgressDialog::canceled, controller_, &SimulationController::cancel_loading);
        }
    });
    connect(&c, &SimulationController::position_changed, this, &MainWindow::update_controls);
    connect(&c, &SimulationController::running_changed, this, &MainWindow::update_controls);
    connect(&c, &SimulationController::breakpoints_changed, this, [this] {
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
    connect(&c, &SimulationController::graph_changed, this, [this] {
        // What was looked for in one graph means nothing in another (a re-plan keeps it).
        const QString source = controller_->has_graph() ? controller_->source() : QString();
        if (source != shown_source_) {
            search_->clear();
            shown_source_ = source;
            note_early_reads();
        }
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
        update_title();
        update_controls();
    });
    connect(&c, &SimulationController::error_occurred, this, [this](const QString& title, const QString& message) {
        statusBar()->showMessage(title + ": " + message.section('\n', 0, 0), 10000);
        message_sink_(title, message);
    });
    connect(&c, &SimulationController::status_message, this, [this](const QString& message) {
        // The note about a graph just opened goes with the message that says it is loaded.
        const QString note = std::exchange(pending_note_, QString());
        statusBar()->showMessage(note.isEmpty() ? message : message + " " + note, note.isEmpty() ? 8000 : 30000);
    });
    connect(&c, &SimulationController::speed_changed, this, [this](int speed, bool unlimited) {
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
    connect(ggml_version_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        const AllocatorProfile* profile = controller_->profile_named(name);
        if (profile != nullptr && !controller_->set_profile(*profile)) {
            const QSignalBlocker block(ggml_version_);  // refused: show the version still planning
            ggml_version_->setCurrentText(qstr(controller_->profile().name));
        }
    });
    connect(controller_, &SimulationController::policies_changed, this, [this] {
        // Each policy read joins the selector once, after the states, its file and rules as the tooltip.
        const Policy& policy = *controller_->policies().back();
        const QSignalBlocker block(ggml_version_);
        const QString name = qstr(policy.name());
        if (ggml_version_->findText(name) < 0) {
            ggml_version_->addItem(name);
        }
        ggml_version_->setItemData(ggml_version_->findText(name),
                                   qstr(policy.file() + ": " + rule_differences_text(policy.base(), policy.profile())),
                                   Qt::ToolTipRole);
    });
    connect(controller_, &SimulationController::profile_changed, this, [this] {
        const QSignalBlocker block(ggml_version_);
        ggml_version_->setCurrentText(qstr(controller_->profile().name));
    });
    connect(search_, &QLineEdit::returnPressed, this, &MainWindow::search);

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
    connect(&c, &SimulationController::selection_changed, this, &MainWindow::update_controls);
}

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

bool MainWindow::raise_dock(const QString& name) {
    auto* dock = findChild<QDockWidget*>(name + "_dock");
    if (dock == nullptr) {
        return false;
    }
    dock->show();
    dock->raise();
    return true;
}

// --- Files ----------------------------------------------------------------------------

bool MainWindow::open(const QString& path) {
    if (!controller_->open_file(path)) {
        return false;
    }
    remember_recent(path);
    return true;
}

void MainWindow::remember_recent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kRecentFiles) {
        recent.removeLast();
    }
    settings.setValue(kRecentKey, recent);
    rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
    recent_menu_->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent) {
        recent_menu_->addAction(QFileInfo(path).fileName() + "\t" + QFileInfo(path).path(), this, [this, path] { open(path); });
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::rebuild_examples_menu() {
    examples_menu_->clear();
    for (const ExampleInfo& example : list_examples()) {
        const QString name = qstr(example.name);
        // Examples with parameters ask for them first (the "…" says so).
        QAction* action = examples_menu_->addAction(example.options.empty() ? name : name + "…", this,
                                                    [this, example] { example_dialog(example); });
        action->setToolTip(qstr(example.description));
        action->setStatusTip(qstr(example.description));
    }
}

void MainWindow::example_dialog(const ExampleInfo& example) {
    const QString name = qstr(example.name);
    if (example.options.empty()) {
        controller_->load_example(name);
        return;
    }
    ExampleDialog dialog(example, this);
    const bool accepted = dialog.exec() == QDialog::Accepted;
    focus_current_view();
    if (accepted) {
        controller_->load_example(name, dialog.options());
    }
}

void MainWindow::open_dialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a graph file or a session"), QString(),
                                                      tr("Graph files and sessions (*.json);;All files (*)"));
    focus_current_view();
    if (!path.isEmpty()) {
        open(path);
    }
}

void MainWindow::open_capture_dialog() {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a capture (a folder with session-*.jsonl)"));
    focus_current_view();
    if (!folder.isEmpty()) {
        open(folder);
    }
}

void MainWindow::open_policy_dialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Plan by a policy file (docs/policies.md)"), QString(),
                                                      tr("Policy files (*.json)"));
    focus_current_view();
    if (!path.isEmpty()) {
        controller_->load_policy(path);
    }
}

void MainWindow::save_session_dialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save session"), controller_->graph_name() + ".session.json",
                                                tr("Sessions (*.json)"));
    focus_current_view();
    if (!path.isEmpty() && controller_->save_session(path)) {
        remember_recent(path);
        statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            open(url.toLocalFile());
            event->acceptProposedAction();
            return;
        }
    }
}

// --- Export ---------------------------------------------------------------------------

bool MainWindow::export_view(CanvasView& view, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool ok = suffix == "svg" ? view.export_svg(path) : view.export_png(path);
    if (!ok) {
        message_sink_(tr("Cannot export the view"), tr("%1: could not write the file").arg(path));
    }
    return ok;
}

void MainWindow::export_dialog(const QString& format) {
    const QString name = controller_->graph_name() + "-" + current_view_->windowTitle().toLower().replace(' ', '-') + "." + format;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(current_view_->windowTitle()), name,
                                                      format == "svg" ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"));
    focus_current_view();
    if (!path.isEmpty() && export_view(*current_view_, path)) {
        statusBar()->showMessage(tr("Exported to %1").arg(path), 5000);
    }
}

// --- Controls -------------------------------------------------------------------------

void MainWindow::update_controls() {
    const bool loaded = controller_->has_graph();
    const std::size_t position = controller_->position();
    const std::size_t total = controller_->event_count();
    {
        const QSignalBlocker block(slider_);
        slider_->setRange(0, static_cast<int>(total));
        slider_->setValue(static_cast<int>(position));
    }
    step_label_->setText(!loaded ? QString() : position == 0 ? tr("Start · %1 events").arg(total)
                                                             : tr("Event %1 of %2").arg(position).arg(total));
    first_action_->setEnabled(loaded && position > 0);
    back_action_->setEnabled(loaded && position > 0);
    forward_action_->setEnabled(loaded && position < total);
    last_action_->setEnabled(loaded && position < total);
    run_action_->setEnabled(loaded);
    const bool running = controller_->is_running();
    run_action_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    run_action_->setText(running ? tr("Pause") : tr("Run"));
    breakpoint_action_->setEnabled(loaded && controller_->selected().has_value());
    // Without a graph (at start, or after a first open failed) everything that acts on one
    // is off, so the window shows one consistent empty state.
    for (QAction* action : {save_session_action_, settings_action_, peak_action_, export_png_action_, export_svg_action_,
                            faster_action_, slower_action_, unlimited_action_, clear_breakpoints_action_, fit_action_,
                            zoom_in_action_, zoom_out_action_, zoom_offsets_in_action_, zoom_offsets_out_action_,
                            find_action_, events_axis_action_, log_offsets_action_}) {
        action->setEnabled(loaded);
    }
    for (QWidget* control : std::initializer_list<QWidget*>{slider_, search_, speed_, unlimited_}) {
        control->setEnabled(loaded);
    }
}

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
    statusBar()->showMessage(on ? tr("Breakpoint: stop at every event about %1").arg(qstr(controller_->trace().tensor(*tensor).name))
                                : tr("Breakpoint on %1 removed").arg(qstr(controller_->trace().tensor(*tensor).name)),
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
