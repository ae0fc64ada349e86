#pragma once
// One graph as the controller shows it: the graph file, ggml's plan of it and the rules that
// made the plan, the trace shown with a cursor over it, and what the views read that is worked
// out once per plan (timeline, lifetimes, explanations, colours, peaks, scheduler splits).
// It is made whole on the loader's worker thread and never changes after, but for the
// comparison and the why answers, which the controller works out on first use and keeps here.

#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/analysis/why_report.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/trace/cursor.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/scheduler_splits.hpp"
#include "simulator/trace/timeline.hpp"

#include <QColor>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::gui {

struct LoadedGraph {
    // Plans `graph` by `planned_by` (`tensors`: the graph's description, shared with an earlier
    // trace of it). The trace shown is the plan's own, or `replay` where one is given (a
    // capture's call as the program made it, planned by the same rules). The plan and the
    // rules are made together here, so that nothing can ask another allocator about this plan.
    LoadedGraph(GraphFile graph, TraceTensors tensors, const AllocatorProfile& planned_by, std::optional<Trace> replay, QString from);
    LoadedGraph(const LoadedGraph&) = delete;
    LoadedGraph& operator=(const LoadedGraph&) = delete;

    // Whether the trace shown is the plan's own (then its timeline and lifetimes are the plan's too).
    bool shows_plan() const { return &cursor.trace() == &plan->trace; }

    GraphFile file;
    // The rules `plan` (and a replay shown beside it) were made by; the what-if plans of the
    // why answers are made by them too.
    const AllocatorProfile* profile;
    // The comparison and the why answers read it; the cursor, timeline and lifetimes share its
    // trace where it is the one shown.
    std::shared_ptr<const GgmlPlan> plan;
    Cursor cursor;
    SimState final_state;
    std::shared_ptr<const Timeline> timeline;         // the shown trace's
    std::shared_ptr<const GraphLifetimes> lifetimes;  // read off that timeline; none for a trace that only places
    std::vector<std::string> explanations;
    std::vector<QColor> colors;
    QString source;
    std::optional<Comparison> comparison;
    std::optional<std::vector<BufferAnswer>> answers;  // point into comparison and peaks
    std::vector<BufferPeak> peaks;
    SchedulerSplits splits;  // ggml's scheduler splits, where the graph shows them
};

} // namespace gallocsim::gui
