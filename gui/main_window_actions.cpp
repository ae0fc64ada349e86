// MainWindow's actions, menus and toolbars, and keeping them enabled only where they can act.
// Every action is made by make_action: one shortcut, an icon where the toolbar shows it, and a
// tooltip naming the shortcut; added to the window, so shortcuts work wherever the focus is.
#include "gui/main_window.hpp"

#include "gui/breakpoint_slider.hpp"
#include "gui/canvas_view.hpp"
#include "gui/graph_view.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"
#include "gui/timeline_view.hpp"
#include "gui/version_selector.hpp"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QSpinBox>
#include <QStyle>
#include <QToolBar>

#include <algorithm>

namespace gallocsim::gui {

namespace {

template <typename Slot>
QAction* make_action(MainWindow& window, const QString& text, const QKeySequence& key, Slot slot,
                     QStyle::StandardPixmap icon = QStyle::SP_CustomBase) {
    auto* action = new QAction(text, &window);
    action->setShortcut(key);
    if (icon != QStyle::SP_CustomBase) {
        action->setIcon(window.style()->standardIcon(icon));
    }
    action->setToolTip(QStringLiteral("%1 (%2)").arg(text.section('\t', 0, 0).remove('&'), key.toString(QKeySequence::NativeText)));
    QObject::connect(action, &QAction::triggered, &window, slot);
    window.addAction(action);  // shortcuts work wherever the focus is in the window
    return action;
}

} // namespace

void MainWindow::build_actions() {
    build_file_actions();
    build_playback_actions();
    build_zoom_actions();
    build_view_actions();
    build_simulation_actions();
    build_live_actions();
}

void MainWindow::build_file_actions() {
    open_action_ = make_action(*this, tr("&Open…"), QKeySequence::Open, [this] { open_dialog(); }, QStyle::SP_DialogOpenButton);
    open_capture_action_ = make_action(*this, tr("Open &capture…"), QKeySequence(tr("Ctrl+Shift+O")),
                                       [this] { open_capture_dialog(); }, QStyle::SP_DirOpenIcon);
    save_session_action_ = make_action(*this, tr("&Save session…"), QKeySequence::Save, [this] { save_session_dialog(); },
                                       QStyle::SP_DialogSaveButton);
    export_png_action_ = make_action(*this, tr("Export view as &PNG…"), QKeySequence(tr("Ctrl+E")), [this] { export_dialog("png"); });
    export_svg_action_ = make_action(*this, tr("Export view as S&VG…"), QKeySequence(tr("Ctrl+Shift+E")),
                                     [this] { export_dialog("svg"); });
    quit_action_ = make_action(*this, tr("&Quit"), QKeySequence::Quit, [this] { close(); });
}

void MainWindow::build_playback_actions() {
    first_action_ = make_action(*this, tr("&First event"), QKeySequence(Qt::Key_Home), [this] { controller_->to_first(); },
                                QStyle::SP_MediaSkipBackward);
    back_action_ = make_action(*this, tr("Step &back"), QKeySequence(Qt::Key_Left), [this] { controller_->step_back(); },
                               QStyle::SP_MediaSeekBackward);
    forward_action_ = make_action(*this, tr("Step &forward"), QKeySequence(Qt::Key_Right), [this] { controller_->step_forward(); },
                                  QStyle::SP_MediaSeekForward);
    last_action_ = make_action(*this, tr("&Last event"), QKeySequence(Qt::Key_End), [this] { controller_->to_last(); },
                               QStyle::SP_MediaSkipForward);
    run_action_ = make_action(*this, tr("&Run / pause"), QKeySequence(Qt::Key_Space), [this] { controller_->toggle_run(); },
                              QStyle::SP_MediaPlay);
    faster_action_ = make_action(*this, tr("Run f&aster"), QKeySequence(Qt::Key_BracketRight),
                                 [this] { controller_->set_speed(controller_->speed() * 2); });
    slower_action_ = make_action(*this, tr("Run s&lower"), QKeySequence(Qt::Key_BracketLeft),
                                 [this] { controller_->set_speed(std::max(1, controller_->speed() / 2)); });
    unlimited_action_ = make_action(*this, tr("&Unlimited speed"), QKeySequence(tr("Ctrl+U")),
                                    [this] { controller_->set_unlimited(!controller_->is_unlimited()); });
    breakpoint_action_ = make_action(*this, tr("Toggle &breakpoint on the selected tensor"), QKeySequence(Qt::Key_F9),
                                     [this] { toggle_selected_breakpoint(); });
    clear_breakpoints_action_ = make_action(*this, tr("&Clear all breakpoints"), QKeySequence(tr("Ctrl+Shift+F9")),
                                            [this] { controller_->clear_breakpoints(); });
}

void MainWindow::build_zoom_actions() {
    fit_action_ = make_action(*this, tr("&Fit to window"), QKeySequence(tr("Ctrl+0")), [this] { current_view_->fit_to_window(); });
    zoom_in_action_ = make_action(*this, tr("Zoom &in"), QKeySequence::ZoomIn, [this] { current_view_->zoom_in(); });
    zoom_out_action_ = make_action(*this, tr("Zoom &out"), QKeySequence::ZoomOut, [this] { current_view_->zoom_out(); });
    // Offsets only: the view in front if it has an offset axis, else the timeline.
    const auto offset_view = [this]() -> CanvasView& { return current_view_->has_offset_axis() ? *current_view_ : *timeline_; };
    zoom_offsets_in_action_ = make_action(*this, tr("Zoom in on o&ffsets"), QKeySequence(tr("Ctrl+Shift+Up")), [offset_view] {
        CanvasView& view = offset_view();
        view.zoom_offsets_by(1.25, view.rect().center());
    });
    zoom_offsets_out_action_ = make_action(*this, tr("Zoom out of offs&ets"), QKeySequence(tr("Ctrl+Shift+Down")), [offset_view] {
        CanvasView& view = offset_view();
        view.zoom_offsets_by(0.8, view.rect().center());
    });
    zoom_offsets_in_action_->setStatusTip(tr("Zoom the timeline's offsets (or the memory map's) without its time axis; "
                                             "Shift with the wheel does the same"));
}

void MainWindow::build_view_actions() {
    legend_action_ = make_action(*this, tr("&Legend"), QKeySequence(tr("Ctrl+L")),
                                 [this](bool on) { graph_view_->set_legend_visible(on); });
    legend_action_->setCheckable(true);
    legend_action_->setChecked(true);
    events_axis_action_ = make_action(*this, tr("Timeline in &events"), QKeySequence(tr("Ctrl+T")), [this](bool on) {
        timeline_->set_axis(on ? TimeAxis::events : TimeAxis::node_steps);
    });
    events_axis_action_->setCheckable(true);
    events_axis_action_->setStatusTip(tr("The timeline's x axis: one column per event instead of one per node step"));
    log_offsets_action_ = make_action(*this, tr("&Logarithmic offsets"), QKeySequence(tr("Ctrl+Shift+L")), [this](bool on) {
        set_offset_scale(on ? OffsetScaleKind::logarithmic : OffsetScaleKind::linear);
    });
    log_offsets_action_->setCheckable(true);
    log_offsets_action_->setStatusTip(tr("Offsets in the timeline and the memory map on a logarithmic scale: small tensors "
                                         "stay visible beside a huge one"));
    find_action_ = make_action(*this, tr("&Find tensor…"), QKeySequence::Find, [this] {
        search_->setFocus();
        search_->selectAll();
    });
}

void MainWindow::build_simulation_actions() {
    settings_action_ = make_action(*this, tr("Buffer &types and plan again…"), QKeySequence(tr("Ctrl+B")),
                                   [this] { buffer_settings_dialog(); });
    peak_action_ = make_action(*this, tr("Go to the &peak"), QKeySequence(tr("Ctrl+P")), [this] { controller_->go_to_peak(); });
    policy_action_ = make_action(*this, tr("Plan by a p&olicy file…"), QKeySequence(tr("Ctrl+Shift+P")),
                                 [this] { open_policy_dialog(); });
    peak_action_->setStatusTip(tr("Jump to where the largest buffer's size was set: what was live, and the holes"));
}

// --- Menus ----------------------------------------------------------------------------

void MainWindow::build_menus() {
    build_file_menu();
    build_simulation_menu();
    build_breakpoints_menu();
    build_view_menu();
    build_live_menu();
}

void MainWindow::build_file_menu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(open_action_);
    file->addAction(open_capture_action_);
    file->addAction(run_program_action_);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    examples_menu_ = file->addMenu(tr("&Examples"));
    rebuild_examples_menu();
    file->addSeparator();
    file->addAction(save_session_action_);
    file->addAction(export_png_action_);
    file->addAction(export_svg_action_);
    file->addSeparator();
    file->addAction(quit_action_);
}

void MainWindow::build_simulation_menu() {
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
}

void MainWindow::build_breakpoints_menu() {
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
}

void MainWindow::build_view_menu() {
    view_menu_ = menuBar()->addMenu(tr("&View"));
    for (QAction* action : {find_action_, fit_action_, zoom_in_action_, zoom_out_action_, zoom_offsets_in_action_,
                            zoom_offsets_out_action_, legend_action_, events_axis_action_, log_offsets_action_}) {
        view_menu_->addAction(action);
    }
    view_menu_->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        view_menu_->addAction(dock->toggleViewAction());
    }
}

// --- Toolbars -------------------------------------------------------------------------

void MainWindow::build_toolbars() {
    build_playback_toolbar();
    addToolBarBreak();
    build_view_toolbar();
    build_live_toolbar();
}

void MainWindow::build_playback_toolbar() {
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
}

void MainWindow::build_view_toolbar() {
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
    view->addWidget(new VersionSelector(*controller_));
    fit_action_->setIconText(tr("Fit"));
}

// --- Enabled where they can act -------------------------------------------------------

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
    update_playback_actions();
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

// Stepping only where there is a step to take; Run shows Pause while running.
void MainWindow::update_playback_actions() {
    const bool loaded = controller_->has_graph();
    const std::size_t position = controller_->position();
    const std::size_t total = controller_->event_count();
    first_action_->setEnabled(loaded && position > 0);
    back_action_->setEnabled(loaded && position > 0);
    forward_action_->setEnabled(loaded && position < total);
    last_action_->setEnabled(loaded && position < total);
    run_action_->setEnabled(loaded);
    const bool running = controller_->is_running();
    run_action_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    run_action_->setText(running ? tr("Pause") : tr("Run"));
}

} // namespace gallocsim::gui
