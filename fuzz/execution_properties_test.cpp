// Property 5: what a plan computes. A plan can look sound and still be wrong about a
// detail the oracles model differently from the kernels; running it settles it. The
// executor (simulator/executor) runs the graph in gallocr's plan and in the no-reuse
// oracle's, with poisoning (every byte that no later node needs is overwritten with NaN
// after each node), and the outputs must agree bit for bit.
#include "fuzz/counterexample.hpp"
#include "fuzz/property_support.hpp"
#include "simulator/executor/planned_run.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

namespace gallocsim::fuzz {
namespace {

RC_GTEST_PROP(Execution, PlanComputesWhatTheNoReuseOracleComputes, ()) {
    // Input flags on op nodes: upstream may put a leaf over another leaf (UpstreamQuirks);
    // with them allowed, this property finds it as NaN outputs within a few thousand cases.
    Generated g = generate({.inputs_on_op_nodes = false});
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    keeping_counterexample("execution", g.json, [&] {
        if (!planned(run_plan(g.file))) {
            return;  // the one expected planning failure
        }
        Executor executor(Backend::cpu);
        const ExecutionOptions options{.seed = seed, .poison = true};
        const PlannedRun ours = plan_and_run(g.file, Planner::gallocr, executor, options);
        const bool not_executable = ours.result.error.starts_with("not executable");
        RC_CLASSIFY(not_executable, "not executable");
        if (not_executable) {
            return;
        }
        RC_LOG() << "gallocr run: " << (ours.result.ok() ? "ok" : ours.result.error) << "\n";
        RC_ASSERT(ours.result.ok());
        const PlannedRun oracle = plan_and_run(g.file, Planner::oracle, executor, options);
        RC_ASSERT(oracle.result.ok());
        RC_ASSERT_NONE(compare_values(oracle.result.outputs, ours.result.outputs));
    });
}

} // namespace
} // namespace gallocsim::fuzz
