#pragma once
// Finding a trace's events by what they are, not by where they are: the one event of a kind
// that concerns the tensors named (touched_tensors), e.g.
//
//   find_step(trace, EventKind::tensor_freed, "b")                  -> 12, counted from 1
//   find_event(trace, EventKind::in_place_reused, "mul", "a")       -> the TraceEvent
//   find_event<event::TensorFreed>(trace, EventKind::tensor_freed, "b")  -> its Recorded<> payload
//
// so that a new kind of event, which renumbers the events after it, does not move what a
// test looks at. The tensors may be named in any order; name enough of them to single one
// event out. When no event, or more than one, matches, the test fails at the line that
// asked, naming the kind and tensors and the events of that kind there are, and stops.

#include "simulator/trace/trace.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gallocsim::test_support {

// An event kind, and where the test asked for it (taken implicitly, so that a failed look-up
// points at the test's line, not at this header).
// (__builtin_FILE/__builtin_LINE rather than std::source_location: clang 14, which builds the
// sanitized suites, has no std::source_location with libstdc++ 12.)
struct EventOfKind {
    EventOfKind(EventKind of_kind, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : kind(of_kind), asked_in(file), asked_on(line) {}
    EventKind kind;
    const char* asked_in;
    int asked_on;
};

// Thrown after the failure is recorded, to stop the test (as an ASSERT would): GoogleTest
// reports it as an exception thrown in the test body.
struct EventNotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace detail {

inline std::string tensor_list(const Trace& trace, const std::vector<TensorId>& ids) {
    std::string text;
    for (const TensorId id : ids) {
        text += (text.empty() ? "" : " ") + trace.tensor(id).name;
    }
    return text;
}

// Index in trace.events of the one event of `query.kind` that concerns every tensor named.
inline std::size_t find_index(const Trace& trace, const EventOfKind& query, std::span<const std::string_view> names) {
    std::ostringstream wanted;
    wanted << kind_name(query.kind) << " event";
    for (std::size_t i = 0; i < names.size(); ++i) {
        wanted << (i == 0 ? " concerning " : i + 1 == names.size() ? " and " : ", ") << names[i];
    }
    auto fail = [&](const std::string& why) -> std::size_t {
        const std::string message = "no single " + wanted.str() + ": " + why;
        ADD_FAILURE_AT(query.asked_in, query.asked_on) << message;
        throw EventNotFound("no single " + wanted.str() + " (see the failure above)");
    };
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
        if (kind_of(event) != query.kind) {
            continue;
        }
        const std::vector<TensorId> touched = touched_tensors(event);
        of_that_kind += "\n  step " + std::to_string(i + 1) + ": " + tensor_list(trace, touched);
        if (std::ranges::all_of(ids, [&](TensorId id) { return std::ranges::find(touched, id) != touched.end(); })) {
            found.push_back(i);
        }
    }
    if (found.size() == 1) {
        return found.front();
    }
    const std::string events_there =
        of_that_kind.empty() ? "there is no event of that kind" : "the events of that kind are (step: tensors)" + of_that_kind;
    return fail((found.empty() ? "none matches; " : std::to_string(found.size()) + " match; ") + events_there);
}

} // namespace detail

// The step (counted from 1, as the trace and walk commands count) of the one event of `kind`
// that concerns the tensors named.
template <std::convertible_to<std::string_view>... Names>
std::size_t find_step(const Trace& trace, EventOfKind kind, const Names&... tensors) {
    const std::array<std::string_view, sizeof...(Names)> names{std::string_view(tensors)...};
    return detail::find_index(trace, kind, names) + 1;
}

// That event.
template <std::convertible_to<std::string_view>... Names>
const TraceEvent& find_event(const Trace& trace, EventOfKind kind, const Names&... tensors) {
    return trace.events[find_step(trace, kind, tensors...) - 1];
}

// What that event records, as the event::Any alternative E (Recorded<E>).
template <template <class> class E, std::convertible_to<std::string_view>... Names>
const Recorded<E>& find_event(const Trace& trace, EventOfKind kind, const Names&... tensors) {
    return std::get<Recorded<E>>(find_event(trace, kind, tensors...).data);
}

} // namespace gallocsim::test_support
