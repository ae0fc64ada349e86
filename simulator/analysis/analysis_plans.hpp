#pragma once
// ggml's plan next to the alternatives: plans a graph file once with the reference allocator,
// recording the trace, and reads everything else off that one plan: the lifetimes, the
// in-place pairs, what the checker checks, the blocks the other planners and the bounds lay
// out; and tells what changed between two plans of one graph.

#include "simulator/analysis/analysis.hpp"
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/in_place_bound.hpp"
#include "simulator/model/buffer_settings.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/trace/timeline.hpp"
#include "simulator/trace/trace.hpp"

#include <optional>
#include <span>
#include <string>
#include <utility>
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

// ggml's placements of the tensors that have lifetimes, their alloc sizes in the buffer
// they ended up in, each buffer's alignment, max size and chunks, and the in-place pairs
// as the pairs allowed to share bytes.
PlanToCheck ggml_plan_to_check(const GraphFile& file, const GgmlPlan& plan);

// One planner of the registry on one buffer type.
struct AlternativePlan {
    const Planner* planner = nullptr;
    PlannerOutcome outcome;
};

// One buffer type: ggml's size there against the alternatives. The alternatives place the
// same blocks ggml does after its in-place decisions (each chain of tensors sharing memory
// is one block, as the in-place-aware bound sees it), in one arena without chunks, so they
// compete with ggml on equal terms; a chunked ggml buffer counts all its chunks together.
struct ArenaComparison {
    std::string buffer_type;
    std::size_t alignment = 0;
    std::size_t tensors = 0;      // tensors with memory of their own
    std::size_t blocks = 0;       // what the planners place: tensors with in-place chains joined
    std::size_t ggml_size = 0;    // all its chunks together
    std::size_t ggml_chunks = 0;
    PeakUsage lower_bound;             // in-place-aware: no plan with ggml's in-place decisions needs less
    std::vector<LiveBlock> live_at_bound;  // the blocks live at lower_bound.step, largest first: what sets the bound
    PeakUsage bound_without_in_place;  // every tensor a block of its own: what in-place reuse can save
    std::size_t no_reuse = 0;
    std::vector<AlternativePlan> alternatives;  // in the registry's order
    std::vector<Violation> planner_violations;  // the checker's verdict on the alternatives

    const AlternativePlan& best_alternative() const;  // the smallest; of equals, the exact search's
};

struct Comparison {
    std::vector<ArenaComparison> arenas;  // buffer types that hold tensors, in file order
    std::vector<Violation> ggml_violations;
    std::string ggml_error;  // when reserve or alloc_graph failed
};

// Where the arena's bound is reached and the largest blocks live there, as every report says it:
// "node step 24 (kq-0 running), with 9 blocks live: kq-0+kq_soft_max-0 256.00 MiB, …, and 4 more"
// (a block names the tensors ggml ran in place as one: what any smaller plan must hold at once).
std::string bound_position_text(const Trace& trace, const ArenaComparison& arena);

// Compares ggml's plan of the file with the alternatives; its in-place pairs decide the blocks.
Comparison compare_planners(const GraphFile& file, const GgmlPlan& ggml, const ExactLimits& limits = {});

// What one tensor costs ggml's plan on its own: the buffer sizes ggml plans for `file` when that
// tensor lives outside the buffers (external, as weights do) and every other tensor is as it was
// (its in-place children then cannot take its memory). Empty when that plan fails. `why` asks it
// of the largest tensors live at each buffer's high-water mark (the file is only read).
//
// Each answer is a bare plan (reserve_n and alloc_graph, no trace) of one working copy of the
// file: before each, prepare_plan_again puts back what the last one wrote, so that copying the
// graph (a third of a bare plan) is not paid per tensor. The copy may be an earlier plan's.
class PlansWithout {
public:
    // On a copy of its own, or on `earlier`'s (a run of the same file: ggml's plan once its
    // places have been read), which it takes.
    PlansWithout(const GraphFile& file, const AllocatorProfile& profile, PlanRun earlier = {});
    std::vector<std::size_t> buffer_sizes_without(TensorId tensor);

private:
    const GraphFile* file_;
    const AllocatorProfile* profile_;
    PlanRun run_;  // the copy, with the last plan made on it
};

// buffer_sizes_without for each of `tensors`, in their order. The plans are independent, so
// with two cores or more a second thread makes every other one, on a working copy of its own:
// they are most of `why` (seven plans of the whole graph), and the answers do not depend on
// which thread made them. `earlier` as for PlansWithout: the first thread takes it.
std::vector<std::vector<std::size_t>> buffer_sizes_without_each(const GraphFile& file, const AllocatorProfile& profile,
                                                                std::span<const TensorId> tensors, PlanRun earlier = {});

struct TensorMove {
    std::string name;
    std::optional<Placement> before;  // absent: no memory in plan A
    std::optional<Placement> after;   // absent: no memory in plan B
};

struct PlanDiff {
    std::vector<std::size_t> sizes_before;  // per buffer id
    std::vector<std::size_t> sizes_after;
    std::vector<std::vector<std::size_t>> chunks_before;
    std::vector<std::vector<std::size_t>> chunks_after;
    std::vector<TensorMove> moved;  // tensors whose place differs, in plan A's order then B's
    std::size_t unchanged = 0;      // tensors at the same place in both
};

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after);

// Why two plans of one graph under two ggml versions differ: the upstream changes between
// the two profiles, replayed one at a time on the graph (oldest first), that changed its
// plan, each with what it did here. Empty when both profiles are the same state, and when
// either is a policy (no upstream history joins them: rule_differences says what differs).
struct RuleEffect {
    const RuleChange* change = nullptr;
    std::string effect;  // "buffer 0 8256 -> 7232 bytes; Vcur-0 (clamp) takes Vcur-0's memory"
};
std::vector<RuleEffect> version_rule_changes(const GraphFile& file, const AllocatorProfile& a, const AllocatorProfile& b);
// "254ea3e5 (llama.cpp #15815), 2025-09-24: a buffer type's plan is split …"
std::string describe_rule_change(const RuleChange& change);

} // namespace gallocsim
