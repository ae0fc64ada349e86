#pragma once
// What the window says about one tensor at the cursor (every view's tooltip): name, op, type,
// shape, size, flags, scheduler split, where its memory is, its lifetime on both axes of time,
// its state now, and why the allocator put it there.

#include "simulator/model/graph_file.hpp"
#include "simulator/trace/cursor.hpp"
#include "simulator/trace/scheduler_splits.hpp"
#include "simulator/trace/timeline.hpp"

#include <QString>

#include <string>
#include <vector>

namespace gallocsim::gui {

// The plan a tensor is described in: the graph, the cursor over its trace (state and
// position), its memory spans, the scheduler's splits and every event's explanation.
struct DescribedPlan {
    const GraphFile& file;
    const Cursor& cursor;
    const Timeline& timeline;
    const SchedulerSplits& splits;
    const std::vector<std::string>& explanations;
};

// Rich text (HTML), one fact a line.
QString describe_tensor(const DescribedPlan& plan, TensorId tensor);

// "node steps 3 to 7 (given memory by event 12, freed by event 40)": a span on both axes of time.
QString lifetime_text(const Timeline& timeline, const MemorySpan& span);

} // namespace gallocsim::gui
