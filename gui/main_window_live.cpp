// MainWindow's live run: File ▸ Run a program…, the Live menu (where the program stops, and
// Continue) and the Live toolbar (the switch that stops before each call, and Continue).
#include "gui/main_window.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"
#include "simulator/model/amount_text.hpp"

#include <QAction>
#include <QDir>
#include <QInputDialog>
#include <QMenuBar>
#include <QProcess>
#include <QStyle>
#include <QTemporaryDir>
#include <QToolBar>

namespace gallocsim::gui {

namespace {

QAction* make_toggle(MainWindow& window, const QString& text, const QString& tip) {
    auto* action = new QAction(text, &window);
    action->setCheckable(true);
    action->setToolTip(tip);
    window.addAction(action);
    return action;
}

// A new folder for the capture, kept after the window closes (so conform, why and the GUI
// can open it again): gallocsim-run-XXXXXX in the temporary folder.
QString new_capture_folder() {
    QTemporaryDir folder(QDir::temp().filePath("gallocsim-run-XXXXXX"));
    folder.setAutoRemove(false);
    return folder.isValid() ? folder.path() : QString();
}

} // namespace

void MainWindow::build_live_actions() {
    run_program_action_ = new QAction(tr("&Run a program…"), this);
    run_program_action_->setToolTip(tr("Run a ggml program under the capture and watch its allocator plan, call by call"));
    connect(run_program_action_, &QAction::triggered, this, [this] { run_program_dialog(); });
    continue_action_ = new QAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("&Continue the program"), this);
    continue_action_->setShortcut(QKeySequence(Qt::Key_F8));
    continue_action_->setToolTip(tr("Let the waiting program go on: ggml plans the call, and the dock says whether gallocsim "
                                    "predicted it (F8)"));
    connect(continue_action_, &QAction::triggered, this, [this] { controller_->continue_live(); });
    addAction(continue_action_);
    stop_each_call_action_ = make_toggle(*this, tr("Stop before each &call"),
                                         tr("The program waits before ggml plans each call; the views show gallocsim's plan of it"));
    connect(stop_each_call_action_, &QAction::toggled, this, [this](bool on) {
        LiveStops stops = live_stops_;
        stops.each_call = on;
        change_stops(stops);
    });
    stop_tensor_action_ = make_toggle(*this, tr("Stop where a &tensor is planned…"),
                                      tr("The program waits before the call whose graph has a tensor of this name"));
    connect(stop_tensor_action_, &QAction::triggered, this, [this] { ask_tensor_stop(); });
    stop_size_action_ = make_toggle(*this, tr("Stop where a buffer would grow &past…"),
                                    tr("The program waits before a call gallocsim predicts grows a buffer past this size"));
    connect(stop_size_action_, &QAction::triggered, this, [this] { ask_size_stop(); });
    stop_failure_action_ = make_toggle(*this, tr("Stop when a call &fails"),
                                       tr("The program waits after a call that failed (an out-of-memory), its graph shown"));
    connect(stop_failure_action_, &QAction::toggled, this, [this](bool on) {
        LiveStops stops = live_stops_;
        stops.at_failure = on;
        change_stops(stops);
    });
    connect(controller_, &SimulationController::live_changed, this, &MainWindow::update_live_actions);
}

void MainWindow::build_live_menu() {
    QMenu* live = menuBar()->addMenu(tr("&Live"));
    live->addAction(run_program_action_);
    live->addAction(continue_action_);
    live->addSeparator();
    for (QAction* action : {stop_each_call_action_, stop_tensor_action_, stop_size_action_, stop_failure_action_}) {
        live->addAction(action);
    }
}

void MainWindow::build_live_toolbar() {
    QToolBar* live = addToolBar(tr("Live"));
    live->setObjectName("live_toolbar");
    live->addAction(stop_each_call_action_);
    live->addAction(continue_action_);
    stop_each_call_action_->setIconText(tr("Stop at each call"));
    continue_action_->setIconText(tr("Continue"));
    update_live_actions();
}

bool MainWindow::run_program(const QStringList& command, const QString& folder, const LiveStops& stops) {
    live_stops_ = stops;
    update_live_actions();
    return controller_->start_live(command, folder.isEmpty() ? new_capture_folder() : folder, stops);
}

void MainWindow::run_program_dialog() {
    bool ok = false;
    const QString line = QInputDialog::getText(this, tr("Run a program"),
                                               tr("The program and its arguments (it runs under the capture; its calls "
                                                  "appear in the Capture dock as it makes them):"),
                                               QLineEdit::Normal, QString(), &ok);
    const QStringList command = QProcess::splitCommand(line);
    if (ok && !command.isEmpty()) {
        run_program(command, QString(), live_stops_);
    }
}

void MainWindow::ask_tensor_stop() {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Stop where a tensor is planned"),
                                               tr("Tensor name (empty: no such stop):"), QLineEdit::Normal,
                                               live_stops_.tensor, &ok);
    LiveStops stops = live_stops_;
    if (ok) {
        stops.tensor = name.trimmed();
    }
    change_stops(stops);
}

void MainWindow::ask_size_stop() {
    bool ok = false;
    const double mib = QInputDialog::getDouble(this, tr("Stop where a buffer would grow past"),
                                               tr("Size in MiB (0: no such stop):"),
                                               live_stops_.past ? static_cast<double>(*live_stops_.past) / (1 << 20) : 0.0, 0.0,
                                               1e9, 2, &ok);
    LiveStops stops = live_stops_;
    if (ok) {
        stops.past = mib > 0 ? std::optional(static_cast<std::size_t>(mib * (1 << 20))) : std::nullopt;
    }
    change_stops(stops);
}

void MainWindow::change_stops(const LiveStops& stops) {
    live_stops_ = stops;
    controller_->set_live_stops(stops);
    update_live_actions();
}

void MainWindow::update_live_actions() {
    const LiveRun* live = controller_->live();
    const bool running = live != nullptr && !live->end();
    continue_action_->setEnabled(live != nullptr && live->waiting() != nullptr);
    run_program_action_->setEnabled(!running);
    const QSignalBlocker each(stop_each_call_action_), failure(stop_failure_action_);
    stop_each_call_action_->setChecked(live_stops_.each_call);
    stop_failure_action_->setChecked(live_stops_.at_failure);
    stop_tensor_action_->setChecked(!live_stops_.tensor.isEmpty());
    stop_tensor_action_->setText(live_stops_.tensor.isEmpty() ? tr("Stop where a &tensor is planned…")
                                                               : tr("Stop where a &tensor is planned: %1…").arg(live_stops_.tensor));
    stop_size_action_->setChecked(live_stops_.past.has_value());
    stop_size_action_->setText(live_stops_.past ? tr("Stop where a buffer would grow &past %1…").arg(qstr(binary_size(*live_stops_.past)))
                                                : tr("Stop where a buffer would grow &past…"));
}

} // namespace gallocsim::gui
