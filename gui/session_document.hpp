#pragma once
// A saved session (gallocsim-session/1, docs/graph-format.md): the graph whole, the version or
// policy that planned it (a policy saved whole, so the session plans the same anywhere), the
// cursor, breakpoints, speed and selection. Reading checks everything against the graph before
// the controller changes anything, and names the place of each problem ("FILE: $.position: ...").

#include "simulator/model/graph_file.hpp"
#include "simulator/model/policy_file.hpp"
#include "simulator/trace/trace.hpp"

#include <QJsonObject>
#include <QString>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gallocsim::gui {

inline constexpr auto kSessionFormat = "gallocsim-session/1";

struct SessionDocument {
    GraphFile file;
    QString source;  // where the graph came from; the session's own path when it does not say
    std::unique_ptr<const Policy> policy;        // a policy saved whole, or
    const AllocatorProfile* profile = nullptr;   // a version (or a policy read before) by name; nullptr: not said
    std::size_t position = 0;
    std::vector<std::string> tensor_breakpoints;  // names, each a tensor of the graph
    std::vector<EventKind> kind_breakpoints;
    int speed = 0;  // 0: not said
    bool unlimited = false;
    QString selected;  // a tensor's name, or empty
};

// A session the window cannot open: what.
struct SessionError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Reads a session object; `profile_named` finds a version or a policy read before by name.
// Throws SessionError naming `origin`, the JSON path and the problem.
SessionDocument read_session(const QJsonObject& session, const QString& origin,
                             const std::function<const AllocatorProfile*(const QString&)>& profile_named);

// What a session saves; the tensors are the trace's.
struct SessionState {
    const GraphFile& file;
    const Trace& trace;
    const QString& source;
    const AllocatorProfile& profile;
    std::size_t position = 0;
    const std::set<TensorId>& tensor_breakpoints;
    const std::set<EventKind>& kind_breakpoints;
    int speed = 0;
    bool unlimited = false;
    std::optional<TensorId> selected;
};

QJsonObject write_session(const SessionState& state);

} // namespace gallocsim::gui
