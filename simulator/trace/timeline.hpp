#pragma once
// The timeline of a trace: the stretches during which each tensor holds memory (where,
// how many aligned bytes, from when to when), read off the trace's events once. The SVG
// render and the GUI's timeline, memory map and tooltips all draw from it, so they agree
// tensor by tensor.
//
// A stretch is measured on both axes of time (see `gallocsim --help`):
// - events: positions count events applied, as the cursor's do. A span given memory by
//   event e and losing it by event f is live at positions e + 1 .. f.
// - node steps: step 0 before the first node runs (leafs, inputs), step i while nodes[i-1]
//   runs. A span is live during node step s when it holds memory at any moment of it: a
//   node's parents are live at its step together with it, as ggml frees them after it.
//
// A trace that places tensors without a plan of its own (an alloc_graph that kept a plan
// made on another graph: capture_replay's trace_call) has a span per placed tensor, from its
// placement (TensorInitialised) to the end, its ggml_nbytes aligned: where the call's tensors
// went, though not how long each needed its bytes (the plan that knew it is not in the trace).
//
// A trace normally holds one plan. When it holds several (a replanning alloc_graph), the
// spans of a plan end where the next plan starts, and the node-step axis runs through the
// plans one after another (plan k's step s at k * (node_count + 1) + s).

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gallocsim {

// The two axes of time, for whoever draws a timeline.
enum class TimeAxis { node_steps, events };

enum class SpanEnd {
    freed,        // went back to the free list
    handed_over,  // a node took the memory over in place
    replanned,    // a later plan of the trace started afresh
    kept,         // still held at the end of the trace (outputs, unreleased tensors)
};

struct MemorySpan {
    TensorId tensor = kNoTensor;
    int buffer_id = 0;
    int allocator = 0;
    BufferAddress address;
    std::size_t size = 0;     // aligned bytes
    std::size_t first = 0;    // first position where it is live
    std::size_t end = 0;      // first position where it is not (trace size + 1 when kept)
    std::size_t first_step = 0;  // first node step (on the whole trace's step axis) it is live in
    std::size_t last_step = 0;   // last node step it is live in (inclusive)
    std::size_t plan = 0;        // which plan of the trace made it (0 = the first)
    SpanEnd how_it_ends = SpanEnd::kept;
    TensorId in_place_of = kNoTensor;  // the parent whose memory it took over

    bool live_at(std::size_t position) const { return first <= position && position < end; }
};

// One chunk of an allocator, as large as it ever gets in the trace.
struct ChunkExtent {
    int allocator = 0;
    int chunk = 0;
    std::size_t size = 0;  // the highest high-water mark the trace reaches
};

class Timeline {
public:
    Timeline() = default;
    explicit Timeline(const Trace& trace);

    const std::vector<MemorySpan>& spans() const { return spans_; }
    // The span of `tensor` live at `position`, or else its latest one before it.
    const MemorySpan* span_at(TensorId tensor, std::size_t position) const;
    // Every span of a tensor (a tensor normally has one).
    std::vector<const MemorySpan*> spans_of(TensorId tensor) const;
    const std::vector<ChunkExtent>& chunks() const { return chunks_; }
    std::size_t chunk_size(int allocator, int chunk) const;
    // The event that gave the tensor memory first (its TensorAllocated or InPlaceReused).
    std::optional<std::size_t> placing_event(TensorId tensor) const;

    // Whether the trace holds a plan; false for one that only places (its spans start at
    // placements and say nothing of lifetimes).
    bool has_plan() const { return !plan_starts_.empty(); }

    // --- The node-step axis --------------------------------------------------------
    std::size_t plan_count() const { return plan_starts_.empty() ? 1 : plan_starts_.size(); }
    std::size_t steps_per_plan() const { return steps_per_plan_; }  // node_count + 1
    std::size_t step_count() const { return steps_per_plan_ * plan_count(); }
    // The event that starts the trace's last plan (0 when there is no PlanStarted).
    std::size_t last_plan_start() const { return plan_starts_.empty() ? 0 : plan_starts_.back(); }
    // The node step an event belongs to, on the whole trace's step axis.
    std::size_t step_of_event(std::size_t event) const { return event_steps_.at(event); }
    // Where a cursor position lies on the step axis, as a number: the step of the last
    // event applied plus the share of that step's events applied so far (0 at the start).
    double step_coordinate(std::size_t position) const;
    // The cursor position once every event of `step` (on the axis) has been applied.
    std::size_t position_after_step(std::size_t step) const;
    // The same for node step `step` (0 .. node_count) of the trace's last plan.
    std::size_t position_after_node_step(std::size_t step) const {
        return position_after_step((plan_count() - 1) * steps_per_plan_ + step);
    }
    // The step within its plan (0 .. node_count) and the plan, of a step on the axis.
    std::size_t step_in_plan(std::size_t step) const { return step % steps_per_plan_; }
    std::size_t plan_of_step(std::size_t step) const { return step / steps_per_plan_; }

private:
    std::vector<MemorySpan> spans_;
    std::vector<std::vector<std::size_t>> by_tensor_;  // span indices per tensor
    std::vector<ChunkExtent> chunks_;
    std::vector<std::size_t> plan_starts_;  // events that start a plan
    std::vector<std::size_t> event_steps_;  // per event, its step on the axis
    std::size_t steps_per_plan_ = 1;
};

} // namespace gallocsim
