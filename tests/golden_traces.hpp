#pragma once
// The golden corpus recorded once per test binary: each file's trace, and what the
// reference allocator itself says at the end of the run, to hold replays against.

#include "reference/graph_allocator.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/trace/trace.hpp"

#include "golden_files.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::test_support {

struct GoldenTrace {
    std::string name;
    std::shared_ptr<const Trace> trace;
    // What the reference holds after reserve_n + alloc_graph.
    std::vector<std::optional<HashNode>> hash_nodes;  // per tensor; nullopt when it has none
    std::vector<std::optional<Placement>> placements; // per tensor: GraphAllocator::locate
    std::vector<std::vector<Chunk>> chunks;            // per allocator
    std::vector<std::vector<std::size_t>> buffer_chunks;  // per allocator: the backend buffer's chunk sizes
};

inline GoldenTrace record_golden(const std::filesystem::path& path) {
    const GraphFile file = load_graph_file(path);
    PlanRun run = prepare_plan(file);
    TraceRecorder recorder(file, run.planned);
    carry_out_plan(run, &recorder);
    GoldenTrace golden;
    golden.name = path.filename().string();
    golden.trace = std::make_shared<const Trace>(recorder.take(run.error));
    for (const Tensor& tensor : run.planned.context.tensors()) {
        const HashNode* node = run.allocator->hash_node(tensor);
        golden.hash_nodes.push_back(node ? std::optional(*node) : std::nullopt);
        golden.placements.push_back(run.allocator->locate(tensor));
    }
    for (const int id : golden.trace->allocator_buffer_ids()) {
        golden.chunks.push_back(run.allocator->allocator(id).chunks());
        golden.buffer_chunks.push_back(run.allocator->chunk_sizes(id));
    }
    return golden;
}

// Every golden file, recorded on first use; empty when the corpus is not there.
inline const std::vector<GoldenTrace>& golden_traces() {
    static const std::vector<GoldenTrace> traces = [] {
        std::vector<GoldenTrace> all;
        for (const auto& path : golden_files()) {
            all.push_back(record_golden(path));
        }
        return all;
    }();
    return traces;
}

} // namespace gallocsim::test_support
