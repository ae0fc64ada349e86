#include "gui/load_progress.hpp"

#include "gui/simulation_controller.hpp"

namespace gallocsim::gui {

LoadProgress::LoadProgress(SimulationController& controller, QWidget& window, std::function<void()> done)
    : QObject(&window), controller_(controller), window_(window), done_(std::move(done)) {
    connect(&controller_, &SimulationController::busy_changed, this, &LoadProgress::busy_changed);
}

void LoadProgress::busy_changed(bool busy, const QString& what) {
    delete dialog_;
    dialog_ = nullptr;
    if (!busy) {
        done_();
        return;
    }
    dialog_ = new QProgressDialog(what + tr("…"), tr("Cancel"), 0, 0, &window_);
    dialog_->setWindowTitle(tr("gallocsim"));
    dialog_->setWindowModality(Qt::WindowModal);
    dialog_->setMinimumDuration(300);  // shown only when the load takes long enough to notice
    connect(dialog_, &QProgressDialog::canceled, &controller_, &SimulationController::cancel_loading);
}

} // namespace gallocsim::gui
