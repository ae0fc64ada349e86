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
// - exact: branch and bound over placements, for small problems; says whether it proved
//   its answer optimal within the limits.

#include "simulator/analysis/analysis.hpp"
#include "simulator/analysis/checker.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

struct ArenaPlan {
    std::vector<std::size_t> offsets;  // one per block of the problem, in its order
    std::size_t size = 0;              // highest block end
};

ArenaPlan plan_greedy_by_size(const ArenaProblem& problem);
ArenaPlan plan_first_fit(const ArenaProblem& problem);

struct ExactLimits {
    std::size_t max_blocks = 30;  // larger problems are not searched
    std::chrono::milliseconds time_limit{2000};
    std::uint64_t node_limit = 50'000'000;  // search nodes; deterministic, unlike time
};

struct ExactResult {
    bool attempted = false;       // false: the problem has more than max_blocks blocks
    bool proved_optimal = false;  // the search finished, or the plan meets the lower bound
    std::uint64_t nodes = 0;      // search nodes visited
    ArenaPlan plan;               // best found (greedy by size's when nothing better)
};

ExactResult plan_exact(const ArenaProblem& problem, const ExactLimits& limits = {});

// What a planner of the registry made of one problem, with a note for people ("optimal",
// "not searched: 964 blocks, more than 30"), so every view words it the same way.
struct PlannerOutcome {
    ArenaPlan plan;
    bool proved_optimal = false;
    std::string note;
};

// The alternatives to ggml's allocator that compare, render, why and the GUI offer, in the
// order they are shown. A new planner is one function and one line in planners.cpp.
struct Planner {
    std::string_view key;          // as --planner takes it: "greedy"
    std::string_view title;        // in tables: "greedy by size"
    std::string_view description;  // one sentence for tooltips and help
    PlannerOutcome (*run)(const ArenaProblem& problem, const ExactLimits& limits);
};

std::span<const Planner> planners();
// What every planner of the registry makes of one problem, in the registry's order, as each one's
// run would; greedy by size's plan is made once, for itself and as the exact search's start.
std::vector<PlannerOutcome> run_every_planner(const ArenaProblem& problem, const ExactLimits& limits);
const Planner* find_planner(std::string_view key);  // nullptr when no planner has the key
std::string planner_keys();                          // "greedy, first-fit or exact"

// The plan as the checker sees it: one buffer, one chunk as large as the plan.
PlanToCheck arena_plan_to_check(const ArenaProblem& problem, const ArenaPlan& plan);

} // namespace gallocsim
