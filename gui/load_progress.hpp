#pragma once
// While the controller loads on its worker, a dialog says what it does and offers to cancel
// it. It shows only when the work takes long enough to notice (small graphs load in less),
// and is window-modal, so nothing else starts meanwhile. When the work ends, `done` runs (the
// window gives the keys back to its pictures).

#include <QObject>
#include <QPointer>
#include <QProgressDialog>

#include <functional>

namespace gallocsim::gui {

class SimulationController;

class LoadProgress : public QObject {
    Q_OBJECT
public:
    LoadProgress(SimulationController& controller, QWidget& window, std::function<void()> done);

private:
    void busy_changed(bool busy, const QString& what);

    SimulationController& controller_;
    QWidget& window_;
    std::function<void()> done_;
    QPointer<QProgressDialog> dialog_;  // while the controller is busy
};

} // namespace gallocsim::gui
