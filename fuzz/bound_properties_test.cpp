// No planner below a bound, ever (issue 36): over random MiniMalloc files, with and without
// an alignment column, and over random graphs, every planner's plan is at least the lower
// bound it is shown against, and the plan checker accepts it. The bound and the planners read
// a block's bytes through one function (block_bytes); these properties are what keeps a
// second definition from creeping back, and the bound honest where alignment pads.
#include "fuzz/counterexample.hpp"
#include "fuzz/property_support.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/minimalloc.hpp"
#include "simulator/analysis/planners.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

#include <algorithm>
#include <string>
#include <vector>

namespace gallocsim::fuzz {
namespace {

struct CsvBuffer {
    int lower = 0;
    int length = 1;  // upper = lower + length
    std::size_t size = 0;
    std::size_t alignment = 1;
};

// Alignments as MiniMalloc files carry them: mostly powers of two, but the format allows
// any positive number, and a bound must hold for those too.
rc::Gen<std::size_t> alignments() {
    return rc::gen::weightedOneOf<std::size_t>({{6, rc::gen::map(rc::gen::inRange(0, 7), [](int e) { return std::size_t{1} << e; })},
                                                {1, rc::gen::elementOf(std::vector<std::size_t>{3, 5, 12, 24, 48})}});
}

rc::Gen<CsvBuffer> csv_buffers(bool aligned) {
    return rc::gen::build<CsvBuffer>(rc::gen::set(&CsvBuffer::lower, rc::gen::inRange(0, 12)),
                                     rc::gen::set(&CsvBuffer::length, rc::gen::inRange(1, 7)),
                                     rc::gen::set(&CsvBuffer::size, rc::gen::inRange<std::size_t>(0, 300)),
                                     rc::gen::set(&CsvBuffer::alignment, aligned ? alignments() : rc::gen::just<std::size_t>(1)));
}

// The file as a person would write it, not as to_minimalloc_csv does: so the parser is part
// of what is checked.
std::string csv_text(const std::vector<CsvBuffer>& buffers, bool aligned) {
    std::string text = aligned ? "id,lower,upper,size,alignment\n" : "id,lower,upper,size\n";
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const CsvBuffer& b = buffers[i];
        text += "b" + std::to_string(i) + "," + std::to_string(b.lower) + "," + std::to_string(b.lower + b.length) + "," +
                std::to_string(b.size) + (aligned ? "," + std::to_string(b.alignment) : "") + "\n";
    }
    return text;
}

// Every planner of the registry on one problem: at least the bound, its size the highest
// end of its blocks, every offset aligned and no two blocks live together sharing a byte
// (the checker's verdict). Returns whether the exact search proved its plan optimal.
bool check_planners_against_bound(const ArenaProblem& problem, const ExactLimits& limits) {
    const std::size_t bound = lower_bound(problem.blocks).bytes;
    const std::vector<PlannerOutcome> outcomes = run_every_planner(problem, limits);
    bool proved = false;
    for (std::size_t p = 0; p < outcomes.size(); ++p) {
        const ArenaPlan& plan = outcomes[p].plan;
        RC_LOG() << planners()[p].key << ": " << plan.size << " bytes, bound " << bound << "\n";
        RC_ASSERT(plan.size >= bound);
        RC_ASSERT(plan.size == arena_height(problem.blocks, plan.offsets));
        RC_ASSERT_NONE([&] {
            std::vector<std::string> messages;
            for (const Violation& v : check_plan(arena_plan_to_check(problem, plan))) {
                messages.push_back(v.message);
            }
            return messages;
        }());
        proved = proved || outcomes[p].proved_optimal;
    }
    RC_ASSERT(no_reuse_size(problem.blocks) >= bound);
    return proved;
}

void check_random_csv(bool aligned) {
    const auto buffers = *rc::gen::resize(12, rc::gen::nonEmpty(rc::gen::container<std::vector<CsvBuffer>>(csv_buffers(aligned))));
    const std::string text = csv_text(buffers, aligned);
    RC_LOG() << text;
    const MiniMallocProblem input = parse_minimalloc_csv(text, "random.csv");
    const ExactLimits limits{.time_limit = std::chrono::milliseconds(50), .node_limit = 50'000};
    const bool proved = check_planners_against_bound(input.problem, limits);
    RC_CLASSIFY(proved, "exact proved optimal");
    RC_CLASSIFY(std::ranges::any_of(input.problem.blocks, [](const LiveBlock& b) { return b.size % b.alignment != 0; }),
                "a size not a multiple of its alignment");
}

RC_GTEST_PROP(Bounds, NoPlannerBelowTheBoundOnMiniMallocFiles, ()) {
    check_random_csv(false);
}

RC_GTEST_PROP(Bounds, NoPlannerBelowTheBoundOnMiniMallocFilesWithAlignment, ()) {
    check_random_csv(true);
}

// On a graph: ggml's plan and every alternative compare_planners shows are at least the
// in-place-aware bound of their buffer type, and the checker accepts them all.
RC_GTEST_PROP(Bounds, NoPlannerBelowTheBoundOnGraphs, ()) {
    // Input flags on op nodes make upstream allocate a leaf twice (see UpstreamQuirks), which
    // the in-place-aware bound does not model.
    Generated g = generate({.inputs_on_op_nodes = false});
    keeping_counterexample("bound-newcomer", g.json, [&] {
        const GgmlPlan ggml = run_ggml_plan(g.file);
        if (!planned(ggml.run)) {
            return;
        }
        const ExactLimits limits{.time_limit = std::chrono::milliseconds(20), .node_limit = 20'000};
        const Comparison comparison = compare_planners(g.file, ggml, limits);
        RC_ASSERT(comparison.ggml_violations.empty());
        for (const ArenaComparison& arena : comparison.arenas) {
            RC_ASSERT(arena.ggml_size >= arena.lower_bound.bytes);
            RC_ASSERT(arena.planner_violations.empty());
            for (const AlternativePlan& alternative : arena.alternatives) {
                RC_ASSERT(alternative.outcome.plan.size >= arena.lower_bound.bytes);
            }
        }
    });
}

} // namespace
} // namespace gallocsim::fuzz
