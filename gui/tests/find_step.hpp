#pragma once
// The GUI suites find a trace's events by what they are, as the library suites do
// (tests/trace_lookup.hpp), never by their number, e.g.
//
//   controller.jump(find_step(controller.trace(), EventKind::in_place_reused, "mul"));
//
// shows the seed just after mul took a's memory, wherever a new kind of event puts that step.
// find_step counts from 1, as positions do: jumping to it shows the state just after the event.
// When no event, or more than one, matches, the test fails at the line that asked (QTest::qFail,
// naming the kind, the tensors and the events of that kind there are) and stops: the exception
// thrown to stop it makes QtTest (6.4) add "Caught unhandled exception" and end the run.

#include "simulator/trace/trace.hpp"
#include "tests/trace_lookup.hpp"

#include <QTest>

#include <array>
#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string_view>

namespace gallocsim::gui::test_support {

using gallocsim::test_support::EventOfKind;

struct EventNotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The step (counted from 1) of the one event of `kind` that concerns every tensor named.
template <std::convertible_to<std::string_view>... Names>
std::size_t find_step(const Trace& trace, EventOfKind kind, const Names&... tensors) {
    const std::array<std::string_view, sizeof...(Names)> names{std::string_view(tensors)...};
    const gallocsim::test_support::EventLookup found = gallocsim::test_support::look_up_event(trace, kind.kind, names);
    if (!found.index) {
        QTest::qFail(found.failure().c_str(), kind.asked_in, kind.asked_on);
        throw EventNotFound(found.missing);
    }
    return *found.index + 1;
}

} // namespace gallocsim::gui::test_support
