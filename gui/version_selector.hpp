#pragma once
// The toolbar's "ggml version" selector: every state of the allocator's rules, oldest first,
// then each policy file read (its file and rules as the tooltip). Picking one asks the
// controller to plan by it; the selector follows the controller's profile however it changes
// (a session opened, a policy read, an alias chosen elsewhere, a re-plan refused).

#include <QComboBox>

namespace gallocsim::gui {

class SimulationController;

class VersionSelector : public QComboBox {
    Q_OBJECT
public:
    explicit VersionSelector(SimulationController& controller, QWidget* parent = nullptr);

private:
    void plan_by(const QString& name);  // the reader picked `name`
    void add_last_policy();             // the controller read a policy file
    void show_planning_profile();       // the profile the controller plans by, without asking again

    SimulationController& controller_;
};

} // namespace gallocsim::gui
