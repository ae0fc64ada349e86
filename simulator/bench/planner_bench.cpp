// How the planner's time grows with graph size, what recording a trace costs on top of
// it, what a cursor jump costs, and how much memory an event takes. llama-style graphs
// (simulator/model/examples.hpp) from about 100 to 100,000 nodes; weights are external, so
// only activations are planned, as in llama.cpp's compute graphs. And the exact planner on
// MiniMalloc's challenging instances (BM_ExactChallenging).
#include "reference/graph_allocator.hpp"
#include "simulator/analysis/minimalloc.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/trace/cursor.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/trace/trace.hpp"

#include <benchmark/benchmark.h>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

namespace gallocsim {
namespace {

// Graphs are built once per size and shared by the benchmarks.
GraphFile& graph_for(std::int64_t nodes) {
    static std::map<std::int64_t, std::unique_ptr<GraphFile>> cache;
    auto& slot = cache[nodes];
    if (!slot) {
        slot = std::make_unique<GraphFile>(llama_example_with_nodes(nodes));
    }
    return *slot;
}

struct Planner {
    std::vector<std::unique_ptr<ConfigurableBufferType>> types;
    std::vector<BufferType*> ids;
    WorkingGraph graph;  // copied once: the copy is not what is measured
    explicit Planner(const GraphFile& file) : types(make_buffer_types(file)), graph(working_copy(file)) {
        for (int type : file.buffers) {
            ids.push_back(types[static_cast<std::size_t>(type)].get());
        }
    }
    // What an application does for each new graph: a fresh allocator, reserve_n, alloc_graph.
    void run(AllocationObserver* observer = nullptr) {
        graph.forget_addresses();
        GraphAllocator allocator(ids);
        allocator.set_observer(observer);
        const bool ok = allocator.reserve_n(graph.graph, graph.node_buffer_ids, graph.leaf_buffer_ids) &&
                        allocator.alloc_graph(graph.graph);
        benchmark::DoNotOptimize(ok);
    }
};

void set_node_counters(benchmark::State& state, const GraphFile& file) {
    const auto nodes = static_cast<double>(file.graph.nodes.size());
    state.counters["nodes"] = nodes;
    state.counters["per_node"] = benchmark::Counter(nodes * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Bare reserve_n + alloc_graph, no observer.
void BM_PlanBare(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    Planner planner(file);
    for (auto _ : state) {
        planner.run();
    }
    set_node_counters(state, file);
}

// The same run with a trace recorder attached, and the trace taken. The graph's tensors
// are described once, as the traces of one graph share that description (BM_DescribeTensors).
void BM_PlanTraced(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    Planner planner(file);
    const TraceTensors tensors = describe_tensors(file);
    std::size_t events = 0;
    for (auto _ : state) {
        TraceRecorder recorder(file, planner.graph, tensors);
        planner.run(&recorder);
        Trace trace = recorder.take({});
        events = trace.size();
        benchmark::DoNotOptimize(trace.events.data());
    }
    set_node_counters(state, file);
    state.counters["events"] = static_cast<double>(events);
}

// The recording goal as a paired measurement: each iteration times a bare run and then a
// traced run of the same graph, and the ratio of the fastest of each is reported. On a
// shared machine, load comes in bursts that an independent median of each side can catch
// on one side only; a burst only ever adds time, so the fastest runs are the cleanest.
void BM_TraceOverhead(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    Planner planner(file);
    const TraceTensors tensors = describe_tensors(file);
    using Clock = std::chrono::steady_clock;
    double fastest_bare = 1e300;
    double fastest_traced = 1e300;
    for (auto _ : state) {
        const auto start = Clock::now();
        planner.run();
        const auto bare_done = Clock::now();
        TraceRecorder recorder(file, planner.graph, tensors);
        planner.run(&recorder);
        Trace trace = recorder.take({});
        benchmark::DoNotOptimize(trace.events.data());
        const auto traced_done = Clock::now();
        fastest_bare = std::min(fastest_bare, std::chrono::duration<double, std::micro>(bare_done - start).count());
        fastest_traced = std::min(fastest_traced, std::chrono::duration<double, std::micro>(traced_done - bare_done).count());
    }
    set_node_counters(state, file);
    state.counters["bare_us"] = fastest_bare;
    state.counters["traced_us"] = fastest_traced;
    state.counters["ratio"] = fastest_traced / fastest_bare;
}

// Describing a graph's tensors for its traces: once per graph, shared by its traces.
void BM_DescribeTensors(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    for (auto _ : state) {
        TraceTensors tensors = describe_tensors(file);
        benchmark::DoNotOptimize(tensors.size());
    }
    set_node_counters(state, file);
}

// Random jumps over a whole trace: each costs at most one checkpoint interval of replays.
void BM_CursorJump(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    Cursor cursor(record_trace(file));
    std::mt19937_64 random(42);
    std::uniform_int_distribution<std::size_t> position(0, cursor.size());
    for (auto _ : state) {
        cursor.jump(position(random));
        benchmark::DoNotOptimize(cursor.state());
    }
    state.counters["events"] = static_cast<double>(cursor.size());
    state.counters["checkpoints"] = static_cast<double>(cursor.checkpoint_count());
}

// One step forward at a time through the whole trace (what "run" in the GUI does).
void BM_CursorStepForward(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    Cursor cursor(record_trace(file));
    for (auto _ : state) {
        if (!cursor.step_forward()) {
            cursor.first();
        }
    }
    state.counters["events"] = static_cast<double>(cursor.size());
}

// Bytes of trace per event: the event array and its side tables.
void BM_TraceMemoryPerEvent(benchmark::State& state) {
    GraphFile& file = graph_for(state.range(0));
    Trace trace = record_trace(file);
    for (auto _ : state) {
        benchmark::DoNotOptimize(trace.events.data());
    }
    const double bytes = static_cast<double>(trace.events.capacity() * sizeof(TraceEvent) +
                                             trace.blocks_taken.capacity() * sizeof(trace.blocks_taken[0]) +
                                             trace.blocks_freed.capacity() * sizeof(trace.blocks_freed[0]) +
                                             trace.candidate_pool.capacity() * sizeof(trace.candidate_pool[0]) +
                                             trace.chunk_size_pool.capacity() * sizeof(std::size_t));
    state.counters["events"] = static_cast<double>(trace.size());
    state.counters["bytes_per_event"] = bytes / static_cast<double>(trace.size());
}

// The exact planner (planners.hpp) on one of MiniMalloc's challenging instances
// (../shared/minimalloc-challenging, from google/minimalloc's benchmark; each fits in 1 MiB),
// with the 60 s limit of `gallocsim import-minimalloc --time-limit 60`: the smallest arena,
// proven, or the best plan found and the bound. Counters: bytes (the plan found),
// lower_bound, proven (1: the plan meets the bound), nodes (search nodes, not graph nodes).
void BM_ExactChallenging(benchmark::State& state, const char* file) {
    const std::filesystem::path path = std::filesystem::path(GALLOCSIM_SHARED_DIR) / "minimalloc-challenging" / file;
    if (!std::filesystem::exists(path)) {
        state.SkipWithError((path.string() + " is not here (../shared is the project's shared material)").c_str());
        return;
    }
    ArenaProblem problem;
    try {
        problem = load_minimalloc_csv(path).problem;
    } catch (const std::exception& error) {
        state.SkipWithError(error.what());
        return;
    }
    ExactResult result;
    for (auto _ : state) {
        result = plan_exact(problem, {.time_limit = std::chrono::seconds(60)});
        benchmark::DoNotOptimize(result.plan.offsets.data());
    }
    state.counters["buffers"] = static_cast<double>(problem.blocks.size());
    state.counters["bytes"] = static_cast<double>(result.plan.size);
    state.counters["lower_bound"] = static_cast<double>(result.lower_bound);
    state.counters["proven"] = result.proved_optimal() ? 1.0 : 0.0;
    state.counters["nodes"] = static_cast<double>(result.nodes);
}

BENCHMARK(BM_PlanBare)->Arg(100)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanTraced)->Arg(100)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TraceOverhead)->Arg(100)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DescribeTensors)->Arg(100)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CursorJump)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CursorStepForward)->Arg(10000)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_TraceMemoryPerEvent)->Arg(1000)->Arg(100000)->Iterations(1);
// D and J are not closed within the limit: each runs the full 60 s, so once. The other nine take
// seconds at most: these add about 2.3 minutes to a default run (136 s on a 2-core EPYC VM;
// --benchmark_filter=-BM_Exact leaves them out).
BENCHMARK_CAPTURE(BM_ExactChallenging, A, "A.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, B, "B.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, C, "C.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, D, "D.1048576.csv")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_ExactChallenging, E, "E.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, F, "F.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, G, "G.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, H, "H.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, I, "I.1048576.csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactChallenging, J, "J.1048576.csv")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_ExactChallenging, K, "K.1048576.csv")->Unit(benchmark::kMillisecond);

// glibc gives freed memory back to the system once the heap's free top passes a threshold
// it tunes from the largest block freed so far. A loop that builds and drops a trace of a
// megabyte or more crosses it on every iteration and then pays the kernel for fresh pages
// on the next: up to twice the recording's own time, a cost of the loop and not of
// recording (a program keeps its trace; the GUI records a re-plan while it still holds the
// last one). So every benchmark here runs on memory the process keeps;
// GALLOCSIM_BENCH_SYSTEM_MALLOC=1 measures with glibc's defaults instead.
void keep_freed_memory() {
    if (std::getenv("GALLOCSIM_BENCH_SYSTEM_MALLOC") != nullptr) {
        return;
    }
    mallopt(M_MMAP_MAX, 0);                // every block from the heap, none mapped and unmapped
    mallopt(M_TRIM_THRESHOLD, 1 << 30);    // and the heap is never given back
}

} // namespace
} // namespace gallocsim

int main(int argc, char** argv) {
    gallocsim::keep_freed_memory();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
