#pragma once
// The decision the cursor shows, found again in the trace of a re-plan under other rules
// (the version selector, a policy): the event count moves between plans, so the same number
// would show an unrelated event.

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>

namespace gallocsim::gui {

struct ShownDecision {
    EventKind kind;
    TensorId tensor;        // the first tensor the event touches (kNoTensor: none)
    std::size_t node_step;  // the node step it belongs to
};

// The decision shown at `position` (the last event applied); none at the start.
std::optional<ShownDecision> shown_decision(const Trace& trace, std::size_t position);

// Where the same decision is in `trace` (positions count applied events): the same kind of event
// on the same tensor; else the last event of the same node step; else the end.
std::size_t position_of(const Trace& trace, const ShownDecision& shown);

} // namespace gallocsim::gui
