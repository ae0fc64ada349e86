#pragma once
// Finding a trace's events by what they are, not by where they are, for any test framework:
// the one event of a kind that concerns the tensors named (touched_tensors). It answers with
// the event's index or, when no event or more than one matches, with the words of the failure
// (the kind and tensors asked for, and the events of that kind there are); each framework's
// header reports that its own way and stops the test: trace_steps.hpp (GoogleTest) and
// gui/tests/trace_steps.hpp (QtTest). A new kind of event, which renumbers the events after
// it, does not move what a test looks at.

#include "simulator/trace/trace.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim::test_support {

// An event kind, and where the test asked for it (taken implicitly, so that a failed look-up
// points at the test's line, not at a helper header).
// (__builtin_FILE/__builtin_LINE rather than std::source_location: clang 14, which builds the
// sanitized suites, has no std::source_location with libstdc++ 12.)
struct EventOfKind {
    EventOfKind(EventKind of_kind, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : kind(of_kind), asked_in(file), asked_on(line) {}
    EventKind kind;
    const char* asked_in;
    int asked_on;
};

// The answer: `index` into trace.events, or what was not found ("no single tensor-freed event
// concerning b") and why (none or several match, and the events of that kind there are).
struct EventLookup {
    std::optional<std::size_t> index;
    std::string missing;
    std::string why;
    std::string failure() const { return missing + ": " + why; }
};

namespace detail {

inline std::string tensor_list(const Trace& trace, const std::vector<TensorId>& ids) {
    std::string text;
    for (const TensorId id : ids) {
        text += (text.empty() ? "" : " ") + trace.tensor(id).name;
    }
    return text;
}

} // namespace detail

// The one event of `kind` that concerns every tensor named (in any order).
inline EventLookup look_up_event(const Trace& trace, EventKind kind, std::span<const std::string_view> names) {
    std::ostringstream wanted;
    wanted << kind_name(kind) << " event";
    for (std::size_t i = 0; i < names.size(); ++i) {
        wanted << (i == 0 ? " concerning " : i + 1 == names.size() ? " and " : ", ") << names[i];
    }
    const auto fail = [&](const std::string& why) { return EventLookup{std::nullopt, "no single " + wanted.str(), why}; };
    std::vector<TensorId> ids;
    for (const std::string_view name : names) {
        const std::optional<TensorId> id = trace.find(name);
        if (!id) {
            return fail("the trace has no tensor named '" + std::string(name) + "'");
        }
        ids.push_back(*id);
    }
    std::vector<std::size_t> found;
    std::string of_that_kind;  // every event of the kind, for the failure message
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& event = trace.events[i];
        if (kind_of(event) != kind) {
            continue;
        }
        const std::vector<TensorId> touched = touched_tensors(event);
        of_that_kind += "\n  step " + std::to_string(i + 1) + ": " + detail::tensor_list(trace, touched);
        if (std::ranges::all_of(ids, [&](TensorId id) { return std::ranges::find(touched, id) != touched.end(); })) {
            found.push_back(i);
        }
    }
    if (found.size() == 1) {
        return {found.front(), {}, {}};
    }
    const std::string events_there =
        of_that_kind.empty() ? "there is no event of that kind" : "the events of that kind are (step: tensors)" + of_that_kind;
    return fail((found.empty() ? "none matches; " : std::to_string(found.size()) + " match; ") + events_there);
}

} // namespace gallocsim::test_support
