#include "simulator/analysis/planners.hpp"

#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <numeric>

namespace gallocsim {

namespace {

std::size_t alignment_of(const LiveBlock& block) { return std::max<std::size_t>(block.alignment, 1); }

// Which placed blocks live at some step of a range: a segment tree over the steps, each
// block kept in the O(log steps) nodes that cover its lifetime exactly. A query visits the
// nodes that meet its range, so it costs about its length plus what it finds, not a pass
// over every placed block (which made the planners quadratic on big graphs).
class LifetimeIndex {
public:
    LifetimeIndex(int steps, std::size_t blocks) : seen_(blocks, 0) {
        while (leaves_ < steps) {
            leaves_ *= 2;
        }
        nodes_.resize(2 * static_cast<std::size_t>(leaves_));
    }

    void insert(std::size_t block, int first, int last) {
        for (int lo = first + leaves_, hi = last + leaves_ + 1; lo < hi; lo /= 2, hi /= 2) {
            if (lo % 2 == 1) {
                nodes_[static_cast<std::size_t>(lo++)].push_back(block);
            }
            if (hi % 2 == 1) {
                nodes_[static_cast<std::size_t>(--hi)].push_back(block);
            }
        }
    }

    // Every block inserted that lives at some step of [first, last], once each.
    void living_in(int first, int last, std::vector<std::size_t>& out) {
        out.clear();
        ++query_;
        visit(1, 0, leaves_ - 1, first, last, out);
    }

private:
    void visit(int node, int lo, int hi, int first, int last, std::vector<std::size_t>& out) {
        if (hi < first || last < lo) {
            return;
        }
        for (std::size_t block : nodes_[static_cast<std::size_t>(node)]) {
            if (seen_[block] != query_) {
                seen_[block] = query_;
                out.push_back(block);
            }
        }
        if (lo != hi) {
            const int mid = lo + (hi - lo) / 2;
            visit(2 * node, lo, mid, first, last, out);
            visit(2 * node + 1, mid + 1, hi, first, last, out);
        }
    }

    int leaves_ = 1;
    std::vector<std::vector<std::size_t>> nodes_;
    std::vector<std::uint64_t> seen_;  // the last query that reported each block
    std::uint64_t query_ = 0;
};

// The distinct steps where blocks begin or end, in order: the index counts these, so steps
// far apart (a MiniMalloc file's times) cost no more than steps next to each other.
std::vector<int> step_marks(const ArenaProblem& problem) {
    std::vector<int> marks;
    for (const LiveBlock& block : problem.blocks) {
        marks.push_back(block.first);
        marks.push_back(block.last);
    }
    std::ranges::sort(marks);
    marks.erase(std::unique(marks.begin(), marks.end()), marks.end());
    return marks;
}

// Blocks already placed; the ones living with a block are read off in offset order (ties in
// the order they were placed), so gaps can be read off left to right.
class PlacedBlocks {
public:
    explicit PlacedBlocks(const ArenaProblem& problem)
        : problem_(problem), offsets_(problem.blocks.size(), 0), placed_at_(problem.blocks.size(), 0),
          marks_(step_marks(problem)), index_(static_cast<int>(std::max<std::size_t>(marks_.size(), 1)), problem.blocks.size()) {}

    // The gaps below, between and above the placed blocks that live with `block`, in
    // address order: calls visit(start, room) until it returns true; room is SIZE_MAX
    // above the last block.
    template <typename Visit>
    std::size_t scan_gaps(std::size_t block, Visit&& visit) {
        const LiveBlock& b = problem_.blocks[block];
        index_.living_in(mark(b.first), mark(b.last), neighbours_);
        std::ranges::sort(neighbours_, {}, [&](std::size_t i) { return std::pair(offsets_[i], placed_at_[i]); });
        std::size_t below = 0;  // end of the placed blocks seen so far
        for (std::size_t other : neighbours_) {
            const std::size_t start = align_up(below, alignment_of(b));
            if (offsets_[other] >= start && visit(start, offsets_[other] - start)) {
                return start;
            }
            below = std::max(below, offsets_[other] + block_bytes(problem_.blocks[other]));
        }
        const std::size_t start = align_up(below, alignment_of(b));
        visit(start, SIZE_MAX);
        return start;
    }

    void place(std::size_t block, std::size_t offset) {
        offsets_[block] = offset;
        placed_at_[block] = placed_++;
        index_.insert(block, mark(problem_.blocks[block].first), mark(problem_.blocks[block].last));
    }

    ArenaPlan plan() const { return {offsets_, arena_height(problem_.blocks, offsets_)}; }

private:
    int mark(int step) const { return static_cast<int>(std::ranges::lower_bound(marks_, step) - marks_.begin()); }

    const ArenaProblem& problem_;
    std::vector<std::size_t> offsets_;
    std::vector<std::size_t> placed_at_;  // the order blocks were placed in
    std::vector<int> marks_;
    std::size_t placed_ = 0;
    LifetimeIndex index_;
    std::vector<std::size_t> neighbours_;  // scan_gaps' working list
};

std::vector<std::size_t> indices(const ArenaProblem& problem) {
    std::vector<std::size_t> order(problem.blocks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    return order;
}

} // namespace

ArenaPlan plan_greedy_by_size(const ArenaProblem& problem) {
    std::vector<std::size_t> order = indices(problem);
    std::ranges::stable_sort(order, std::greater{}, [&](std::size_t i) { return block_bytes(problem.blocks[i]); });
    PlacedBlocks placement(problem);
    for (std::size_t block : order) {
        const std::size_t size = block_bytes(problem.blocks[block]);
        if (size == 0) {
            continue;  // empty blocks stay at 0: they touch no byte
        }
        // Best fit: the smallest gap that holds the block; above everything if none does.
        std::size_t best_start = SIZE_MAX, best_room = SIZE_MAX;
        const std::size_t top = placement.scan_gaps(block, [&](std::size_t start, std::size_t room) {
            if (room != SIZE_MAX && room >= size && room < best_room) {
                best_start = start;
                best_room = room;
            }
            return false;
        });
        placement.place(block, best_start != SIZE_MAX ? best_start : top);
    }
    return placement.plan();
}

ArenaPlan plan_first_fit(const ArenaProblem& problem) {
    std::vector<std::size_t> order = indices(problem);
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return problem.blocks[i].first; });
    PlacedBlocks placement(problem);
    for (std::size_t block : order) {
        const std::size_t size = block_bytes(problem.blocks[block]);
        if (size == 0) {
            continue;
        }
        placement.place(block, placement.scan_gaps(block, [&](std::size_t, std::size_t room) { return room >= size; }));
    }
    return placement.plan();
}

namespace {

const ArenaPlan& better(const ArenaPlan& a, const ArenaPlan& b) { return b.size < a.size ? b : a; }

// plan_exact from the heuristics' plans of the problem, made already.
ExactResult plan_exact_from(const ArenaProblem& problem, const ExactLimits& limits, const ArenaPlan& greedy,
                            const ArenaPlan& first_fit) {
    return find_optimum(problem, better(greedy, first_fit), limits);
}

} // namespace

std::string gap_text(std::size_t best, std::size_t bound) {
    if (bound == 0) {
        return "an unknown share";
    }
    const auto tenths = static_cast<std::uint64_t>(
        std::ceil(1000.0 * static_cast<double>(best - bound) / static_cast<double>(bound) - 1e-9));
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " %";
}

ExactResult plan_exact(const ArenaProblem& problem, const ExactLimits& limits) {
    return plan_exact_from(problem, limits, plan_greedy_by_size(problem), plan_first_fit(problem));
}

std::string exact_note(const ExactResult& exact, const ExactLimits& limits) {
    if (exact.proved_optimal()) {
        if (!exact.bound_by_search()) {
            return "optimal (proven: it meets the peak of live bytes)";
        }
        return "optimal (proven: a search found no plan in " + std::to_string(exact.no_plan_within) +
               " bytes)";
    }
    std::string stopped;
    switch (exact.stop) {
    case ExactStop::time_limit: {
        const double seconds = std::chrono::duration<double>(limits.time_limit).count();
        char text[32];
        std::snprintf(text, sizeof text, "%g", seconds);
        stopped = "stopped by the " + std::string(text) + " s time limit";
        break;
    }
    case ExactStop::node_limit: stopped = "stopped after " + std::to_string(exact.nodes) + " search nodes"; break;
    case ExactStop::cancelled: stopped = "cancelled"; break;
    case ExactStop::finished: stopped = "finished"; break;
    }
    return "best found, at most " + gap_text(exact.plan.size, exact.lower_bound) + " above the optimum (" + stopped +
           "; bound: " + (exact.bound_by_search() ? "raised by search" : "the peak of live bytes") + ")";
}

PlanToCheck arena_plan_to_check(const ArenaProblem& problem, const ArenaPlan& plan) {
    PlanToCheck check;
    for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
        const LiveBlock& block = problem.blocks[i];
        check.tensors.push_back({block.name, block.first, block.last, block_bytes(block), alignment_of(block)});
        check.placements.push_back({i, 0, 0, plan.offsets.at(i)});
    }
    // Sizes are taken as they are (a graph's are already rounded up); each block keeps its alignment.
    check.buffers.push_back({problem.name, 1, SIZE_MAX, {plan.size}, 1});
    return check;
}

namespace {

PlannerOutcome greedy_outcome(const ArenaProblem& problem, const ExactLimits&) {
    return {plan_greedy_by_size(problem), false, ""};
}

PlannerOutcome first_fit_outcome(const ArenaProblem& problem, const ExactLimits&) {
    return {plan_first_fit(problem), false, ""};
}

PlannerOutcome exact_outcome_from(const ArenaProblem& problem, const ExactLimits& limits, const ArenaPlan& greedy,
                                  const ArenaPlan& first_fit) {
    ExactResult exact = plan_exact_from(problem, limits, greedy, first_fit);
    std::string note = exact_note(exact, limits);
    return {std::move(exact.plan), exact.proved_optimal(), std::move(note), exact.lower_bound};
}

PlannerOutcome exact_outcome(const ArenaProblem& problem, const ExactLimits& limits) {
    return exact_outcome_from(problem, limits, plan_greedy_by_size(problem), plan_first_fit(problem));
}

constexpr std::array kPlanners{
    Planner{PlannerKind::greedy_by_size, "greedy", "greedy by size",
            "TensorFlow Lite's planner: largest blocks first, each in the tightest gap (Pisarchyk & Lee 2020)", greedy_outcome},
    Planner{PlannerKind::first_fit, "first-fit", "first fit, execution order",
            "blocks in execution order, each at the lowest offset that fits", first_fit_outcome},
    Planner{PlannerKind::exact, "exact", "exact search",
            "the smallest arena, proven, or the best plan found within the time limit and its gap", exact_outcome},
};

} // namespace

std::span<const Planner> planners() {
    return kPlanners;
}

std::vector<PlannerOutcome> run_every_planner(const ArenaProblem& problem, const ExactLimits& limits) {
    // The heuristics' plans are made once, for themselves and as the exact search's start.
    const ArenaPlan greedy = plan_greedy_by_size(problem);
    const ArenaPlan first_fit = plan_first_fit(problem);
    std::vector<PlannerOutcome> outcomes;
    for (const Planner& planner : kPlanners) {
        switch (planner.kind) {
        case PlannerKind::greedy_by_size: outcomes.push_back({greedy, false, ""}); break;
        case PlannerKind::first_fit: outcomes.push_back({first_fit, false, ""}); break;
        case PlannerKind::exact: outcomes.push_back(exact_outcome_from(problem, limits, greedy, first_fit)); break;
        }
    }
    return outcomes;
}

const Planner* find_planner(std::string_view key) {
    const auto it = std::ranges::find(kPlanners, key, &Planner::key);
    return it == kPlanners.end() ? nullptr : &*it;
}

const Planner& planner(PlannerKind kind) {
    return *std::ranges::find(kPlanners, kind, &Planner::kind);  // every kind has its planner
}

std::string planner_keys() {
    std::string text;
    for (std::size_t i = 0; i < kPlanners.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == kPlanners.size() ? " or " : ", ") + std::string(kPlanners[i].key);
    }
    return text;
}

} // namespace gallocsim
