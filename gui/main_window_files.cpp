// MainWindow's files: opening (dialogs, drops, recent files, examples), saving sessions and
// exporting views. Every dialog hands the keys back to the pictures when it closes.
#include "gui/main_window.hpp"

#include "gui/canvas_view.hpp"
#include "gui/example_dialog.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

namespace gallocsim::gui {

namespace {

constexpr int kRecentFiles = 8;
constexpr auto kRecentKey = "recent_files";

} // namespace

bool MainWindow::open(const QString& path) {
    if (!controller_->open_file(path)) {
        return false;
    }
    remember_recent(path);
    return true;
}

// --- Recent files and examples --------------------------------------------------------

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

// --- Dialogs --------------------------------------------------------------------------

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

// --- Drops ----------------------------------------------------------------------------

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

} // namespace gallocsim::gui
