#include "simulator/analysis/ggml_plan.hpp"

#include "simulator/model/working_graph.hpp"

#include <utility>

namespace gallocsim {

namespace {

// Everything a GgmlPlan holds besides the run and the trace, read off the trace.
GgmlPlan read_off(const GraphFile& file, TracedPlan traced) {
    GgmlPlan plan{std::move(traced.run), std::move(traced.trace), {}, {}, {}, 0};
    plan.timeline = Timeline(plan.trace);
    plan.lifetimes = plan_lifetimes(file, plan.trace, plan.timeline);
    // A parent that gets memory again after a node took it in place (an input node can, while
    // ggml still counts consumers) no longer shares bytes with that node: such pairs are dropped
    // once every event has been seen, so the scan stays linear.
    constexpr std::size_t kNever = SIZE_MAX;
    std::vector<std::size_t> last_allocated(plan.trace.tensors.size(), kNever);
    std::vector<std::size_t> reused_at;  // per pair, its event
    for (std::size_t i = 0; i < plan.trace.events.size(); ++i) {
        const TraceEvent& event = plan.trace.events[i];
        if (const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&event.data)) {
            // Through a view (a policy's rule), the memory taken is the view's source's.
            const TensorId owner = reused->view_source != kNoTensor ? reused->view_source : reused->parent;
            plan.in_place.push_back({reused->node, owner});
            reused_at.push_back(i);
        } else if (const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&event.data)) {
            last_allocated.at(static_cast<std::size_t>(allocated->tensor)) = i;
        } else if (const auto* extra = std::get_if<Recorded<event::ExtraSpaceFreed>>(&event.data)) {
            plan.extra_space_freed += plan.trace.freed(*extra).size;
        }
    }
    std::size_t kept = 0;
    for (std::size_t p = 0; p < plan.in_place.size(); ++p) {
        const std::size_t again = last_allocated[static_cast<std::size_t>(plan.in_place[p].parent)];
        if (again == kNever || again < reused_at[p]) {
            plan.in_place[kept++] = plan.in_place[p];
        }
    }
    plan.in_place.resize(kept);
    return plan;
}

} // namespace

GgmlPlan run_ggml_plan(const GraphFile& file, const AllocatorProfile& profile) {
    return run_ggml_plan(file, describe_tensors(file), profile);
}

GgmlPlan run_ggml_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile) {
    return read_off(file, trace_plan(file, std::move(tensors), profile));
}

GgmlPlan run_ggml_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile, PlanRun earlier) {
    return read_off(file, trace_plan(file, std::move(tensors), prepare_plan_again(file, std::move(earlier), profile)));
}

} // namespace gallocsim
