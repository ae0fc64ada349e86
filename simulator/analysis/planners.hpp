#pragma once
// Other ways to place the same live blocks, for comparison with ggml's allocator. Each
// planner lays an ArenaProblem out in one arena (no chunks, no max size, no in-place
// reuse) and the arena's size is the highest end of any block.
//
// - greedy by size: TensorFlow Lite's GPU delegate (Pisarchyk & Lee 2020, "greedy by
//   size"): largest blocks first, each in the tightest gap between already placed blocks
//   that live at the same time, else above them.
// - first fit in execution order: blocks by first step, each at the lowest offset that
//   fits among the placed blocks it lives with (an online allocator that knows when
//   every block dies).
// - exact: the smallest arena (exact/), proven, or the best plan found within the limits
//   and how far above the smallest it can be.

#include "simulator/analysis/analysis.hpp"
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/exact/optimum.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

ArenaPlan plan_greedy_by_size(const ArenaProblem& problem);
ArenaPlan plan_first_fit(const ArenaProblem& problem);

// The smallest arena, or the best plan found within the limits and the proven bound beside it
// (exact/optimum.hpp), starting from the better of greedy by size and first fit.
ExactResult plan_exact(const ArenaProblem& problem, const ExactLimits& limits = {});

// What a planner of the registry made of one problem, with a note for people ("optimal
// (proven: …)", "best found, at most 6.3 % above the optimum (…)"), so every view words it the
// same way.
struct PlannerOutcome {
    ArenaPlan plan;
    bool proved_optimal = false;
    std::string note;
    std::size_t lower_bound = 0;  // the exact planner's proven bound on the optimum; 0 for heuristics
};

// "6.3 %": how far `best` is above `bound`, rounded up to a tenth of a percent, so it never
// claims less than it is.
std::string gap_text(std::size_t best, std::size_t bound);
// The note of an exact result, as every view gives it.
std::string exact_note(const ExactResult& exact, const ExactLimits& limits);

// The alternatives to ggml's allocator that compare, render, why and the GUI offer, in the
// order they are shown. A new planner is one function, one kind and one line in planners.cpp.
enum class PlannerKind {
    greedy_by_size,
    first_fit,
    exact,  // started from the heuristics' plans: never above them, and it says how good it is
};

struct Planner {
    PlannerKind kind;
    std::string_view key;          // as --planner takes it: "greedy"
    std::string_view title;        // in tables: "greedy by size"
    std::string_view description;  // one sentence for tooltips and help
    PlannerOutcome (*run)(const ArenaProblem& problem, const ExactLimits& limits);
};

std::span<const Planner> planners();
// What every planner of the registry makes of one problem, in the registry's order, as each one's
// run would; greedy by size's plan is made once, for itself and as the exact search's start.
std::vector<PlannerOutcome> run_every_planner(const ArenaProblem& problem, const ExactLimits& limits);
const Planner* find_planner(std::string_view key);  // nullptr when no planner has the key (--planner)
const Planner& planner(PlannerKind kind);
std::string planner_keys();                          // "greedy, first-fit or exact"

// The plan as the checker sees it: one buffer, one chunk as large as the plan.
PlanToCheck arena_plan_to_check(const ArenaProblem& problem, const ArenaPlan& plan);

} // namespace gallocsim
