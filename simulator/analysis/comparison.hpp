#pragma once
// ggml's plan next to the alternatives, per buffer type: the bounds, every planner of the
// registry on the blocks ggml's in-place decisions leave, and the checker's verdicts.
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/in_place_bound.hpp"
#include "simulator/analysis/planners.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace gallocsim {

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

} // namespace gallocsim
