#pragma once
// The base of the panels that work their contents out from the whole graph (Statistics,
// Peak): a new graph marks the panel stale, and it rebuilds at once when it is visible, else
// the next time it is shown, so a panel no one looks at costs nothing.

#include <QWidget>

namespace gallocsim::gui {

class SimulationController;

class LazyPanel : public QWidget {
public:
    explicit LazyPanel(SimulationController& controller, QWidget* parent = nullptr);

protected:
    void showEvent(QShowEvent* event) override;
    // Works the contents out again from the controller's graph (it may have none).
    virtual void rebuild() = 0;

private:
    void refresh();

    bool stale_ = true;
};

} // namespace gallocsim::gui
