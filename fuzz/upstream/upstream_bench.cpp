// gallocsim's bare planner against the real libggml this executable is linked with, in
// one process, on the same graphs: the largest golden files, llama-style examples from
// about 100 to 100,000 nodes, and captured real graphs (tests/data/captures/, when there).
// Each iteration plans the graph once with each side (a fresh allocator, reserve_n,
// alloc_graph, as an application does for a new graph), alternating which goes first;
// the fastest run of each side is reported, and their ratio (`ratio` = gallocsim's time
// over upstream's). On a shared machine load comes in bursts that only ever add time, so
// the fastest runs are the cleanest. docs/regenerate-performance.py reads the JSON output.
#include "fuzz/upstream/upstream_planner.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/plan.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace gallocsim::upstream {
namespace {

// gallocsim's side, as planner_bench's BM_PlanBare runs it.
class GallocsimPlanner {
public:
    explicit GallocsimPlanner(const GraphFile& file) : graph_(working_copy(file)), types_(make_buffer_types(file)) {
        for (int type : file.buffers) {
            ids_.push_back(types_[static_cast<std::size_t>(type)].get());
        }
    }
    bool run() {
        graph_.forget_addresses();  // as a program's new graph: copied once, not in the timing
        GraphAllocator allocator(ids_, matching_profile());
        return allocator.reserve_n(graph_.graph, graph_.node_buffer_ids, graph_.leaf_buffer_ids) &&
               allocator.alloc_graph(graph_.graph);
    }

private:
    WorkingGraph graph_;
    std::vector<std::unique_ptr<ConfigurableBufferType>> types_;
    std::vector<BufferType*> ids_;
};

struct Case {
    std::string name;
    std::unique_ptr<GraphFile> file;
};

void BM_AgainstUpstream(benchmark::State& state, GraphFile* file) {
    GallocsimPlanner ours(*file);
    UpstreamGraph theirs(*file);
    // Both must plan the graph, and alike, or the times compare different work.
    if (!ours.run() || !theirs.plan_bare()) {
        state.SkipWithError("a side failed to plan this graph");
        return;
    }
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    double fastest_ours = 1e300;
    double fastest_theirs = 1e300;
    bool ours_first = true;
    for (auto _ : state) {
        for (int side = 0; side < 2; ++side) {
            const bool run_ours = (side == 0) == ours_first;
            const auto start = Clock::now();
            const bool ok = run_ours ? ours.run() : theirs.plan_bare();
            const double took = seconds(Clock::now() - start);
            benchmark::DoNotOptimize(ok);
            (run_ours ? fastest_ours : fastest_theirs) = std::min(run_ours ? fastest_ours : fastest_theirs, took);
        }
        ours_first = !ours_first;
    }
    state.counters["nodes"] = static_cast<double>(file->graph.nodes.size());
    state.counters["gallocsim_us"] = fastest_ours * 1e6;
    state.counters["upstream_us"] = fastest_theirs * 1e6;
    state.counters["ratio"] = fastest_ours / fastest_theirs;
}

std::vector<std::filesystem::path> json_files_under(const std::filesystem::path& dir, bool recursive) {
    std::vector<std::filesystem::path> files;
    if (!std::filesystem::is_directory(dir)) {
        return files;
    }
    auto take = [&](const std::filesystem::directory_entry& entry) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") {
            files.push_back(entry.path());
        }
    };
    if (recursive) {
        std::ranges::for_each(std::filesystem::recursive_directory_iterator(dir), take);
    } else {
        std::ranges::for_each(std::filesystem::directory_iterator(dir), take);
    }
    std::ranges::sort(files);
    return files;
}

// The golden files with the most nodes.
std::vector<Case> largest_golden_files(std::size_t how_many) {
    std::vector<Case> cases;
    for (const auto& path : json_files_under(GALLOCSIM_GOLDEN_DIR, false)) {
        cases.push_back({"golden/" + path.stem().string(), std::make_unique<GraphFile>(load_graph_file(path))});
    }
    std::ranges::sort(cases, std::greater{}, [](const Case& c) { return c.file->graph.nodes.size(); });
    cases.resize(std::min(cases.size(), how_many));
    return cases;
}

std::vector<Case> captured_graphs() {
    std::vector<Case> cases;
    for (const auto& path : json_files_under(GALLOCSIM_CAPTURES_DIR, true)) {
        if (path.parent_path().filename() == "graphs") {
            cases.push_back({"capture/" + path.stem().string(), std::make_unique<GraphFile>(load_graph_file(path))});
        }
    }
    return cases;
}

} // namespace
} // namespace gallocsim::upstream

int main(int argc, char** argv) {
    using namespace gallocsim;
    using namespace gallocsim::upstream;
    std::vector<Case> cases = largest_golden_files(3);
    for (std::int64_t nodes : {100, 1000, 10000, 100000}) {
        cases.push_back({"llama/" + std::to_string(nodes), std::make_unique<GraphFile>(llama_example_with_nodes(nodes))});
    }
    for (Case& c : captured_graphs()) {
        cases.push_back(std::move(c));
    }
    for (Case& c : cases) {
        benchmark::RegisterBenchmark(("AgainstUpstream/" + c.name).c_str(), BM_AgainstUpstream, c.file.get())
            ->Unit(benchmark::kMicrosecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("upstream", std::string(linked_version().profile) + " from " +
                                                std::string(linked_version().package) + ", " + library_path());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
