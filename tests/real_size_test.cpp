// Real-size graphs: what llama.cpp 0c1e570 reserved for a Llama-3.1-8B-shaped model (32 layers,
// width 4096, 32 heads, 8 KV heads, feed-forward 14336, vocabulary 128,256) at a 4096-token
// context and a 512-token micro-batch, flash attention off and on
// (tests/data/captures/llama-3.1-8b-*; their README says how they were made). Replayed call by
// call they conform (ctest's real_size_captures); here the same graphs meet chunks: planned
// with a max size below and above their largest tensor, every plan is checked by the checker,
// which knows nothing of how plans are made.
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_check.hpp"
#include "simulator/analysis/checker.hpp"
#include "simulator/model/buffer_settings.hpp"
#include "simulator/model/corpus.hpp"
#include "simulator/model/graph_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <filesystem>
#include <vector>

namespace gallocsim {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> llama_8b_graphs() {
    std::vector<fs::path> graphs;
    for (const char* capture : {"llama-3.1-8b-c4096-u512", "llama-3.1-8b-c4096-u512-fa"}) {
        for (const auto& entry : fs::directory_iterator(fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / capture / "graphs")) {
            graphs.push_back(entry.path());
        }
    }
    std::ranges::sort(graphs);
    return graphs;
}

// Every real-size capture committed (tests/models/capture_corpus.sh names them MODEL-cCONTEXT-uUBATCH[-fa]),
// each graph as its first call loads it.
std::vector<CorpusGraph> real_size_corpus() {
    std::vector<CorpusGraph> graphs;
    for (const auto& entry : fs::directory_iterator(fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures")) {
        const std::string name = entry.path().filename().string();
        if (name.find("-c") != std::string::npos && name.find("-u") != std::string::npos) {
            std::ranges::move(capture_graphs(entry.path()), std::back_inserter(graphs));
        }
    }
    std::ranges::sort(graphs, {}, &CorpusGraph::label);
    return graphs;
}

// The largest tensor of the flash-off micro-batch graph is kq-0: 4096 keys x 512 queries x 32
// heads in f32, 268,435,456 bytes (256 MiB). A 4 GiB max size (Vulkan's largest allocation on
// many drivers) leaves one chunk; 64 MiB is below kq-0, which gets a chunk of its own, and the
// rest is cut into chunks of at most 64 MiB: every plan must still hold.
TEST(RealSizeGraphs, ChunkedPlansHoldAtEveryMaxSize) {
    const auto graphs = llama_8b_graphs();
    ASSERT_EQ(graphs.size(), 4u);  // two graphs per capture: the micro-batch and one token
    bool chunked = false;
    for (const fs::path& path : graphs) {
        for (const std::size_t max_size : {std::size_t{4} << 30, std::size_t{256} << 20, std::size_t{64} << 20}) {
            GraphFile file = load_graph_file(path);
            BufferOverrides overrides;
            overrides.max_size = max_size;
            apply_buffer_overrides(file, overrides);
            const GgmlPlan plan = run_ggml_plan(file);
            ASSERT_TRUE(plan.run.error.empty()) << path << " at " << max_size << ": " << plan.run.error;
            const auto violations = check_plan(ggml_plan_to_check(file, plan));
            EXPECT_TRUE(violations.empty()) << path << " at " << max_size << ": " << violations.front().message;
            const std::size_t chunks = plan.run.plan.chunk_sizes.at(0).size();
            if (max_size == (std::size_t{4} << 30)) {
                EXPECT_EQ(chunks, 1u) << path;
            }
            chunked = chunked || chunks > 1;
        }
    }
    EXPECT_TRUE(chunked);  // at 64 MiB the micro-batch graphs need several chunks
}

// The same graphs under every allocator state from the seed era to today, with no max size and
// with Vulkan-like limits (4 GiB, and 64 MiB, below the largest tensors): every plan is made and
// the checker accepts it. Before chunks (ggml-f54604ef to ggml-3b145175) a max size played no part
// in planning (reference/profile.hpp, planning_max_size): those states' plans at 64 MiB are exactly
// their plans with no max size.
TEST(RealSizeGraphs, EveryStatePlansTheRealCorpusAndTheCheckerAcceptsIt) {
    const std::vector<CorpusGraph> graphs = real_size_corpus();
    ASSERT_GE(graphs.size(), 4u);
    constexpr std::size_t kUnbounded = SIZE_MAX;
    for (const CorpusGraph& graph : graphs) {
        for (const AllocatorProfile& state : allocator_profiles()) {
            std::optional<PlanRecord> unbounded;
            for (const std::size_t max_size : {kUnbounded, std::size_t{4} << 30, std::size_t{64} << 20}) {
                GraphFile file = parse_graph_file(graph_file_to_json(graph.file), graph.label);
                BufferOverrides overrides;
                overrides.max_size = max_size;
                apply_buffer_overrides(file, overrides);
                const GgmlPlan plan = run_ggml_plan(file, state);
                ASSERT_TRUE(plan.run.error.empty()) << graph.label << " " << state.name << ": " << plan.run.error;
                const auto violations = check_plan(ggml_plan_to_check(file, plan));
                ASSERT_TRUE(violations.empty()) << graph.label << " " << state.name << " at " << max_size << ": "
                                                << violations.front().message;
                if (max_size == kUnbounded) {
                    unbounded = plan.run.plan;
                } else if (!state.chunks) {
                    EXPECT_EQ(plan.run.plan.buffer_sizes, unbounded->buffer_sizes) << graph.label << " " << state.name;
                    EXPECT_EQ(plan.run.plan.tensors, unbounded->tensors) << graph.label << " " << state.name;
                }
            }
        }
    }
}

} // namespace
} // namespace gallocsim
