#include "gui/version_selector.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"

namespace gallocsim::gui {

VersionSelector::VersionSelector(SimulationController& controller, QWidget* parent) : QComboBox(parent), controller_(controller) {
    setObjectName("ggml_version");
    for (const AllocatorProfile& profile : allocator_profiles()) {
        addItem(qstr(profile.name));
        setItemData(count() - 1, qstr(std::string(profile.upstream) + ", " + std::string(profile.date)), Qt::ToolTipRole);
    }
    setToolTip(tr("Plan by the rules of this ggml version's allocator (docs/versions.md), or of a "
                  "policy file read with Simulation > Plan by a policy file (docs/policies.md); "
                  "changing it plans the graph again"));
    connect(this, &QComboBox::currentTextChanged, this, &VersionSelector::plan_by);
    connect(&controller_, &SimulationController::policies_changed, this, &VersionSelector::add_last_policy);
    connect(&controller_, &SimulationController::profile_changed, this, &VersionSelector::show_planning_profile);
}

void VersionSelector::plan_by(const QString& name) {
    const AllocatorProfile* profile = controller_.profile_named(name);
    if (profile != nullptr && !controller_.set_profile(*profile)) {
        show_planning_profile();  // refused: show the version still planning
    }
}

// Each policy read joins the selector once, after the states; read again, its tooltip is the new file's.
void VersionSelector::add_last_policy() {
    const Policy& policy = *controller_.policies().back();
    const QSignalBlocker block(this);
    const QString name = qstr(policy.name());
    if (findText(name) < 0) {
        addItem(name);
    }
    setItemData(findText(name), qstr(policy.file() + ": " + rule_differences_text(policy.base(), policy.profile())), Qt::ToolTipRole);
}

void VersionSelector::show_planning_profile() {
    const QSignalBlocker block(this);  // showing is not choosing: nothing is planned again
    setCurrentText(qstr(controller_.profile().name));
}

} // namespace gallocsim::gui
