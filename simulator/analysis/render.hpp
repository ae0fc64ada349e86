#pragma once
// SVG pictures of a plan. The timeline: x is the step, y the offset (0 at the bottom),
// one rectangle per tensor lifetime, each chunk a band of its own with free space
// hatched and the step with the most live bytes marked. The memory map: at one step, an
// address bar per chunk with the live tensors as blocks and the free ranges hatched.
// A tensor has the same colour in every picture (a hash of its name). Elements carry
// data-* attributes (name, offset, size, steps) so pictures can be read back by tools.

#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/policy_comparison.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace gallocsim {

struct PictureBlock {
    std::string name;
    int first = 0;
    int last = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
};

// One chunk (or one arena): its blocks in bytes [0, size).
struct PictureBand {
    std::string label;  // e.g. "CPU chunk 0"
    std::size_t size = 0;
    std::vector<PictureBlock> blocks;
};

struct PlanPicture {
    std::string title;
    std::vector<std::string> step_labels;  // one per step: "start", then node names
    std::vector<PictureBand> bands;
};

// ggml's plan of a graph: a band per chunk of each buffer (in buffer id order, sized as the
// plan's chunks), each stretch of a tensor's memory drawn from the trace's Timeline (the
// model the GUI's timeline draws too): where ggml put it, at its aligned alloc size, over the
// node steps it held the memory. A trace of several plans draws its last.
PlanPicture ggml_plan_picture(const GraphFile& file, const GgmlPlan& plan);
// Another planner's layout of one arena (one band), with the graph's step labels if any.
PlanPicture arena_plan_picture(std::string title, const ArenaProblem& problem, const ArenaPlan& plan,
                               std::vector<std::string> step_labels);

std::string render_timeline_svg(const PlanPicture& picture);
// Throws std::out_of_range for a step the picture does not have.
std::string render_memory_map_svg(const PlanPicture& picture, int step);


// The free ranges of a band at a step: [offset, offset + size) not covered by a live block.
std::vector<std::pair<std::size_t, std::size_t>> free_ranges(const PictureBand& band, int step);

// A policy comparison as a chart: a row per graph, a bar per policy whose length is its plan
// over the graph's in-place-aware bound (1.0 is the bound, drawn as a line; graphs of every size
// share the axis), broken plans marked, the policies in a legend. Bars carry data-graph,
// data-policy, data-bytes and data-bound.
std::string render_policy_chart_svg(const PolicyComparison& comparison);

} // namespace gallocsim
