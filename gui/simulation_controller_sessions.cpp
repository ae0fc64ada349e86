// SimulationController's sessions and policies: a saved session (gui/session_document.hpp)
// written and brought back whole (graph, rules, cursor, breakpoints, speed, selection), and
// the policy files read, which stay selectable by name for the rest of the run.
#include "gui/simulation_controller.hpp"

#include "gui/session_document.hpp"
#include "reference/version_map.hpp"

#include <QFile>
#include <QJsonDocument>

namespace gallocsim::gui {

// --- Policies -------------------------------------------------------------------------

bool SimulationController::load_policy(const QString& path) {
    std::unique_ptr<const Policy> policy;
    try {
        policy = load_policy_file(path.toStdString());
    } catch (const std::exception& error) {
        return fail(tr("Cannot read the policy"), QString::fromUtf8(error.what()));
    }
    return set_profile(keep_policy(std::move(policy)));
}

// Policies are never dropped: profile_ and a LoadedGraph's profile may point into any of them.
bool SimulationController::use_rules(const Rules& rules) {
    return set_profile(rules.policy() != nullptr ? keep_policy(rules.policy()) : rules.profile());
}

const AllocatorProfile& SimulationController::keep_policy(std::shared_ptr<const Policy> policy) {
    const Policy& kept = *policies_.emplace_back(std::move(policy));
    Q_EMIT policies_changed();
    return kept.profile();
}

const AllocatorProfile* SimulationController::profile_named(const QString& name) const {
    const std::string text = name.toStdString();
    if (const AllocatorProfile* state = gallocsim::profile_named(text)) {
        return state;
    }
    // The latest policy of that name (a file read again after an edit).
    for (auto it = policies_.rbegin(); it != policies_.rend(); ++it) {
        if ((*it)->name() == text) {
            return &(*it)->profile();
        }
    }
    return nullptr;
}

// --- Sessions -------------------------------------------------------------------------

QJsonObject SimulationController::session() const {
    if (!has_graph()) {
        return QJsonObject{{"format", kSessionFormat}};
    }
    return write_session({file(), trace(), source(), *profile_, position(), breakpoints_.tensors(), breakpoints_.kinds(), speed_,
                          unlimited_, selected_});
}

bool SimulationController::restore_session(const QJsonObject& session, const QString& origin) {
    SessionDocument document;
    try {
        document = read_session(session, origin, [this](const QString& name) { return profile_named(name); });
    } catch (const SessionError& error) {
        return fail(tr("Cannot open the session"), QString::fromUtf8(error.what()));
    }
    // Every field was checked against the graph: from here on only planning can fail.
    const AllocatorProfile* previous = profile_;
    profile_ = document.policy ? &keep_policy(std::move(document.policy)) : document.profile ? document.profile : profile_;
    if (!install(std::move(document.file), document.source, document.position, false)) {
        profile_ = previous;
        return false;
    }
    if (profile_ != previous) {
        Q_EMIT profile_changed();
    }
    restore_controls(document);
    return true;
}

// What a session brings back beside its graph, rules and cursor: breakpoints, speed, selection.
void SimulationController::restore_controls(const SessionDocument& document) {
    for (const std::string& name : document.tensor_breakpoints) {
        breakpoints_.set_tensor(*trace().find(name), true);
    }
    for (EventKind kind : document.kind_breakpoints) {
        breakpoints_.set_kind(kind, true);
    }
    breakpoints_changed_now();
    unlimited_ = document.unlimited;
    set_speed(document.speed > 0 ? document.speed : kDefaultSpeed);
    if (!document.selected.isEmpty()) {
        select(find_tensor(document.selected));
    }
}

bool SimulationController::save_session(const QString& path) {
    QFile output(path);
    if (!output.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return fail(tr("Cannot save the session"), tr("%1: %2").arg(path, output.errorString()));
    }
    output.write(QJsonDocument(session()).toJson(QJsonDocument::Indented));
    if (!output.flush()) {
        return fail(tr("Cannot save the session"), tr("%1: %2").arg(path, output.errorString()));
    }
    return true;
}

bool SimulationController::open_session(const QString& path) {
    return open_file(path);
}

} // namespace gallocsim::gui
