// Property 9: the step engine (simulator/trace, state, cursor) against the allocator it
// records. The engine rebuilds every state from events alone; if replay drifted from what
// the allocator did, every picture and explanation drawn from it would be wrong.
#include "fuzz/counterexample.hpp"
#include "fuzz/property_support.hpp"
#include "simulator/trace/cursor.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

namespace gallocsim::fuzz {
namespace {

struct Recorded {
    PlanRun run;
    std::shared_ptr<const Trace> trace;
};

Recorded record(const GraphFile& file) {
    Recorded recorded{prepare_plan(file), nullptr};
    TraceRecorder recorder(file, recorded.run.planned);
    carry_out_plan(recorded.run, &recorder);
    recorded.trace = std::make_shared<const Trace>(recorder.take(recorded.run.error));
    return recorded;
}

// Replaying the whole trace ends where the allocator ended: every tensor where
// alloc_graph put it, every allocator's free lists and high-water marks as the
// allocator's own, every buffer's chunks as allocated.
RC_GTEST_PROP(Trace, ReplayEndsWithTheAllocatorsState, ()) {
    Generated g = generate();
    const auto interval = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(1, 100));
    keeping_counterexample("trace-replay", g.json, [&] {
        const Recorded recorded = record(g.file);
        Cursor cursor(recorded.trace, interval);
        cursor.last();
        const SimState& end = cursor.state();
        RC_ASSERT(end == replay(*recorded.trace, recorded.trace->size()));
        const GraphAllocator& allocator = *recorded.run.allocator;
        const auto& tensors = recorded.run.planned.context.tensors();
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            RC_ASSERT(end.tensor(static_cast<TensorId>(i)).placement == allocator.locate(tensors[i]));
        }
        const std::vector<int> ids = recorded.trace->allocator_buffer_ids();
        RC_ASSERT(end.allocators.size() == ids.size());
        for (std::size_t a = 0; a < ids.size(); ++a) {
            RC_ASSERT(end.allocators[a].chunks == allocator.allocator(ids[a]).chunks());
            if (recorded.run.plan.reserve) {
                RC_ASSERT(end.allocators[a].buffer == std::optional(allocator.chunk_sizes(ids[a])));
            }
        }
    });
}

// Stepping k events forward and k back returns to exactly the same state, and any
// position reached by stepping is the state a jump there (from a checkpoint) gives.
RC_GTEST_PROP(Trace, StepsForwardThenBackRestoreTheState, ()) {
    Generated g = generate();
    const auto interval = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(1, 100));
    const auto start_fraction = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 101));
    const auto steps = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(0, 300));
    keeping_counterexample("trace-steps", g.json, [&] {
        const Recorded recorded = record(g.file);
        Cursor cursor(recorded.trace, interval);
        const std::size_t start = cursor.size() * static_cast<std::size_t>(start_fraction) / 100;
        const std::size_t k = std::min(steps, cursor.size() - start);
        cursor.jump(start);
        const SimState before = cursor.state();
        for (std::size_t i = 0; i < k; ++i) {
            RC_ASSERT(cursor.step_forward());
        }
        RC_ASSERT(cursor.position() == start + k);
        RC_ASSERT(cursor.state() == cursor.state_at(start + k));
        for (std::size_t i = 0; i < k; ++i) {
            RC_ASSERT(cursor.step_back());
        }
        RC_ASSERT(cursor.position() == start);
        RC_ASSERT(cursor.state() == before);
    });
}

} // namespace
} // namespace gallocsim::fuzz
