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
#include <array>
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
    std::size_t distinguished = 0;  // compared inputs the state before the linked one plans otherwise
    std::map<std::string, std::size_t> skipped;

    void count(const Verdict& verdict);

    void print(std::string_view inputs) const {
        std::size_t total = compared;
        for (const auto& [why, n] : skipped) {
            total += n;
        }
        std::cout << linked_version().profile << " (" << linked_version().package << "): " << total << " " << inputs
                  << ", " << compared << " compared with gallocsim's " << linked_version().profile << " plan";
        // How often the rule that made this state was exercised: inputs the state before it
        // plans otherwise, which the real library then told apart.
        if (const auto states = history_between(seed_era_profile(), matching_profile()); states.size() > 1) {
            std::cout << ", " << distinguished << " of them planned otherwise by " << states.end()[-2]->name;
        }
        std::cout << "\n";
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
    bool distinguished = false;  // the state before the linked one plans it otherwise
};

void Tally::count(const Verdict& verdict) {
    if (!verdict.skipped.empty()) {
        ++skipped[verdict.skipped];
        return;
    }
    ++compared;
    distinguished += verdict.distinguished ? 1 : 0;
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
        if (ours.error.find("needs more bytes than its parent") != std::string::npos) {
            return "an in-place node larger than its parent (upstream: GGML_ASSERT in free_extra_space)";
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
    if (matching_profile().empty_buffers_are_dummies && has_zero_size_chunk(ours.plan)) {
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
    verdict.differences = compare_plans(*verdict.upstream, ours.plan, file.context);
    if (const auto states = history_between(seed_era_profile(), matching_profile()); states.size() > 1) {
        const PlanRun before = run_plan(file, nullptr, *states.end()[-2]);
        verdict.distinguished = before.error != ours.error || !compare_plans(before.plan, ours.plan, file.context).empty();
    }
    return verdict;
}

// Ops newer than the linked ggml (FILL came 2025-11, SET_ROWS 2025-06, ADD_ID 2025-08; the
// 2024 ggml had some backward ops under other names) become older ones in graphs for it
// (generated and golden): SCALE for FILL and the backward ops (unary, in place in every
// version), CPY for SET_ROWS (both write into a view of their destination, which is the
// result), ADD for ADD_ID. Both sides plan the same graph.
void use_ops_the_linked_ggml_has(GraphFile& file) {
    constexpr std::array<std::pair<Op, Op>, 7> kStandIns{{{Op::FILL, Op::SCALE},
                                                          {Op::SET_ROWS, Op::CPY},
                                                          {Op::ADD_ID, Op::ADD},
                                                          {Op::ROPE_BACK, Op::SCALE},
                                                          {Op::SILU_BACK, Op::SCALE},
                                                          {Op::RMS_NORM_BACK, Op::SCALE},
                                                          {Op::SOFT_MAX_BACK, Op::SCALE}}};
    for (Tensor& t : file.context.tensors()) {
        for (const auto& [newer, older] : kStandIns) {
            if (t.op == newer && !linked_ggml_has(newer)) {
                t.op = older;
            }
        }
    }
}

// The generators make FILL for a unary op that may run in place; the ops whose in-place rule
// changed between versions are many more: CLAMP (llama.cpp #27644), FILL (106c2686), ADD_ID
// (3b145175), ROPE_BACK, SILU_BACK, RMS_NORM_BACK and SOFT_MAX_BACK (93ea0016). By the graph's
// size, FILL becomes one of them (an op's sources and shape do not matter to the allocator,
// which asks only whether it may run in place), so that every version's rule for each meets
// the real one. A version without the op gets the stand-in of use_ops_the_linked_ggml_has.
void vary_the_in_place_op(GraphFile& file) {
    constexpr std::array kVaried{Op::FILL, Op::CLAMP, Op::ADD_ID, Op::ROPE_BACK, Op::SILU_BACK, Op::RMS_NORM_BACK,
                                 Op::SOFT_MAX_BACK};
    const Op op = kVaried[file.context.size() % kVaried.size()];
    for (Tensor& t : file.context.tensors()) {
        if (t.op == Op::FILL) {
            t.op = op;
        }
    }
}

// Buffer types pad some tensors' alloc sizes by their own rules (CUDA, Vulkan, Metal): a third
// of the tensors the allocator sizes get a recorded size of up to 40 bytes more than their
// own, unaligned as often as not, so that a same-layout in-place child and its parent differ
// in size and free_extra_space has bytes to give back (the rule 9dea367c and 3129a944 changed).
// Only results of ops that never run in place are padded: a child larger than the parent it
// takes over makes upstream abort (GGML_ASSERT in free_extra_space), which no version allows.
void pad_some_alloc_sizes(GraphFile& file) {
    const auto pads = *rc::gen::container<std::vector<int>>(file.context.size(), rc::gen::inRange(0, 41));
    for (const Tensor& t : file.context.tensors()) {
        const int pad = pads[t.index];
        if (pad > 0 && t.index % 3 == 0 && !t.is_view() && !file.is_external(t) &&
            !newest_profile().can_inplace(t.op) && linked_ggml_lets_alloc_size_exceed_nbytes(t)) {
            file.record_alloc_size(t, nbytes(t) + static_cast<std::size_t>(pad));
        }
    }
}

// Graphs for the linked version: its ops, and no max size where it splits no buffer into
// chunks (before 254ea3e5).
void fit_to_linked_version(GraphFile& file) {
    use_ops_the_linked_ggml_has(file);
    if (!matching_profile().chunks) {
        for (BufferTypeSpec& spec : file.buffer_types) {
            spec.max_size.reset();
        }
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
        use_ops_the_linked_ggml_has(file);
        const Verdict verdict = judge(file);
        tally.count(verdict);
        if (!verdict.skipped.empty()) {
            continue;
        }
        EXPECT_TRUE(verdict.differences.empty()) << "gallocsim against the real library:\n  "
                                                 << joined(verdict.differences);
        if (verdict.upstream && file.expected && file.expected->source == plan_source()) {
            const auto drift = compare_plans(*file.expected, *verdict.upstream, file.context);
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
        vary_the_in_place_op(file);
        pad_some_alloc_sizes(file);
        fit_to_linked_version(file);
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
            RC_FAIL("gallocsim differs from " + std::string(linked_version().package) + " (graph saved as " +
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
    std::cout << "upstream: " << gallocsim::upstream::linked_version().profile << " from "
              << gallocsim::upstream::linked_version().package << ", " << gallocsim::upstream::library_path() << "\n";
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
