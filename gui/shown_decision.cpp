#include "gui/shown_decision.hpp"

#include "simulator/trace/peak.hpp"  // node_step

#include <algorithm>

namespace gallocsim::gui {

std::optional<ShownDecision> shown_decision(const Trace& trace, std::size_t position) {
    if (position == 0 || position > trace.size()) {
        return std::nullopt;
    }
    const TraceEvent& event = trace.events[position - 1];
    const auto touched = touched_tensors(event);
    return ShownDecision{kind_of(event), touched.empty() ? kNoTensor : touched.front(), node_step(trace, event)};
}

namespace {

// The first event of the decision's kind on its tensor, as a position; none when there is none.
std::optional<std::size_t> same_kind_on_same_tensor(const Trace& trace, const ShownDecision& shown) {
    for (std::size_t i = 0; shown.tensor != kNoTensor && i < trace.size(); ++i) {
        const TraceEvent& event = trace.events[i];
        if (kind_of(event) != shown.kind) {
            continue;
        }
        if (const auto touched = touched_tensors(event); std::ranges::find(touched, shown.tensor) != touched.end()) {
            return i + 1;
        }
    }
    return std::nullopt;
}

} // namespace

std::size_t position_of(const Trace& trace, const ShownDecision& shown) {
    if (const auto same = same_kind_on_same_tensor(trace, shown)) {
        return *same;
    }
    std::size_t position = 0;
    for (std::size_t i = 0; i < trace.size() && node_step(trace, trace.events[i]) <= shown.node_step; ++i) {
        position = i + 1;
    }
    return position;
}

} // namespace gallocsim::gui
