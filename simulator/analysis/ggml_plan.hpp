#pragma once
// ggml's plan of a graph file, made once with the reference allocator and its trace recorded,
// and what every report reads off it: the timeline, the lifetimes, the in-place pairs.
#include "simulator/analysis/analysis.hpp"
#include "simulator/analysis/in_place_bound.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/trace/timeline.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <vector>

namespace gallocsim {

// ggml's plan of a file and everything read off it. Made once per command; every report
// (compare, why, render, stats) takes it instead of planning again.
struct GgmlPlan {
    PlanRun run;        // the places and buffers (run.plan: the record `plan` prints)
    Trace trace;        // every decision that made them
    Timeline timeline;  // the trace's memory spans
    GraphLifetimes lifetimes;
    std::vector<InPlacePair> in_place;  // (node, parent whose memory it took), in the order ggml decided them
    std::size_t extra_space_freed = 0;  // bytes in-place nodes gave back past their end (free_extra_space)
};

GgmlPlan run_ggml_plan(const GraphFile& file, const AllocatorProfile& profile = newest_profile());
// The same, reusing the description of the file's tensors from an earlier trace of it.
GgmlPlan run_ggml_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile);
// ...and the working copy of an earlier run of it, which it takes (prepare_plan_again): plans of
// one graph under several profiles copy the graph once.
GgmlPlan run_ggml_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile, PlanRun earlier);

} // namespace gallocsim
