// The real upstream library as a differential oracle (fuzz/README.md, "The real library as
// an oracle"): every golden file and GALLOCSIM_ORACLE_CASES generated graphs are planned by
// the libggml this executable is linked with and by gallocsim under the profile that
// reproduces it, and every offset, chunk and buffer size must be identical. A disagreement
// shrinks and is saved as a graph file whose `expected` is the real library's plan, ready
// for `gallocsim conform FILE`.
#include "fuzz/counterexample.hpp"
#include "fuzz/generators.hpp"
#include "fuzz/upstream/upstream_planner.hpp"
#include "simulator/model/plan.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <ranges>

namespace gallocsim::upstream {
namespace {

struct Verdict;

// How many inputs were compared, and why the others were not.
struct Tally {
    std::size_t compared = 0;
    std::map<std::string, std::size_t> skipped;

    void count(const Verdict& verdict);

    void print(std::string_view inputs) const {
        std::size_t total = compared;
        for (const auto& [why, n] : skipped) {
            total += n;
        }
        std::cout << linked_version().source << " (" << linked_version().package << "): " << total << " " << inputs
                  << ", " << compared << " compared with gallocsim's " << linked_version().profile << " plan\n";
        for (const auto& [why, n] : skipped) {
            std::cout << "  skipped " << n << ": " << why << "\n";
        }
    }
};

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) {
        out += (out.empty() ? "" : "\n  ") + line;
    }
    return out;
}

struct Verdict {
    std::string skipped;  // why the input was not compared; empty when it was
    std::vector<std::string> differences;
    std::optional<PlanRecord> upstream;
};

void Tally::count(const Verdict& verdict) {
    if (!verdict.skipped.empty()) {
        ++skipped[verdict.skipped];
        return;
    }
    ++compared;
}

PlanRun plan_with_gallocsim(const GraphFile& file) {
    return run_plan(file, nullptr, matching_profile());
}

bool has_zero_size_chunk(const PlanRecord& plan) {
    return std::ranges::any_of(plan.chunk_sizes, [](const auto& chunks) { return std::ranges::count(chunks, 0) > 0; });
}

bool names_itself(const Tensor& t) {
    return std::ranges::find(t.src, &t) != t.src.end();
}

// Inputs the real library would abort on (GGML_ASSERT), or that fall on a documented
// divergence (docs/divergences.md), are skipped. gallocsim's own run says which: it
// returns an error exactly where upstream aborts. Any other gallocsim failure is a
// difference, not a skip. Pre-checked here:
// - reserve_n: more than 256 free blocks in a chunk ("out of free blocks");
// - alloc_graph: a tensor placed twice in a zero-byte chunk (ggml_backend_tensor_alloc);
// - a zero-size chunk at all (ggml 2025+): ggml gives it a dummy buffer without asking the
//   buffer type, so its place cannot be read back;
// - a node that names itself as a source, other than ggml_cast's CPY: ggml's API cannot
//   build it, and an in-place op would take its own unset address upstream.
// UpstreamGraph adds: ops and types the linked ggml lacks, and (ggml 2025+) graphs reaching
// more tensors than the gallocr's hash set holds.
std::optional<std::string> skip_or_fail(const GraphFile& file, const PlanRun& ours, Verdict& verdict) {
    if (!ours.plan.reserve) {
        if (ours.error.find("out of free blocks") != std::string::npos) {
            return "more than 256 free blocks in a chunk (upstream: GGML_ASSERT \"out of free blocks\")";
        }
        verdict.differences.push_back("gallocsim's reserve_n failed where upstream does not abort: " + ours.error);
        return std::nullopt;
    }
    if (!ours.plan.alloc_graph) {
        if (ours.error.find("(upstream aborts here)") != std::string::npos) {
            return "a tensor placed twice in a zero-byte chunk (upstream: GGML_ASSERT in ggml_backend_tensor_alloc)";
        }
        verdict.differences.push_back("gallocsim's alloc_graph failed where upstream does not abort: " + ours.error);
        return std::nullopt;
    }
    if (!linked_version().seed_era && has_zero_size_chunk(ours.plan)) {
        return "a zero-size chunk (ggml's dummy buffer for it bypasses the buffer type)";
    }
    for (const Tensor* node : file.graph.nodes) {
        if (node->op != Op::CPY && names_itself(*node)) {
            return "a node naming itself as a source (docs/divergences.md)";
        }
    }
    return std::nullopt;
}

Verdict judge(const GraphFile& file) {
    Verdict verdict;
    const PlanRun ours = plan_with_gallocsim(file);
    if (auto why = skip_or_fail(file, ours, verdict)) {
        verdict.skipped = *why;
        return verdict;
    }
    if (!verdict.differences.empty()) {
        return verdict;
    }
    try {
        UpstreamGraph graph(file);
        verdict.upstream = graph.plan();
    } catch (const UnsupportedGraph& unsupported) {
        verdict.skipped = unsupported.what();
        return verdict;
    }
    verdict.differences = compare_plans(*verdict.upstream, ours.plan);
    return verdict;
}

// The 2024 ggml has no FILL and no SET_ROWS: graphs for it (generated and golden) get
// SCALE for FILL (both unary ops that may run in place) and CPY for SET_ROWS (both write
// into a view of their destination, which is the result). Both sides plan the same graph.
void use_seed_era_ops(GraphFile& file) {
    for (Tensor& t : file.context.tensors()) {
        if (t.op == Op::FILL) {
            t.op = Op::SCALE;
        } else if (t.op == Op::SET_ROWS) {
            t.op = Op::CPY;
        }
    }
}

// The generators make no CLAMP, the op whose in-place rule llama.cpp 0c1e570 changed (PR
// #27644: in place there, not before). In graphs with an odd number of tensors FILL, a unary
// op that runs in place in every version that has it, becomes CLAMP, so that each version's
// CLAMP rule meets the real one about as often as FILL does.
void clamp_instead_of_fill(GraphFile& file) {
    if (file.context.size() % 2 == 0) {
        return;
    }
    for (Tensor& t : file.context.tensors()) {
        if (t.op == Op::FILL) {
            t.op = Op::CLAMP;
        }
    }
}

// It splits no buffer into chunks either: generated graphs for it have no max size.
void fit_to_seed_era(GraphFile& file) {
    use_seed_era_ops(file);
    for (BufferTypeSpec& spec : file.buffer_types) {
        spec.max_size.reset();
    }
}

// The golden corpus was made by ggml d99724f2: the real library of that version must give
// each file's `expected` too, and every version must agree with gallocsim's profile for it.
TEST(Upstream, GoldenFilesPlanAsTheRealLibrary) {
    const std::filesystem::path dir = GALLOCSIM_GOLDEN_DIR;
    if (!std::filesystem::is_directory(dir)) {
        GTEST_SKIP() << dir << " not found";
    }
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() == ".json") {
            paths.push_back(entry.path());
        }
    }
    std::ranges::sort(paths);
    Tally tally;
    for (const auto& path : paths) {
        SCOPED_TRACE(path.filename().string());
        GraphFile file = load_graph_file(path);
        if (linked_version().seed_era) {
            use_seed_era_ops(file);
        }
        const Verdict verdict = judge(file);
        tally.count(verdict);
        if (!verdict.skipped.empty()) {
            continue;
        }
        EXPECT_TRUE(verdict.differences.empty()) << "gallocsim against the real library:\n  "
                                                 << joined(verdict.differences);
        if (verdict.upstream && file.expected && file.expected->source == linked_version().source) {
            const auto drift = compare_plans(*file.expected, *verdict.upstream);
            EXPECT_TRUE(drift.empty()) << "the real library against the file's expected plan:\n  " << joined(drift);
        }
    }
    tally.print("golden files");
}

// Generated graphs of every shape the property generators make (fuzz/README.md). The first
// disagreement is shrunk by rapidcheck; each smaller failing graph overwrites the saved file.
TEST(Upstream, GeneratedGraphsPlanAsTheRealLibrary) {
    const std::string name = "upstream-" + std::string(linked_version().profile);
    Tally tally;
    bool failed = false;  // once a case fails, rapidcheck's shrinking runs are not counted
    std::size_t seen = 0;
    const bool passed = rc::check(name, [&] {
        GraphFile file = fuzz::build_graph(*fuzz::recipes());
        clamp_instead_of_fill(file);
        if (linked_version().seed_era) {
            fit_to_seed_era(file);
        }
        const Verdict verdict = judge(file);
        if (!failed && ++seen % 50000 == 0) {
            std::cerr << "  " << seen << " graphs\n";
        }
        if (!failed) {
            tally.count(verdict);
        }
        if (!verdict.skipped.empty()) {
            return;
        }
        if (!verdict.differences.empty()) {
            failed = true;
            file.expected = verdict.upstream;
            const auto saved = fuzz::save_counterexample(name, graph_file_to_json(file));
            RC_FAIL("gallocsim differs from " + std::string(linked_version().source) + " (graph saved as " +
                    saved.string() + "):\n  " + joined(verdict.differences));
        }
    });
    tally.print("generated graphs");
    EXPECT_TRUE(passed);
}

} // namespace
} // namespace gallocsim::upstream

int main(int argc, char** argv) {
    // GALLOCSIM_ORACLE_CASES generated graphs per run (the build's default otherwise);
    // RC_PARAMS, when set, overrides it and takes rapidcheck's other parameters.
    const char* cases = std::getenv("GALLOCSIM_ORACLE_CASES");
    const std::string params =
        "max_success=" + std::string(cases != nullptr && *cases != '\0' ? cases : GALLOCSIM_ORACLE_CASES_DEFAULT);
    setenv("RC_PARAMS", params.c_str(), /*overwrite=*/0);
    std::cout << "upstream: " << gallocsim::upstream::linked_version().source << " from "
              << gallocsim::upstream::linked_version().package << ", " << gallocsim::upstream::library_path() << "\n";
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
