// run_plan (a graph file through new_n, reserve_n, alloc_graph, as the golden corpus was
// made) and compare_plans (one line per difference, naming the tensor and both values).
#include "simulator/model/examples.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "tests/golden_files.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

using Lines = std::vector<std::string>;

using Places = std::vector<std::pair<std::string, Placement>>;

// The seed example, whose tensors the plans below place (a plan names them by id).
const GraphFile& seed() {
    static const GraphFile file = seed_example();
    return file;
}
const Context& seed_tensors() { return seed().context; }
TensorId seed_id(const std::string& name) { return tensor_id(*seed().context.find(name)); }

// The seed example's plan, as upstream made it:
//
//   0      32     64
//   | a    | b    |
//   | mul  |      |
const Places kSeedPlaces{{"a", {0, 0, 0}}, {"b", {0, 0, 32}}, {"mul", {0, 0, 0}}};
PlanRecord seed_plan() {
    PlanRecord plan;
    plan.source = "ggml d99724f2";
    plan.reserve = true;
    plan.alloc_graph = true;
    plan.buffer_sizes = {64};
    plan.chunk_sizes = {{64}};
    for (const auto& [name, place] : kSeedPlaces) {
        plan.tensors.push_back({seed_id(name), place});
    }
    return plan;
}

TEST(RunPlan, PlansAFileAsTheGoldenCorpusWasMade) {
    GraphFile file = seed_example();
    const PlanRun run = run_plan(file);

    EXPECT_EQ(run.error, "");
    EXPECT_EQ(run.plan.source, "gallocsim llama.cpp-0c1e570");  // the newest profile plans by default
    EXPECT_TRUE(run.plan.reserve);
    EXPECT_TRUE(run.plan.alloc_graph);
    EXPECT_EQ(run.plan.buffer_sizes, std::vector<std::size_t>{64});
    EXPECT_EQ(test_support::named_places(run.plan, file.context), kSeedPlaces);
    EXPECT_EQ(compare_plans(seed_plan(), run.plan, file.context), Lines{});
    ASSERT_EQ(run.types.size(), 1u);
    EXPECT_EQ(run.types[0]->name(), "CPU");
    EXPECT_EQ(run.types[0]->alignment(), 32u);
}

// run_plan clears what the previous run wrote, so a file plans the same every time.
TEST(RunPlan, IsRepeatable) {
    GraphFile file = seed_example();
    const PlanRun first = run_plan(file);
    const PlanRun second = run_plan(file);
    EXPECT_EQ(compare_plans(first.plan, second.plan, file.context), Lines{});
    EXPECT_EQ(test_support::named_places(second.plan, file.context), kSeedPlaces);
}

// prepare_plan_again plans on the copy an earlier run of the file wrote into: the plan is the
// one a fresh copy gives, whatever rules the earlier run planned by (here the oldest state's, on
// every golden file; a plan that fails fails alike).
TEST(RunPlan, AgainOnAnEarlierRunsCopyPlansAsAFreshCopy) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        const GraphFile file = load_graph_file(path);
        PlanRun again = prepare_plan_again(file, run_plan(file, nullptr, profile_of_age(0)));
        carry_out_plan(again);
        const PlanRun fresh = run_plan(file);
        EXPECT_EQ(again.error, fresh.error);
        EXPECT_EQ(compare_plans(fresh.plan, again.plan, file.context), Lines{});
    });
}

TEST(RunPlan, ReportsEventsToTheObserver) {
    GraphFile file = seed_example();
    test_support::EventLog log;
    run_plan(file, &log);
    EXPECT_EQ(log.all<Observed<event::PlanStarted>>().size(), 1u);
    EXPECT_EQ(log.all<Observed<event::InPlaceReused>>().size(), 1u);
    EXPECT_EQ(log.all<Observed<event::TensorInitialised>>().size(), 3u);  // a, b, mul
}

// A failed reserve is reported with the allocator's message, and nothing is placed.
TEST(RunPlan, FailedReserveCarriesTheAllocatorsMessage) {
    GraphFile file = parse_graph_file(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [4]}, {"name": "c", "ne": [4], "op": "CONT", "src": ["a"]}],
        "leafs": ["a"], "nodes": ["c"]})",
                                      "g.json");
    file.node_buffer_ids = {3};  // the loader would refuse the file: there is one buffer

    const PlanRun run = run_plan(file);
    EXPECT_EQ(run.error, "node 0 has buffer id 3, but there are 1 buffers");
    EXPECT_FALSE(run.plan.reserve);
    EXPECT_FALSE(run.plan.alloc_graph);
    EXPECT_TRUE(run.plan.tensors.empty());
    EXPECT_EQ(compare_plans(seed_plan(), run.plan, seed_tensors()).front(), "reserve: expected true, got false");
}

// A failed alloc_graph after a good reserve is reported with the allocator's message too.
TEST(RunPlan, FailedAllocGraphCarriesTheAllocatorsMessage) {
    GraphFile file = parse_graph_file(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [4]}, {"name": "v", "ne": [2], "op": "VIEW", "src": ["a"], "view_src": "a", "view_offs": 8},
                    {"name": "c", "ne": [2], "op": "CONT", "src": ["v"]}],
        "leafs": ["a"], "nodes": ["v", "c"]})",
                                      "g.json");
    file.context.find("v")->view_offs = 12;  // past a's end: the loader would refuse the file

    const PlanRun run = run_plan(file);
    EXPECT_EQ(run.error, "view v (8 bytes at offset 12) reaches past its source a (16 bytes)");
    EXPECT_TRUE(run.plan.reserve);
    EXPECT_FALSE(run.plan.alloc_graph);
}

// A no_alloc load's weight (`data: "buffer"`): ggml only sizes such a graph, so run_plan
// reserves and says why it stops there. Leafs a and e (8 f32 = 32 bytes each), y = a + e in
// place over a, worked by hand from ggml-alloc.c: since 0a2b6b20 e counts as allocated and is
// not planned (a at 0, y over a: 32 bytes); the seeds' state plans it like any leaf (e at 32,
// 64 bytes). The same graph as Profiles.ATensorOnAnExternalBufferCountsAsAllocatedOnlySince16653,
// here read from a file.
//
//   since 0a2b6b20       f54604ef
//   0      32            0      32     64
//   | a, y |             | a, y | e    |
TEST(RunPlan, ATensorInABufferWithoutDataIsOnlySized) {
    const GraphFile file = parse_graph_file(R"({"format": "ggml-graph/2", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "a", "ne": [8]}, {"name": "e", "ne": [8], "data": "buffer"},
                    {"name": "y", "ne": [8], "op": "ADD", "src": ["a", "e"], "flags": ["output"]}],
        "leafs": ["a", "e"], "nodes": ["y"]})",
                                            "g.json");
    const std::string why = "tensor e is in a buffer without data (data: \"buffer\": a no_alloc load, as llama.cpp's "
                            "fit pass makes), so ggml only sizes this graph (ggml_gallocr_reserve_n_size): alloc_graph "
                            "would abort on it";
    EXPECT_EQ(sizes_only_reason(file), why);
    const PlanRun newest = run_plan(file);
    EXPECT_EQ(newest.error, why);
    EXPECT_TRUE(newest.plan.reserve);
    EXPECT_FALSE(newest.plan.alloc_graph);
    EXPECT_EQ(newest.plan.buffer_sizes, std::vector<std::size_t>{32});
    EXPECT_EQ(measure_plan(file).sizes, std::vector<std::size_t>{32});
    EXPECT_EQ(run_plan(file, nullptr, seed_era_profile()).plan.buffer_sizes, std::vector<std::size_t>{64});
    EXPECT_EQ(sizes_only_reason(seed()), "");
}

TEST(ComparePlans, EqualPlansHaveNoDifferences) {
    EXPECT_EQ(compare_plans(seed_plan(), seed_plan(), seed_tensors()), Lines{});
}

// The source is not compared: ours says "gallocsim", upstream's its revision.
TEST(ComparePlans, SourceIsNotCompared) {
    PlanRecord ours = seed_plan();
    ours.source = "gallocsim";
    EXPECT_EQ(compare_plans(seed_plan(), ours, seed_tensors()), Lines{});
}

TEST(ComparePlans, TensorMismatchNamesTheTensorAndBothValues) {
    PlanRecord actual = seed_plan();
    actual.tensors[1].place = {0, 0, 64};
    actual.tensors[2].place = {1, 2, 0};
    EXPECT_EQ(compare_plans(seed_plan(), actual, seed_tensors()), (Lines{"tensor 'b' offset: expected 32, got 64",
                                                         "tensor 'mul' buffer: expected 0, got 1",
                                                         "tensor 'mul' chunk: expected 0, got 2"}));
}

TEST(ComparePlans, MissingAndExtraTensors) {
    PlanRecord expected = seed_plan();
    PlanRecord actual = seed_plan();
    expected.tensors.pop_back();  // mul: placed, but not expected
    actual.tensors.erase(actual.tensors.begin());  // a: expected, but not placed
    EXPECT_EQ(compare_plans(expected, actual, seed_tensors()),
              (Lines{"tensor 'a': expected at buffer 0, chunk 0, offset 0, but it got no memory",
                     "tensor 'mul': expected no memory, got buffer 0, chunk 0, offset 0"}));
}

// The lines name the tensors; those only the actual plan placed come last, by name, whatever
// their ids (z is tensor 0, y tensor 1); expected places under names the graph lacks (an input
// read by name) got no memory and come before them.
TEST(ComparePlans, WhatOnlyTheActualPlanPlacedIsListedByName) {
    const GraphFile file = parse_graph_file(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "z", "ne": [8]}, {"name": "y", "ne": [8]}], "leafs": [], "nodes": []})",
                                            "g.json");
    PlanRecord actual;
    actual.tensors = {{0, {0, 0, 0}}, {1, {0, 0, 32}}};
    const std::vector<NamedPlacement> unknown{{"ghost", {0, 0, 64}}};
    EXPECT_EQ(compare_plans(PlanRecord{}, actual, file.context, unknown),
              (Lines{"tensor 'ghost': expected at buffer 0, chunk 0, offset 64, but it got no memory",
                     "tensor 'y': expected no memory, got buffer 0, chunk 0, offset 32",
                     "tensor 'z': expected no memory, got buffer 0, chunk 0, offset 0"}));
}

TEST(ComparePlans, BufferAndChunkSizes) {
    PlanRecord actual = seed_plan();
    actual.buffer_sizes = {96, 0};
    actual.chunk_sizes = {{64, 32}, {}};
    actual.alloc_graph = false;
    EXPECT_EQ(compare_plans(seed_plan(), actual, seed_tensors()), (Lines{"alloc_graph: expected true, got false",
                                                         "buffer_sizes: expected [64], got [96, 0]",
                                                         "chunk_sizes: expected [[64]], got [[64, 32], []]"}));
}

// The golden seed file, planned through the same path as `gallocsim conform`.
TEST(ComparePlans, GoldenSeedFileMatches) {
    const auto path = test_support::golden_dir() / "seed-mul.json";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " not found";
    }
    GraphFile file = load_graph_file(path);
    ASSERT_TRUE(file.expected.has_value());
    EXPECT_EQ(test_support::named_places(*file.expected, file.context), kSeedPlaces);
    EXPECT_EQ(compare_plans(*file.expected, run_plan(file).plan, file.context), Lines{});
}

} // namespace
} // namespace gallocsim
