// The questions users bring about a real model, timed on its largest graph (issue "The models
// people run"): load the graph, plan it as `plan` does, answer `why` (ggml's plan, the bound,
// the offline planners, what the largest live tensors cost), and compare three policies as
// `policy compare` does. The graph is the
// largest of tests/data/captures' real-size captures, or each graph file named in
// GALLOCSIM_BENCH_GRAPHS (colon-separated; a capture's graphs/ID.json copied out, or any graph
// file), so the larger corpus (tests/models/capture_corpus.sh --matrix) can be measured too.
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_check.hpp"
#include "simulator/analysis/what_if.hpp"
#include "simulator/analysis/policy_comparison.hpp"
#include "simulator/analysis/why_report.hpp"
#include "simulator/model/corpus.hpp"
#include "simulator/model/graph_file.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

// The largest graph of the committed real-size captures.
std::vector<CorpusGraph> default_graphs() {
    CorpusGraph largest;
    for (const char* capture : {"llama-3.1-8b-c4096-u512", "llama-3.1-8b-c4096-u512-fa"}) {
        for (CorpusGraph& graph : capture_graphs(std::string(GALLOCSIM_SOURCE_DIR "/tests/data/captures/") + capture)) {
            if (graph.file.graph.nodes.size() > largest.file.graph.nodes.size()) {
                largest = std::move(graph);
            }
        }
    }
    std::vector<CorpusGraph> graphs;
    graphs.push_back(std::move(largest));
    return graphs;
}

const std::vector<CorpusGraph>& bench_graphs() {
    static const std::vector<CorpusGraph> graphs = [] {
        const char* listed = std::getenv("GALLOCSIM_BENCH_GRAPHS");
        if (listed == nullptr || *listed == '\0') {
            return default_graphs();
        }
        std::vector<CorpusGraph> files;
        std::stringstream paths(listed);
        for (std::string path; std::getline(paths, path, ':');) {
            files.push_back({path, load_graph_file(path), path});
        }
        return files;
    }();
    return graphs;
}

// The newest state with one rule changed, as a policy file would make it.
AllocatorProfile policy(std::string_view name, void (*change)(AllocatorProfile&)) {
    AllocatorProfile profile = newest_profile();
    profile.name = name;
    change(profile);
    return profile;
}

const AllocatorProfile& with_through_views() {
    static const AllocatorProfile profile = policy("through-views", [](AllocatorProfile& p) { p.inplace_through_views = true; });
    return profile;
}

const AllocatorProfile& with_first_fit() {
    static const AllocatorProfile profile = policy("first-fit", [](AllocatorProfile& p) { p.block_fit = BlockFit::first; });
    return profile;
}

const CorpusGraph& graph_of(const benchmark::State& state) {
    return bench_graphs().at(static_cast<std::size_t>(state.range(0)));
}

void label(benchmark::State& state, const CorpusGraph& graph) {
    state.SetLabel(graph.label);
    state.counters["nodes"] = static_cast<double>(graph.file.graph.nodes.size());
}

// Reading the graph file, as every command does first.
void BM_RealLoad(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    const std::string text = graph_file_to_json(graph.file);
    for (auto _ : state) {
        benchmark::DoNotOptimize(parse_graph_file(text, "bench"));
    }
    label(state, graph);
}

// `plan`: ggml's plan with its trace (what every report reads).
void BM_RealPlan(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    for (auto _ : state) {
        benchmark::DoNotOptimize(run_ggml_plan(graph.file));
    }
    label(state, graph);
}

// `why` as the command runs it: ggml's plan, the in-place-aware bound and the offline planners
// on its blocks, each buffer's peak, and what its five largest live tensors and the tensors that
// left its holes cost (a bare plan each, on ggml's plan's copy of the graph).
void BM_RealWhy(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    GraphFile file = parse_graph_file(graph_file_to_json(graph.file), graph.label);  // why_answers plans it again
    for (auto _ : state) {
        GgmlPlan ggml = run_ggml_plan(file);
        const Comparison comparison = compare_planners(file, ggml, ExactLimits{});
        const std::vector<BufferPeak> peaks = buffer_peaks(ggml.trace);
        benchmark::DoNotOptimize(why_answers(file, newest_profile(), ggml.trace, comparison, peaks, std::move(ggml.run)));
    }
    label(state, graph);
}

// The parts of `why` after ggml's plan, one at a time: the bound and the offline planners
// (below), the checker, the copy of the graph and one what-if plan.
void BM_RealComparePlanners(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    const GgmlPlan ggml = run_ggml_plan(graph.file);
    for (auto _ : state) {
        benchmark::DoNotOptimize(compare_planners(graph.file, ggml, ExactLimits{}));
    }
    label(state, graph);
}

// The checker's two halves on ggml's plan: the plan put as the checker takes it, and the check.
void BM_RealPlanToCheck(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    const GgmlPlan ggml = run_ggml_plan(graph.file);
    for (auto _ : state) {
        benchmark::DoNotOptimize(ggml_plan_to_check(graph.file, ggml));
    }
    label(state, graph);
}

void BM_RealCheck(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    const PlanToCheck check = ggml_plan_to_check(graph.file, run_ggml_plan(graph.file));
    for (auto _ : state) {
        benchmark::DoNotOptimize(check_plan(check));
    }
    label(state, graph);
}

// The copy of the graph a plan writes into (every plan makes one; why's what-ifs share one).
void BM_RealWorkingCopy(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    for (auto _ : state) {
        benchmark::DoNotOptimize(working_copy(graph.file));
    }
    label(state, graph);
}

// One what-if plan: the first buffer's largest live tensor at its high-water mark.
void BM_RealWhatIf(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    const GgmlPlan ggml = run_ggml_plan(graph.file);
    const TensorId largest = buffer_peaks(ggml.trace).at(0).live.at(0).tensor;
    PlansWithout plans(graph.file, newest_profile());
    for (auto _ : state) {
        benchmark::DoNotOptimize(plans.buffer_sizes_without(largest));
    }
    label(state, graph);
}

// `policy compare` of three policies: the newest state, through-views and first fit, each plan
// checked, the bound and the offline planners from the reference's plan.
void BM_RealPolicyCompare3(benchmark::State& state) {
    const CorpusGraph& graph = graph_of(state);
    const AllocatorProfile* policies[] = {&newest_profile(), &with_through_views(), &with_first_fit()};
    for (auto _ : state) {
        benchmark::DoNotOptimize(compare_policies(std::span(&graph, 1), policies, ExactLimits{}));
    }
    label(state, graph);
}

void each_graph(benchmark::internal::Benchmark* b) {
    for (std::size_t i = 0; i < bench_graphs().size(); ++i) {
        b->Arg(static_cast<std::int64_t>(i));
    }
}

BENCHMARK(BM_RealLoad)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealPlan)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealWhy)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealComparePlanners)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealPlanToCheck)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealCheck)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealWorkingCopy)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealWhatIf)->Apply(each_graph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealPolicyCompare3)->Apply(each_graph)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace gallocsim

BENCHMARK_MAIN();
