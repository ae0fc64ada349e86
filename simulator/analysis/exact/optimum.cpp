#include "simulator/analysis/exact/optimum.hpp"

#include "simulator/analysis/exact/fit_search.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

namespace gallocsim {

std::size_t plan_granule(const ArenaProblem& problem) {
    std::size_t granule = 0;
    for (const LiveBlock& block : problem.blocks) {
        if (block_bytes(block) > 0) {
            granule = std::gcd(granule, block_bytes(block));
            if (block.alignment > 1) {
                granule = std::gcd(granule, block.alignment);
            }
        }
    }
    return std::max<std::size_t>(granule, 1);
}

namespace {

using Clock = std::chrono::steady_clock;

std::size_t round_up(std::size_t bytes, std::size_t granule) {
    return bytes % granule == 0 ? bytes : bytes + (granule - bytes % granule);
}

class OptimumSearch {
public:
    OptimumSearch(const ArenaProblem& problem, ArenaPlan start, const ExactLimits& limits)
        : problem_(problem), limits_(limits), granule_(plan_granule(problem)), started_(Clock::now()),
          deadline_(started_ + limits.time_limit) {
        result_.plan = std::move(start);
        result_.lower_bound = round_up(lower_bound(problem.blocks).bytes, granule_);
    }

    ExactResult run() {
        if (result_.proved_optimal()) {
            return finish();  // the start meets the bound (most graphs): no sweep, no search
        }
        instance_ = exact::make_instance(problem_);
        // Searches start small: most capacities are settled in a few thousand nodes, and a
        // search that is stuck on one order of ties often is not on another.
        std::uint64_t budget = 1000 + 8 * instance_.blocks.size();
        for (std::size_t round = 0; !result_.proved_optimal(); ++round, budget *= 2) {
            // At the bound first, in every order of ties: a plan there ends the search.
            for (const exact::Preorder order : kOrders) {
                if (!try_capacity(result_.lower_bound, order, budget)) {
                    return finish();
                }
            }
            // Then up a ladder from halfway towards the best plan (halfway, three quarters, …, one
            // granule below it): the first rung that holds a plan lowers the best, and the rungs
            // above it are then out of range. Low rungs are hard when the optimum is far above
            // the bound, high ones easy, so each round lowers the best by some amount.
            const exact::Preorder order = kOrders[round % kOrders.size()];
            for (const std::size_t capacity : ladder()) {
                if (!try_capacity(capacity, order, budget)) {
                    return finish();
                }
            }
        }
        return finish();
    }

private:
    static constexpr std::array kOrders{exact::Preorder::width_area_contention, exact::Preorder::contention_area_width,
                                        exact::Preorder::contention_width_area};

    std::vector<std::size_t> ladder() const {
        std::vector<std::size_t> rungs;
        const std::size_t bound = result_.lower_bound, best = result_.plan.size;
        for (std::size_t gap = (best - bound) / 2; gap > 0; gap /= 2) {
            const std::size_t rung = (best - gap) / granule_ * granule_;
            if (rung > bound && (rungs.empty() || rung > rungs.back())) {
                rungs.push_back(rung);
            }
        }
        if (best - granule_ > bound && (rungs.empty() || rungs.back() < best - granule_)) {
            rungs.push_back(best - granule_);
        }
        return rungs;
    }

    // One search; false when a limit stops the whole optimisation. A capacity outside what is
    // still open (at or above the best plan, below the bound) is not searched.
    bool try_capacity(std::size_t capacity, exact::Preorder order, std::uint64_t budget) {
        if (result_.proved_optimal() || capacity < result_.lower_bound || capacity >= result_.plan.size) {
            return true;
        }
        exact::Budget search_budget{budget, deadline_, limits_.stop};
        if (limits_.node_limit != 0) {
            if (result_.nodes >= limits_.node_limit) {
                result_.stop = ExactStop::node_limit;
                return false;
            }
            search_budget.node_limit = std::min(budget, limits_.node_limit - result_.nodes);
        }
        report(capacity, result_.nodes);
        if (limits_.progress) {
            search_budget.every_1024_nodes = [this, capacity](std::uint64_t nodes) { report(capacity, result_.nodes + nodes); };
        }
        const exact::FitResult found = exact::search_fit(instance_, capacity, order, search_budget);
        result_.nodes += found.nodes;
        switch (found.answer) {
        case exact::Answer::fits:
            take(found);
            return true;
        case exact::Answer::cannot_fit:
            result_.lower_bound = capacity + granule_;
            result_.no_plan_within = capacity;
            return true;
        case exact::Answer::stopped:
            break;
        }
        if (found.cancelled) {
            result_.stop = ExactStop::cancelled;
            return false;
        }
        if (Clock::now() >= deadline_) {
            result_.stop = ExactStop::time_limit;
            return false;
        }
        if (limits_.node_limit != 0 && result_.nodes >= limits_.node_limit) {
            result_.stop = ExactStop::node_limit;
            return false;
        }
        return true;  // only this search's budget ran out
    }

    void take(const exact::FitResult& found) {
        ArenaPlan plan;
        plan.offsets.assign(problem_.blocks.size(), 0);
        for (std::size_t b = 0; b < found.offsets.size(); ++b) {
            plan.offsets[instance_.index_in_problem[b]] = found.offsets[b];
        }
        plan.size = found.height;
        result_.plan = std::move(plan);
    }

    void report(std::size_t capacity, std::uint64_t nodes) {
        if (!limits_.progress) {
            return;
        }
        const Clock::time_point now = Clock::now();
        if (now - last_report_ >= std::chrono::milliseconds(100)) {
            last_report_ = now;
            limits_.progress({result_.plan.size, result_.lower_bound, capacity, nodes, now - started_});
        }
    }

    ExactResult finish() {
        result_.elapsed = Clock::now() - started_;
        if (result_.proved_optimal()) {
            result_.stop = ExactStop::finished;
        }
        return std::move(result_);
    }

    const ArenaProblem& problem_;
    const ExactLimits& limits_;
    exact::Instance instance_;  // made when a search is needed
    std::size_t granule_;
    Clock::time_point started_, deadline_;
    Clock::time_point last_report_ = Clock::now();  // the first report comes after 0.1 s: short searches make none
    ExactResult result_;
};

} // namespace

ExactResult find_optimum(const ArenaProblem& problem, ArenaPlan start, const ExactLimits& limits) {
    return OptimumSearch(problem, std::move(start), limits).run();
}

} // namespace gallocsim
