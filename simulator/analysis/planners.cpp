#include "simulator/analysis/planners.hpp"

#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <array>
#include <bit>
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

// Branch and bound over "gravity" placements: in some optimal plan every block sits as
// low as it can, and then, taken in order of offset, each block's offset is the aligned
// highest end of the blocks before it that it lives with. So the search picks which
// block comes next (offsets never decrease; equal offsets in index order) and its offset
// follows. A branch is cut when, at some step, the blocks still to place that live there
// cannot fit on top of what is placed below the best plan found.
class ExactSearch {
public:
    ExactSearch(const ArenaProblem& problem, const ExactLimits& limits) : problem_(problem), limits_(limits) {
        for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
            if (block_bytes(problem.blocks[i]) > 0) {
                blocks_.push_back(i);
            }
        }
        const std::size_t n = blocks_.size();
        lives_with_.assign(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                if (i != j && block(i).lives_with(block(j))) {
                    lives_with_[i] |= std::uint64_t{1} << j;
                }
            }
        }
        offsets_.assign(n, 0);
    }

    ExactResult run(ArenaPlan start) {
        ExactResult result;
        result.attempted = true;
        best_ = std::move(start);
        const std::size_t bound = lower_bound(problem_.blocks).bytes;
        deadline_ = std::chrono::steady_clock::now() + limits_.time_limit;
        if (best_.size > bound) {
            search(0, 0, -1, 0);
        }
        result.proved_optimal = !stopped_ || best_.size <= bound;
        result.nodes = nodes_;
        result.plan = std::move(best_);
        return result;
    }

private:
    const LiveBlock& block(std::size_t i) const { return problem_.blocks[blocks_[i]]; }

    bool out_of_budget() {
        if (nodes_ >= limits_.node_limit) {
            return true;
        }
        return nodes_ % 1024 == 0 && std::chrono::steady_clock::now() >= deadline_;
    }

    // Where block i would go now: above every placed block it lives with.
    std::size_t resting_offset(std::size_t i, std::uint64_t placed) const {
        std::size_t top = 0;
        for (std::uint64_t rest = placed & lives_with_[i]; rest != 0; rest &= rest - 1) {
            const auto j = static_cast<std::size_t>(std::countr_zero(rest));
            top = std::max(top, offsets_[j] + block_bytes(block(j)));
        }
        return align_up(top, alignment_of(block(i)));
    }

    // At each step where an unplaced block starts: the unplaced blocks live there sit,
    // disjoint, above the floor and above every placed block live there.
    std::size_t bound(std::uint64_t placed, std::size_t floor, std::size_t top) const {
        const std::size_t n = blocks_.size();
        for (std::size_t t = 0; t < n; ++t) {
            if (placed >> t & 1) {
                continue;
            }
            const int step = block(t).first;
            std::size_t base = floor;
            std::size_t stack = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (!block(i).live_at(step)) {
                    continue;
                }
                if (placed >> i & 1) {
                    base = std::max(base, offsets_[i] + block_bytes(block(i)));
                } else {
                    stack += block_bytes(block(i));
                }
            }
            top = std::max(top, base + stack);
        }
        return top;
    }

    void search(std::uint64_t placed, std::size_t floor, int last, std::size_t top) {
        if (!stopped_ && out_of_budget()) {
            stopped_ = true;
        }
        if (stopped_) {
            return;
        }
        ++nodes_;
        const std::size_t n = blocks_.size();
        if (static_cast<std::size_t>(std::popcount(placed)) == n) {
            if (top < best_.size) {
                best_.size = top;
                best_.offsets.assign(problem_.blocks.size(), 0);
                for (std::size_t i = 0; i < n; ++i) {
                    best_.offsets[blocks_[i]] = offsets_[i];
                }
            }
            return;
        }
        if (bound(placed, floor, top) >= best_.size) {
            return;
        }
        // Lowest candidates first, larger blocks first among equals: good plans come early.
        std::vector<std::pair<std::size_t, std::size_t>> candidates;  // (offset, block)
        for (std::size_t i = 0; i < n; ++i) {
            if (placed >> i & 1) {
                continue;
            }
            const std::size_t offset = resting_offset(i, placed);
            if (offset > floor || (offset == floor && static_cast<int>(i) > last)) {
                candidates.emplace_back(offset, i);
            }
        }
        std::ranges::sort(candidates, [&](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : block_bytes(block(a.second)) > block_bytes(block(b.second));
        });
        for (const auto& [offset, i] : candidates) {
            const std::size_t end = offset + block_bytes(block(i));
            if (end >= best_.size) {
                continue;
            }
            offsets_[i] = offset;
            search(placed | std::uint64_t{1} << i, offset, static_cast<int>(i), std::max(top, end));
            if (stopped_) {
                return;
            }
        }
    }

    const ArenaProblem& problem_;
    ExactLimits limits_;
    std::vector<std::size_t> blocks_;          // non-empty blocks (indices into the problem)
    std::vector<std::uint64_t> lives_with_;    // per block: bit j set when it lives with block j
    std::vector<std::size_t> offsets_;
    ArenaPlan best_;
    std::uint64_t nodes_ = 0;
    bool stopped_ = false;
    std::chrono::steady_clock::time_point deadline_;
};

} // namespace

namespace {

// plan_exact from greedy by size's plan of the problem, made already.
ExactResult plan_exact_from(const ArenaProblem& problem, const ExactLimits& limits, ArenaPlan start) {
    const auto non_empty = static_cast<std::size_t>(
        std::ranges::count_if(problem.blocks, [](const LiveBlock& b) { return block_bytes(b) > 0; }));
    // The search keeps "lives with" sets in 64-bit masks.
    if (non_empty > std::min<std::size_t>(limits.max_blocks, 64)) {
        ExactResult result;
        result.proved_optimal = start.size <= lower_bound(problem.blocks).bytes;
        result.plan = std::move(start);
        return result;
    }
    return ExactSearch(problem, limits).run(std::move(start));
}

} // namespace

ExactResult plan_exact(const ArenaProblem& problem, const ExactLimits& limits) {
    return plan_exact_from(problem, limits, plan_greedy_by_size(problem));
}

PlanToCheck arena_plan_to_check(const ArenaProblem& problem, const ArenaPlan& plan) {
    PlanToCheck check;
    for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
        const LiveBlock& block = problem.blocks[i];
        check.tensors.push_back({block.name, block.first, block.last, block_bytes(block), alignment_of(block)});
        check.placements.push_back({block.name, 0, 0, plan.offsets.at(i)});
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

PlannerOutcome exact_outcome_from(const ArenaProblem& problem, const ExactLimits& limits, ArenaPlan greedy) {
    ExactResult exact = plan_exact_from(problem, limits, std::move(greedy));
    std::string note;
    if (!exact.attempted) {
        const auto blocks = std::ranges::count_if(problem.blocks, [](const LiveBlock& b) { return block_bytes(b) > 0; });
        note = exact.proved_optimal ? "optimal: greedy by size meets the lower bound"
                                    : "not searched: " + std::to_string(blocks) + " blocks, more than " +
                                          std::to_string(std::min<std::size_t>(limits.max_blocks, 64)) +
                                          "; greedy by size's plan";
    } else {
        note = exact.proved_optimal ? "optimal" : "best found within the limits (" + std::to_string(exact.nodes) + " search nodes)";
    }
    return {std::move(exact.plan), exact.proved_optimal, std::move(note)};
}

PlannerOutcome exact_outcome(const ArenaProblem& problem, const ExactLimits& limits) {
    return exact_outcome_from(problem, limits, plan_greedy_by_size(problem));
}

constexpr std::array kPlanners{
    Planner{"greedy", "greedy by size",
            "TensorFlow Lite's planner: largest blocks first, each in the tightest gap (Pisarchyk & Lee 2020)", greedy_outcome},
    Planner{"first-fit", "first fit, execution order", "blocks in execution order, each at the lowest offset that fits",
            first_fit_outcome},
    Planner{"exact", "exact (branch and bound)", "a branch-and-bound search over placements, for small problems",
            exact_outcome},
};

} // namespace

std::span<const Planner> planners() {
    return kPlanners;
}

std::vector<PlannerOutcome> run_every_planner(const ArenaProblem& problem, const ExactLimits& limits) {
    const ArenaPlan greedy = plan_greedy_by_size(problem);  // greedy by size's plan, and the exact search's start
    std::vector<PlannerOutcome> outcomes;
    for (const Planner& planner : kPlanners) {
        if (planner.run == greedy_outcome) {
            outcomes.push_back({greedy, false, ""});
        } else if (planner.run == exact_outcome) {
            outcomes.push_back(exact_outcome_from(problem, limits, greedy));
        } else {
            outcomes.push_back(planner.run(problem, limits));
        }
    }
    return outcomes;
}

const Planner* find_planner(std::string_view key) {
    const auto it = std::ranges::find(kPlanners, key, &Planner::key);
    return it == kPlanners.end() ? nullptr : &*it;
}

std::string planner_keys() {
    std::string text;
    for (std::size_t i = 0; i < kPlanners.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == kPlanners.size() ? " or " : ", ") + std::string(kPlanners[i].key);
    }
    return text;
}

} // namespace gallocsim
