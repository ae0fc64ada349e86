#pragma once
// The answer to "why is this buffer this big", as data: `why` prints it as text and JSON, the GUI's
// Peak panel as HTML, and neither works any of it out again. Per buffer: where its high-water mark
// was set and what was live then (the trace's BufferPeak), its buffer type's bound and best
// offline planner (the comparison's arena), what each of the largest live tensors costs on its
// own (ggml's plan made again with that tensor outside the buffer), and the same for the tensor
// whose release left each hole below the mark (a hole is bytes a freed tensor gave back that
// nothing live then fills: without that tensor in the buffer, the hole is never made).

#include "simulator/analysis/analysis_plans.hpp"
#include "simulator/trace/peak.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

// How many of the largest tensors live at a high-water mark get their own what-if plan: each
// costs one plan of the graph, and past the few largest the answer is nearly always "nothing".
inline constexpr std::size_t kCostedTensors = 5;

struct BufferAnswer {
    const BufferPeak* peak = nullptr;
    const BufferTypeSpec* type = nullptr;
    const ArenaComparison* arena = nullptr;  // its buffer type's bound and planners (none: no tensor there)
    // Per live tensor (peak->live's order, the largest first, at most kCostedTensors): the
    // buffer's size if that tensor lived outside it (buffer_sizes_without); none when that plan failed.
    std::vector<std::optional<std::size_t>> size_without;
    // Per hole (peak->holes' order, at most kCostedTensors): the tensor whose release left it
    // (kNoTensor: never used yet) and the buffer's size without that tensor in the buffer.
    std::vector<TensorId> hole_left_by;
    std::vector<std::optional<std::size_t>> hole_size_without;

    // In-place-aware, over the whole buffer type.
    std::size_t lower_bound() const { return arena != nullptr ? arena->lower_bound.bytes : 0; }
    // The best other planner on the same merged blocks.
    std::size_t best_alternative() const { return arena != nullptr ? arena->best_alternative().outcome.plan.size : 0; }
    std::string best_planner() const { return arena != nullptr ? std::string(arena->best_alternative().planner->title) : ""; }
    // What live tensor `i` (peak->live's order) costs, in words, or empty when it was not asked.
    std::string without_text(std::size_t i) const;
    // The same for hole `i`'s tensor: "without kq-3, whose release left it: 300.01 MiB (saves 8.00 MiB)".
    std::string hole_without_text(const Trace& trace, std::size_t i) const;
};

// Each buffer's answer; `trace`, `peaks` and `comparison` come from ggml's plan of `file` under
// `profile`. `file` is planned again once per costed tensor (a bare plan each: no trace; a tensor
// asked about twice is planned once), on the working copy of `plan_run` when given (that plan's
// run, its places read already: PlansWithout takes it) and else on a copy of its own.
std::vector<BufferAnswer> why_answers(const GraphFile& file, const AllocatorProfile& profile, const Trace& trace,
                                      const Comparison& comparison, const std::vector<BufferPeak>& peaks,
                                      PlanRun plan_run = {});

// The tensor whose release left a hole (the free event's first tensor); kNoTensor when no free
// left it (bytes never used yet).
TensorId hole_left_by_tensor(const Trace& trace, const PeakHole& hole);

} // namespace gallocsim
