// What planning and running a llama-style forward pass cost: gallocr's alloc_graph alone,
// the executor alone, and both together, on the CPU and (with a device) on CUDA. Not run
// by ctest; run build/default/simulator/executor/executor_bench by hand.
#include "reference/graph_allocator.hpp"
#include "simulator/executor/executor.hpp"
#include "simulator/executor/oracle.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/working_graph.hpp"

#include <benchmark/benchmark.h>

#include <iostream>
#include <string>

namespace gallocsim {
namespace {

// The llama example with 2 layers, n_embd 256, 8 heads, n_ff 704, 32 tokens, vocab 1000 and
// a mask: about 35 M multiply-adds. Its weights are outside data, as a model's are.
GraphFile bench_llama() {
    return llama_example({.layers = 2, .embd = 256, .heads = 8, .ff = 704, .tokens = 32, .vocab = 1000, .mask = true});
}

void alloc_graph_only(benchmark::State& state, Backend backend) {
    WorkingGraph llama = working_copy(bench_llama());
    const auto type = make_buffer_type(backend);
    GraphAllocator allocator(*type);
    for (auto _ : state) {
        llama.forget_addresses();  // as a fresh graph would be
        if (!allocator.alloc_graph(llama.graph)) {
            state.SkipWithError(allocator.last_error().c_str());
            return;
        }
    }
    state.counters["buffer_bytes"] = static_cast<double>(allocator.buffer_size(0));
}

void execute_only(benchmark::State& state, Backend backend) {
    WorkingGraph llama = working_copy(bench_llama());
    const auto type = make_buffer_type(backend);
    GraphAllocator allocator(*type);
    Executor executor(backend);
    if (!allocator.alloc_graph(llama.graph)) {
        state.SkipWithError(allocator.last_error().c_str());
        return;
    }
    for (auto _ : state) {
        const ExecutionResult result = executor.run(llama.graph);
        if (!result.ok()) {
            state.SkipWithError(result.error.c_str());
            return;
        }
        benchmark::DoNotOptimize(result.outputs.data());
    }
}

std::size_t planned_bytes(const GraphAllocator& allocator) {
    return allocator.buffer_size(0);
}

std::size_t planned_bytes(const OracleAllocator& oracle) {
    return oracle.buffer_size();
}

template <typename Allocator>
void alloc_and_execute(benchmark::State& state, Backend backend) {
    WorkingGraph llama = working_copy(bench_llama());
    const auto type = make_buffer_type(backend);
    Allocator allocator(*type);
    Executor executor(backend);
    for (auto _ : state) {
        llama.forget_addresses();  // as a fresh graph would be
        if (!allocator.alloc_graph(llama.graph)) {
            state.SkipWithError(allocator.last_error().c_str());
            return;
        }
        const ExecutionResult result = executor.run(llama.graph);
        if (!result.ok()) {
            state.SkipWithError(result.error.c_str());
            return;
        }
        benchmark::DoNotOptimize(result.outputs.data());
    }
    state.counters["buffer_bytes"] = static_cast<double>(planned_bytes(allocator));
}

void register_backend(Backend backend) {
    const std::string name(backend_name(backend));
    benchmark::RegisterBenchmark(("AllocGraph/" + name).c_str(), alloc_graph_only, backend)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Execute/" + name).c_str(), execute_only, backend)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("AllocGraphAndExecute/" + name).c_str(), alloc_and_execute<GraphAllocator>, backend)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("OraclePlanAndExecute/" + name).c_str(), alloc_and_execute<OracleAllocator>, backend)
        ->Unit(benchmark::kMillisecond);
}

} // namespace
} // namespace gallocsim

int main(int argc, char** argv) {
    using namespace gallocsim;
    register_backend(Backend::cpu);
    if (backend_available(Backend::cuda)) {
        register_backend(Backend::cuda);
    } else {
        std::cerr << "CUDA benchmarks skipped: " << backend_unavailable_reason(Backend::cuda) << "\n";
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
