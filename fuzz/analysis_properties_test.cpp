// Properties 4 and 10, and a cross-check of two lifetime analyses, against the analysis
// tools (simulator/analysis*, planners*, checker*), which were written apart from the
// independent checks in fuzz/independent_checks.cpp.
#include "fuzz/counterexample.hpp"
#include "fuzz/independent_checks.hpp"
#include "fuzz/property_support.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_check.hpp"
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/in_place_bound.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

#include <algorithm>
#include <map>
#include <set>

namespace gallocsim::fuzz {
namespace {

// An input node can take a parent's memory in place while ggml still counts consumers;
// the parent then gets memory again when its next consumer runs, later than the oracle's
// birth (which knows one memory per tensor). Its lifetime is that of its final memory.
std::set<TensorId> parents_given_memory_again(const Trace& trace) {
    std::set<TensorId> parents;
    for (const TraceEvent& event : trace.events) {
        if (kind_of(event) == EventKind::node_started) {
            break;  // the counting pass is over
        }
        if (const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&event.data)) {
            parents.insert(reused->parent);
        }
    }
    return parents;
}

// The lifetimes the analysis tools read off ggml's plan (simulator/analysis: the trace's
// allocations, hand-overs and frees) and ggml's lifetime rule written apart for these
// properties (fuzz/independent_checks.cpp, from the graph alone) must agree on every tensor:
// every bound and planner comparison rests on them.
RC_GTEST_PROP(Analysis, LifetimesAgreeWithTheIndependentOnes, ()) {
    Generated g = generate();
    keeping_counterexample("lifetimes", g.json, [&] {
        const GgmlPlan ggml = run_ggml_plan(g.file);
        if (!planned(ggml.run)) {
            return;  // a plan that failed part way has lifetimes only as far as it got
        }
        const GraphLifetimes& analysis = ggml.lifetimes;
        // The independent checks read a graph as the allocator gets it: a working copy,
        // where outside memory shows as an address.
        const WorkingGraph planned = working_copy(g.file);
        const Lifetimes oracle(planned.graph);
        std::size_t placed = 0;
        for (const auto* list : {&planned.graph.leafs, &planned.graph.nodes}) {
            placed += static_cast<std::size_t>(std::ranges::count_if(*list, [](const Tensor* t) { return placed_by_allocator(*t); }));
        }
        RC_ASSERT(analysis.tensors.size() == placed);
        const std::set<TensorId> given_memory_again = parents_given_memory_again(ggml.trace);
        for (const TensorLifetime& lifetime : analysis.tensors) {
            const Lifetime* mine = oracle.find(planned.copy_of(g.file.context.tensors()[static_cast<std::size_t>(lifetime.tensor)]));
            RC_ASSERT(mine != nullptr);
            if (given_memory_again.contains(lifetime.tensor)) {
                RC_ASSERT(lifetime.first >= mine->birth);
            } else {
                RC_ASSERT(lifetime.first == mine->birth);
            }
            RC_ASSERT(lifetime.last == (mine->death == kNever ? analysis.step_count - 1 : mine->death));
        }
    });
}

// The blocks of each buffer type, with every in-place pair ggml used made one block: the
// parent's bytes carry on as the child's, so the pair needs its bytes once (the child
// may even sit in another buffer type, its parent's).
std::vector<ArenaProblem> merge_in_place(std::vector<ArenaProblem> problems, const GgmlPlan& ggml) {
    std::map<std::string, std::pair<std::size_t, std::size_t>> where;  // name -> (problem, block)
    for (std::size_t p = 0; p < problems.size(); ++p) {
        for (std::size_t b = 0; b < problems[p].blocks.size(); ++b) {
            where[problems[p].blocks[b].name] = {p, b};
        }
    }
    std::vector<std::pair<std::size_t, std::size_t>> merged_away;
    for (const InPlacePair& pair : ggml.in_place) {
        const std::string& child = ggml.trace.tensor(pair.node).name;
        const std::string& parent = ggml.trace.tensor(pair.parent).name;
        const auto [pp, pb] = where.at(parent);
        const auto [cp, cb] = where.at(child);
        LiveBlock& into = problems[pp].blocks[pb];
        const LiveBlock& from = problems[cp].blocks[cb];
        into.first = std::min(into.first, from.first);
        into.last = std::max(into.last, from.last);
        merged_away.emplace_back(cp, cb);
        where[child] = {pp, pb};  // a grandchild merges into the same block
    }
    std::ranges::sort(merged_away, std::greater{});
    for (const auto& [p, b] : merged_away) {
        problems[p].blocks.erase(problems[p].blocks.begin() + static_cast<std::ptrdiff_t>(b));
    }
    return problems;
}

// Property 4. Memory figures are only worth showing if they bracket the plan: no plan
// can keep the tensors live at one step in fewer bytes than they take together (here
// with ggml's in-place pairs sharing their bytes, which a plain peak would not allow),
// and ggml never needs more than giving every tensor its own bytes. Checked per buffer
// type; the ratio to the bound is classified.
RC_GTEST_PROP(Bounds, PlanSizeLiesBetweenLowerBoundAndNoReuse, ()) {
    // Input flags on op nodes make upstream allocate a leaf twice (see UpstreamQuirks).
    Generated g = generate({.inputs_on_op_nodes = false});
    keeping_counterexample("sandwich", g.json, [&] {
        const GgmlPlan ggml = run_ggml_plan(g.file);
        if (!planned(ggml.run)) {
            return;
        }
        const GraphLifetimes& lifetimes = ggml.lifetimes;
        const std::vector<ArenaProblem> problems = arena_problems(g.file, lifetimes);
        const std::vector<ArenaProblem> merged = merge_in_place(problems, ggml);
        const std::vector<ArenaProblem> product = in_place_arena_problems(g.file, lifetimes, ggml.in_place);
        double worst = 1.0;
        for (std::size_t type = 0; type < problems.size(); ++type) {
            const auto id = std::ranges::find(g.file.buffers, static_cast<int>(type)) - g.file.buffers.begin();
            if (id == static_cast<std::ptrdiff_t>(g.file.buffers.size())) {
                continue;  // a buffer type no buffer id uses
            }
            const std::size_t plan = ggml.run.plan.buffer_sizes[static_cast<std::size_t>(id)];
            const std::size_t bound = lower_bound(merged[type].blocks).bytes;
            const std::size_t no_reuse = no_reuse_size(problems[type].blocks);
            RC_ASSERT(bound <= plan);
            // The product's in-place-aware bound (analysis/in_place_bound), written apart from
            // merge_in_place above, agrees with it.
            RC_ASSERT(lower_bound(product[type].blocks).bytes == bound);
            RC_ASSERT(plan <= no_reuse);
            if (bound > 0) {
                worst = std::max(worst, static_cast<double>(plan) / static_cast<double>(bound));
            }
        }
        RC_CLASSIFY(worst == 1.0, "plan = bound");
        RC_CLASSIFY(worst > 1.0 && worst <= 1.25, "plan <= 1.25 x bound");
        RC_CLASSIFY(worst > 1.25 && worst <= 2.0, "plan <= 2 x bound");
        RC_CLASSIFY(worst > 2.0, "plan > 2 x bound");
    });
}

// Property 10. The alternative planners must give plans that hold (aligned, no two
// blocks live at the same step share a byte, by this oracle's lifetimes, and the plan's
// size is its highest block end) within the same bounds as ggml's, and the independent
// plan checker must agree. The exact planner is never worse than greedy by size, and
// when it proves its plan optimal it is never worse than first fit either.
RC_GTEST_PROP(Planners, AlternativePlansAreSoundAndWithinTheBounds, ()) {
    Generated g = generate();
    keeping_counterexample("planners", g.json, [&] {
        const GgmlPlan ggml = run_ggml_plan(g.file);
        if (!planned(ggml.run)) {
            return;  // the planners get the blocks of a plan that reached its end
        }
        const GraphLifetimes& lifetimes = ggml.lifetimes;
        const WorkingGraph planned = working_copy(g.file);
        const Lifetimes oracle(planned.graph);
        const std::set<TensorId> given_memory_again = parents_given_memory_again(ggml.trace);
        const auto span_of = [&](const LiveBlock& block) -> std::pair<int, int> {
            const Tensor& tensor = *planned.context.find(block.name);
            const Lifetime& l = oracle.at(tensor);
            const bool again = given_memory_again.contains(static_cast<TensorId>(tensor.index));
            return {again ? block.first : l.birth, l.death};
        };
        const ExactLimits limits{.time_limit = std::chrono::milliseconds(20), .node_limit = 20'000};
        bool proved = false;
        for (const ArenaProblem& problem : arena_problems(g.file, lifetimes)) {
            const std::size_t bound = lower_bound(problem.blocks).bytes;
            const std::size_t no_reuse = no_reuse_size(problem.blocks);
            const ArenaPlan greedy = plan_greedy_by_size(problem);
            const ArenaPlan first_fit = plan_first_fit(problem);
            const ExactResult exact = plan_exact(problem, limits);
            for (const ArenaPlan* plan : {&greedy, &first_fit, &exact.plan}) {
                RC_ASSERT(plan->offsets.size() == problem.blocks.size());
                std::size_t highest = 0;
                for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
                    const LiveBlock& a = problem.blocks[i];
                    const std::size_t at = plan->offsets[i];
                    RC_ASSERT(at % std::max<std::size_t>(a.alignment, 1) == 0);
                    highest = std::max(highest, a.size > 0 ? at + a.size : 0);
                    const auto [a_birth, a_death] = span_of(a);
                    for (std::size_t j = i + 1; j < problem.blocks.size(); ++j) {
                        const LiveBlock& b = problem.blocks[j];
                        const auto [b_birth, b_death] = span_of(b);
                        const bool both_live = a_birth <= b_death && b_birth <= a_death;
                        const std::size_t bt = plan->offsets[j];
                        const bool share = a.size > 0 && b.size > 0 && at < bt + b.size && bt < at + a.size;
                        RC_ASSERT(!(both_live && share));
                    }
                }
                RC_ASSERT(plan->size == highest);
                RC_ASSERT(bound <= plan->size);
                RC_ASSERT(plan->size <= no_reuse);
                RC_ASSERT(check_plan(arena_plan_to_check(problem, *plan)).empty());
            }
            RC_ASSERT(exact.plan.size <= greedy.size);
            RC_ASSERT(exact.plan.size <= first_fit.size);
            RC_ASSERT(bound <= exact.lower_bound && exact.lower_bound <= exact.plan.size);
            proved = proved || (exact.nodes > 0 && exact.proved_optimal());
        }
        RC_CLASSIFY(proved, "exact planner proved a plan optimal");
    });
}

} // namespace
} // namespace gallocsim::fuzz

namespace gallocsim::fuzz {
namespace {

// The checker finds overlaps by a sweep through time; by the definition, two tensors
// overlap when both have bytes, their byte ranges meet, their steps meet and they are not
// an allowed pair. Random small plans in one 256-byte chunk: the checker reports exactly the
// pairs that the definition, tried on every pair, gives.
RC_GTEST_PROP(Analysis, TheCheckerFindsExactlyTheOverlappingPairs, ()) {
    const auto count = *rc::gen::inRange<std::size_t>(1, 14);
    PlanToCheck plan;
    plan.check_high_water = false;
    plan.buffers.push_back({"CPU", 8, SIZE_MAX, {256}});
    for (std::size_t i = 0; i < count; ++i) {
        const int first = *rc::gen::inRange(0, 6);
        const int last = first + *rc::gen::inRange(0, 4);
        const std::size_t size = 8 * *rc::gen::inRange<std::size_t>(0, 8);
        const std::size_t offset = 8 * *rc::gen::inRange<std::size_t>(0, 24);
        const std::string name = "t" + std::to_string(i);
        plan.tensors.push_back({name, first, last, size, 0});
        plan.placements.push_back({i, 0, 0, offset});
    }
    if (count > 1 && *rc::gen::arbitrary<bool>()) {
        plan.may_share.emplace_back(1, 0);
    }
    std::set<std::pair<std::size_t, std::size_t>> expected;
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t j = i + 1; j < count; ++j) {
            const CheckedTensor& a = plan.tensors[i];
            const CheckedTensor& b = plan.tensors[j];
            const std::size_t a_offset = plan.placements[i].offset, b_offset = plan.placements[j].offset;
            const bool bytes_meet = a.size > 0 && b.size > 0 && a_offset < b_offset + b.size && b_offset < a_offset + a.size;
            const bool steps_meet = a.first <= b.last && b.first <= a.last;
            const bool allowed = !plan.may_share.empty() && i == 0 && j == 1;
            if (bytes_meet && steps_meet && !allowed) {
                expected.insert({i, j});
            }
        }
    }
    std::set<std::pair<std::size_t, std::size_t>> found;
    for (const Violation& v : check_plan(plan)) {
        if (v.kind == ViolationKind::overlap) {
            found.insert(std::minmax(v.tensor, v.other));
        }
    }
    RC_ASSERT(found == expected);
}

} // namespace
} // namespace gallocsim::fuzz
