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

#include "trace_lookup.hpp"

#include <gtest/gtest.h>

#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace gallocsim::test_support {

// Thrown after the failure is recorded, to stop the test (as an ASSERT would): GoogleTest
// reports it as an exception thrown in the test body.
struct EventNotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace detail {

// Index in trace.events of the one event of `query.kind` that concerns every tensor named
// (trace_lookup.hpp); else the failure is recorded at the test's line and the test stops.
inline std::size_t find_index(const Trace& trace, const EventOfKind& query, std::span<const std::string_view> names) {
    const EventLookup found = look_up_event(trace, query.kind, names);
    if (!found.index) {
        ADD_FAILURE_AT(query.asked_in, query.asked_on) << found.failure();
        throw EventNotFound(found.missing + " (see the failure above)");
    }
    return *found.index;
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
