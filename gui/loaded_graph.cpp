#include "gui/loaded_graph.hpp"

#include "gui/tensor_color.hpp"
#include "simulator/trace/explain.hpp"

namespace gallocsim::gui {

namespace {

// The trace a LoadedGraph shows: the replay, or else the plan's own (sharing the plan, not a copy).
std::shared_ptr<const Trace> shown_trace(const std::shared_ptr<const GgmlPlan>& plan, std::optional<Trace>& replay) {
    return replay ? std::make_shared<const Trace>(std::move(*replay)) : std::shared_ptr<const Trace>(plan, &plan->trace);
}

} // namespace

LoadedGraph::LoadedGraph(GraphFile graph, TraceTensors tensors, const AllocatorProfile& planned_by, std::optional<Trace> replay,
                         QString from)
    : file(std::move(graph)), profile(&planned_by),
      plan(std::make_shared<const GgmlPlan>(run_ggml_plan(file, std::move(tensors), planned_by))),
      cursor(shown_trace(plan, replay)), final_state(cursor.state_at(cursor.size())),
      timeline(shows_plan() ? std::shared_ptr<const Timeline>(plan, &plan->timeline) : std::make_shared<const Timeline>(cursor.trace())),
      // A trace that only places (a capture's alloc_graph that kept another graph's plan) knows no lifetimes.
      lifetimes(!timeline->has_plan() ? std::make_shared<const GraphLifetimes>()
                : shows_plan()        ? std::shared_ptr<const GraphLifetimes>(plan, &plan->lifetimes)
                                      : std::make_shared<const GraphLifetimes>(plan_lifetimes(file, cursor.trace(), *timeline))),
      explanations(explain_all(cursor.trace())), source(std::move(from)),
      peaks(buffer_peaks(cursor.trace())), splits(scheduler_splits(cursor.trace())) {
    colors.reserve(cursor.trace().tensors.size());
    for (const TraceTensor& tensor : cursor.trace().tensors) {
        colors.push_back(tensor_color(tensor.name));
    }
}

} // namespace gallocsim::gui
