// Allocator version profiles (reference/profile.hpp): the names and how versions and graph
// file sources map to them, and for each rule that differs between versions a small graph
// planned under each profile, with the places worked out by hand from that version's code.
#include "reference/profile.hpp"
#include "simulator/graph_file.hpp"
#include "simulator/plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {
namespace {

using Places = std::vector<std::pair<std::string, PlannedPlace>>;

const AllocatorProfile& profile(std::string_view name) {
    const AllocatorProfile* found = find_profile(name);
    if (found == nullptr) {
        throw std::runtime_error("no profile " + std::string(name));
    }
    return *found;
}

const AllocatorProfile& llama() { return profile("llama.cpp-0c1e570"); }
const AllocatorProfile& baseline() { return profile("ggml-d99724f2"); }
const AllocatorProfile& seed_era() { return profile("ggml-f54604ef"); }

// A graph file around the given tensors/leafs/nodes, one CPU buffer type.
GraphFile graph(std::string_view buffer_type, std::string_view tensors, std::string_view leafs,
                std::string_view nodes) {
    const std::string text = R"({"format": "ggml-graph/1", "buffer_types": [)" + std::string(buffer_type) +
                             R"(], "tensors": [)" + std::string(tensors) + R"(], "leafs": [)" + std::string(leafs) +
                             R"(], "nodes": [)" + std::string(nodes) + "]}";
    return parse_graph_file(text, "profile_test");
}

struct Planned {
    std::vector<std::size_t> buffer_sizes;
    std::vector<std::vector<std::size_t>> chunk_sizes;
    Places places;
    std::string error;
};

Planned plan(GraphFile& file, const AllocatorProfile& profile) {
    const PlanRun run = run_plan(file, nullptr, profile);
    return {run.plan.buffer_sizes, run.plan.chunk_sizes, run.plan.tensors, run.error};
}

// --- names, versions, sources ---------------------------------------------------------

TEST(Profiles, AreNamedAfterTheUpstreamTheyReproduceNewestFirst) {
    std::vector<std::string_view> names;
    for (const AllocatorProfile& p : allocator_profiles()) {
        names.push_back(p.name);
    }
    EXPECT_EQ(names, (std::vector<std::string_view>{"llama.cpp-0c1e570", "ggml-d99724f2", "ggml-f54604ef"}));
    EXPECT_EQ(&newest_profile(), &llama());
    EXPECT_EQ(&baseline_profile(), &baseline());
    EXPECT_EQ(find_profile("ggml-0c1e570"), nullptr);
    EXPECT_EQ(find_profile(""), nullptr);
    EXPECT_EQ(known_profile_names(), "llama.cpp-0c1e570, ggml-d99724f2, ggml-f54604ef");
}

TEST(Profiles, AreFoundByTheSourceAGraphFileNames) {
    EXPECT_EQ(profile_for_source("ggml d99724f2"), &baseline());
    EXPECT_EQ(profile_for_source("llama.cpp 0c1e570 (ggml 0.25.3)"), &llama());
    EXPECT_EQ(profile_for_source("ggml f54604ef"), &seed_era());
    // Exact strings only: nothing is guessed from a near miss.
    EXPECT_EQ(profile_for_source("ggml d99724f"), nullptr);
    EXPECT_EQ(profile_for_source("llama.cpp 0c1e570"), nullptr);
    EXPECT_EQ(profile_for_source("gallocsim"), nullptr);
    EXPECT_EQ(profile_for_source(""), nullptr);
}

// ggml 0.15.3 to 0.21.0 carry d99724f2's ggml-alloc.c, 0.25.3 is llama.cpp 0c1e570's;
// nothing between or around them is guessed.
TEST(Profiles, AreFoundByGgmlVersionOnlyForKnownReleases) {
    for (const char* version : {"0.15.3", "0.15.10", "0.18.0", "0.21.0"}) {
        EXPECT_EQ(profile_for_ggml_version(version), &baseline()) << version;
    }
    EXPECT_EQ(profile_for_ggml_version("0.25.3"), &llama());
    for (const char* version : {"0.15.2", "0.21.1", "0.25.2", "0.25.4", "0.9.5", "1.0.0", "0.25.3-rc1", "v0.25.3",
                                "0.25", "0.25.3.1", "-0.25.3", "0.-25.3", "", "unknown"}) {
        EXPECT_EQ(profile_for_ggml_version(version), nullptr) << version;
    }
}

// --- the in-place op list -------------------------------------------------------------

TEST(Profiles, InPlaceOpListsDifferAsUpstreamsDo) {
    // Common to all: the seed era's fifteen ops.
    for (Op op : {Op::SCALE, Op::DIAG_MASK_ZERO, Op::DIAG_MASK_INF, Op::ADD, Op::ADD1, Op::SUB, Op::MUL, Op::DIV,
                  Op::SQR, Op::SQRT, Op::LOG, Op::UNARY, Op::ROPE, Op::RMS_NORM, Op::SOFT_MAX}) {
        for (const AllocatorProfile& p : allocator_profiles()) {
            EXPECT_TRUE(p.can_inplace(op)) << p.name << " " << op_name(op);
        }
    }
    // Added after the seed era: the backward ops (93ea0016), ADD_ID (3b145175), FILL (106c2686).
    for (Op op : {Op::ROPE_BACK, Op::SILU_BACK, Op::RMS_NORM_BACK, Op::SOFT_MAX_BACK, Op::ADD_ID, Op::FILL}) {
        EXPECT_FALSE(seed_era().can_inplace(op)) << op_name(op);
        EXPECT_TRUE(baseline().can_inplace(op)) << op_name(op);
        EXPECT_TRUE(llama().can_inplace(op)) << op_name(op);
    }
    // CLAMP: llama.cpp only (#27644).
    EXPECT_FALSE(seed_era().can_inplace(Op::CLAMP));
    EXPECT_FALSE(baseline().can_inplace(Op::CLAMP));
    EXPECT_TRUE(llama().can_inplace(Op::CLAMP));
    // Never in place anywhere: ops that change shape or read more than they write.
    for (Op op : {Op::CONT, Op::CPY, Op::MUL_MAT, Op::NORM, Op::GET_ROWS, Op::NONE}) {
        for (const AllocatorProfile& p : allocator_profiles()) {
            EXPECT_FALSE(p.can_inplace(op)) << p.name << " " << op_name(op);
        }
    }
}

// a (8 f32 = 32 bytes, an input leaf) feeds only c = clamp(a), an output. Alignment 32.
// llama.cpp-0c1e570: CLAMP may run in place, a is ours, not an output, same layout, c is its
// only consumer: c takes a's bytes, [0, 32), buffer 32. ggml-d99724f2 and ggml-f54604ef:
// CLAMP is not in place, c takes the next free bytes, [32, 64) while a still lives: buffer 64.
TEST(Profiles, ClampRunsInPlaceOnlyUnderLlamaCpp) {
    GraphFile file = graph(R"({"name": "CPU", "alignment": 32})",
                           R"({"name": "a", "type": "f32", "ne": [8], "flags": ["input"]},
                              {"name": "c", "type": "f32", "ne": [8], "op": "CLAMP", "src": ["a"], "flags": ["output"]})",
                           R"("a")", R"("c")");
    const Planned in_place = plan(file, llama());
    EXPECT_EQ(in_place.error, "");
    EXPECT_EQ(in_place.buffer_sizes, std::vector<std::size_t>{32});
    EXPECT_EQ(in_place.places, (Places{{"a", {0, 0, 0}}, {"c", {0, 0, 0}}}));
    for (const AllocatorProfile* p : {&baseline(), &seed_era()}) {
        const Planned apart = plan(file, *p);
        EXPECT_EQ(apart.error, "") << p->name;
        EXPECT_EQ(apart.buffer_sizes, std::vector<std::size_t>{64}) << p->name;
        EXPECT_EQ(apart.places, (Places{{"a", {0, 0, 0}}, {"c", {0, 0, 32}}})) << p->name;
    }
    // The default is the newest.
    EXPECT_EQ(run_plan(file).plan.tensors, in_place.places);
}

} // namespace
} // namespace gallocsim
