#include "gui/session_document.hpp"

#include "gui/text.hpp"
#include "reference/profile.hpp"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace gallocsim::gui {

namespace {

[[noreturn]] void refuse(const QString& origin, const QString& problem) {
    throw SessionError((origin + ": " + problem).toStdString());
}

QByteArray compact(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

std::string_view view_of(const QByteArray& bytes) {
    return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

// A whole number of events that a size_t holds (2^53, where doubles stop being exact, is far
// past any trace): converting a larger double to size_t would be undefined.
std::size_t read_position(const QJsonValue& value, const QString& origin) {
    constexpr double kMostEvents = 9007199254740992.0;
    if (value.isUndefined()) {
        return 0;
    }
    const double number = value.toDouble(-1);
    if (!value.isDouble() || number < 0 || number > kMostEvents || number != std::floor(number)) {
        refuse(origin, QStringLiteral("$.position: should be a whole number of events, 0 or more"));
    }
    return static_cast<std::size_t>(number);
}

void read_plan_rules(const QJsonObject& session, const QString& origin,
                     const std::function<const AllocatorProfile*(const QString&)>& profile_named, SessionDocument& document) {
    if (const QJsonValue policy = session.value("policy"); !policy.isUndefined()) {
        if (!policy.isObject()) {
            refuse(origin, QStringLiteral("$.policy: should be a policy file's object (docs/policies.md)"));
        }
        const QByteArray text = compact(policy.toObject());
        try {
            document.policy = parse_policy(view_of(text), origin.toStdString(), "$.policy");
        } catch (const std::exception& error) {
            throw SessionError(error.what());
        }
    } else if (const QJsonValue version = session.value("ggml_version"); !version.isUndefined()) {
        document.profile = version.isString() ? profile_named(version.toString()) : nullptr;
        if (document.profile == nullptr) {
            refuse(origin, QStringLiteral("$.ggml_version: no ggml version \"%1\" (known: %2)")
                               .arg(version.toString(), qstr(known_profile_names())));
        }
    }
}

// Every breakpoint names a tensor of the graph or an event kind.
void read_breakpoints(const QJsonObject& breakpoints, const QString& origin, SessionDocument& document) {
    for (const QJsonValue& name : breakpoints.value("tensors").toArray()) {
        if (document.file.context.find(name.toString().toStdString()) == nullptr) {
            refuse(origin, QStringLiteral("$.breakpoints.tensors: no tensor named \"%1\"").arg(name.toString()));
        }
        document.tensor_breakpoints.push_back(name.toString().toStdString());
    }
    for (const QJsonValue& name : breakpoints.value("kinds").toArray()) {
        const auto kind = parse_kind(name.toString().toStdString());
        if (!kind) {
            refuse(origin, QStringLiteral("$.breakpoints.kinds: no event kind \"%1\"").arg(name.toString()));
        }
        document.kind_breakpoints.push_back(*kind);
    }
}

} // namespace

SessionDocument read_session(const QJsonObject& session, const QString& origin,
                             const std::function<const AllocatorProfile*(const QString&)>& profile_named) {
    if (session.value("format").toString() != kSessionFormat) {
        refuse(origin, QStringLiteral("not a gallocsim session (format should be \"%1\")").arg(kSessionFormat));
    }
    if (!session.value("graph").isObject()) {
        refuse(origin, QStringLiteral("$.graph: missing or not an object"));
    }
    SessionDocument document;
    const QByteArray graph = compact(session.value("graph").toObject());
    try {
        document.file = parse_graph_file(view_of(graph), origin.toStdString(), "$.graph");
    } catch (const std::exception& error) {
        throw SessionError(error.what());
    }
    read_plan_rules(session, origin, profile_named, document);
    document.position = read_position(session.value("position"), origin);
    read_breakpoints(session.value("breakpoints").toObject(), origin, document);
    document.source = session.value("source").toString(origin);
    document.speed = session.value("speed").toInt(0);
    document.unlimited = session.value("unlimited").toBool(false);
    document.selected = session.value("selected").toString();
    return document;
}

QJsonObject write_session(const SessionState& state) {
    QJsonObject session;
    session["format"] = kSessionFormat;
    session["source"] = state.source;
    session["graph"] = QJsonDocument::fromJson(QByteArray::fromStdString(graph_file_to_json(state.file))).object();
    session["position"] = static_cast<qint64>(state.position);
    session["ggml_version"] = qstr(state.profile.name);
    if (!is_builtin_profile(state.profile)) {
        session["policy"] = QJsonDocument::fromJson(QByteArray::fromStdString(
                                                        policy_file_text(state.profile, state.profile.name, state.profile.upstream)))
                                .object();
    }
    QJsonArray tensors, kinds;
    for (TensorId tensor : state.tensor_breakpoints) {
        tensors.append(qstr(state.trace.tensor(tensor).name));
    }
    for (EventKind kind : state.kind_breakpoints) {
        kinds.append(qstr(kind_name(kind)));
    }
    session["breakpoints"] = QJsonObject{{"tensors", tensors}, {"kinds", kinds}};
    session["speed"] = state.speed;
    session["unlimited"] = state.unlimited;
    if (state.selected) {
        session["selected"] = qstr(state.trace.tensor(*state.selected).name);
    }
    return session;
}

} // namespace gallocsim::gui
