#include "gui/lazy_panel.hpp"

#include "gui/simulation_controller.hpp"

namespace gallocsim::gui {

LazyPanel::LazyPanel(SimulationController& controller, QWidget* parent) : QWidget(parent) {
    connect(&controller, &SimulationController::graph_changed, this, [this] {
        stale_ = true;
        if (isVisible()) {
            refresh();
        }
    });
}

void LazyPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) {
        refresh();
    }
}

void LazyPanel::refresh() {
    stale_ = false;
    rebuild();
}

} // namespace gallocsim::gui
