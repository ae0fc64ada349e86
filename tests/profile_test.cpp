// Allocator version profiles (reference/profile.hpp): the names and how versions and graph
// file sources map to them, and for each rule that differs between versions a small graph
// planned under each profile, with the places worked out by hand from that version's code.
#include "reference/builder.hpp"
#include "reference/graph_allocator.hpp"
#include "reference/profile.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/model/working_graph.hpp"
#include "tests/golden_files.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {
namespace {

using Places = std::vector<std::pair<std::string, Placement>>;

const AllocatorProfile& profile(std::string_view name) {
    const AllocatorProfile* found = find_profile(name);
    if (found == nullptr) {
        throw std::runtime_error("no profile " + std::string(name));
    }
    return *found;
}

const AllocatorProfile& llama() { return profile("llama.cpp-0c1e570"); }
const AllocatorProfile& baseline() { return profile("ggml-0a2b6b20"); }
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

Planned plan(const GraphFile& file, const AllocatorProfile& profile) {
    const PlanRun run = run_plan(file, nullptr, profile);
    return {run.plan.buffer_sizes, run.plan.chunk_sizes, test_support::named_places(run.plan, file.context), run.error};
}

// --- names, versions, sources ---------------------------------------------------------

// One profile per state of the allocator between the seed era and llama.cpp 0c1e570, each
// named by the commit that made it (docs/versions.md lists them), newest first.
TEST(Profiles, AreNamedAfterTheCommitThatMadeEachStateNewestFirst) {
    std::vector<std::string_view> names;
    for (const AllocatorProfile& p : allocator_profiles()) {
        names.push_back(p.name);
    }
    EXPECT_EQ(names, (std::vector<std::string_view>{"llama.cpp-0c1e570", "ggml-0a2b6b20", "ggml-3129a944", "ggml-106c2686",
                                                     "ggml-058128a6", "ggml-9dea367c", "ggml-b3f27f37", "ggml-254ea3e5",
                                                     "ggml-3b145175", "ggml-1e04f6ae", "ggml-93ea0016", "ggml-da649f70",
                                                     "ggml-f54604ef"}));
    EXPECT_EQ(&newest_profile(), &llama());
    EXPECT_EQ(&baseline_profile(), &baseline());
    EXPECT_EQ(&seed_era_profile(), &seed_era());
    // The name the golden corpus's version had before the history was split stays an alias.
    EXPECT_EQ(find_profile("ggml-d99724f2"), &baseline());
    EXPECT_EQ(find_profile("ggml-0c1e570"), nullptr);
    EXPECT_EQ(find_profile(""), nullptr);
    // Dates ascend with the history (ISO dates compare as text).
    for (std::size_t i = 1; i < allocator_profiles().size(); ++i) {
        EXPECT_GT(allocator_profiles()[i - 1].date, allocator_profiles()[i].date) << allocator_profiles()[i].name;
    }
}

// Each profile is the one before it plus exactly the change that made it: the field the
// change names differs, and no other.
TEST(Profiles, EachStateDiffersFromTheOneBeforeInTheFieldItsChangeNames) {
    auto fields = [](const AllocatorProfile& p) {
        return std::vector<std::pair<std::string_view, bool>>{
            {"inplace_ops", true},  // compared below
            {"chunks", p.chunks},
            {"tail_choice", p.tail_choice == TailChoice::reuse_factor},
            {"reallocation", p.reallocation == Reallocation::when_a_chunk_grows},
            {"free_extra_space", p.free_extra_space == ExtraSpace::kept},
            {"free_extra_space", p.free_extra_space == ExtraSpace::freed_aligned},
            {"external_buffer_is_allocated", p.external_buffer_is_allocated},
            {"external_buffer_is_allocated", p.has_reserve_n_size},  // the same commit made both
            {"replans_when_data_dropped", p.replans_when_data_dropped},
            {"empty_buffers_are_dummies", p.empty_buffers_are_dummies},
        };
    };
    EXPECT_EQ(change_that_made(seed_era()), nullptr);
    for (const AllocatorProfile& p : allocator_profiles()) {
        const RuleChange* change = change_that_made(p);
        if (change == nullptr) {
            continue;
        }
        const AllocatorProfile* before = history_between(seed_era(), p).end()[-2];
        std::set<std::string_view> differing;
        if (before->inplace_ops != p.inplace_ops) {
            differing.insert("inplace_ops");
        }
        const auto a = fields(*before);
        const auto b = fields(p);
        for (std::size_t i = 1; i < a.size(); ++i) {
            if (a[i].second != b[i].second) {
                differing.insert(a[i].first);
            }
        }
        EXPECT_EQ(differing, std::set<std::string_view>{change->field}) << p.name;
        EXPECT_EQ(p.date, change->date) << p.name;
        EXPECT_FALSE(change->sentence.empty()) << p.name;
    }
}

TEST(Profiles, AreFoundByTheSourceAGraphFileNames) {
    EXPECT_EQ(profile_for_source("ggml d99724f2"), &baseline());
    EXPECT_EQ(profile_for_source("llama.cpp 0c1e570 (ggml 0.25.3)"), &llama());
    EXPECT_EQ(profile_for_source("ggml f54604ef"), &seed_era());
    // Exact strings only: nothing is guessed from a near miss.
    EXPECT_EQ(profile_for_source("ggml d99724f"), nullptr);
    EXPECT_EQ(profile_for_source("llama.cpp 0c1e570"), nullptr);
    EXPECT_EQ(profile_for_source("gallocsim"), nullptr);
    // What plan --json writes names the profile by its name (not an alias), so conform reads it back.
    EXPECT_EQ(profile_for_source("gallocsim ggml-f54604ef"), &seed_era());
    EXPECT_EQ(profile_for_source(gallocsim_source(llama())), &llama());
    EXPECT_EQ(profile_for_source("gallocsim ggml-d99724f2"), nullptr);
    EXPECT_EQ(profile_for_source("gallocsim ggml-f54604"), nullptr);
    EXPECT_EQ(profile_for_source(""), nullptr);
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
// only consumer: c takes a's bytes, [0, 32), buffer 32. ggml-0a2b6b20 and ggml-f54604ef:
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
    EXPECT_EQ(test_support::named_places(run_plan(file).plan, file.context), in_place.places);
}

// Each op the in-place list gained after the seed era, alone: a (8 f32 = 32 bytes, an input
// leaf) feeds only o = OP(a), an output, alignment 32. Where OP may run in place, o takes a's
// bytes [0, 32) (buffer 32); where not, o goes next to a, [32, 64) (buffer 64). Each op
// enters the list with the commit docs/versions.md names, and stays.
TEST(Profiles, OpsAddedToTheInPlaceListAfterTheSeedEra) {
    const std::vector<std::pair<const char*, std::string_view>> added = {
        {"ROPE_BACK", "ggml-93ea0016"}, {"SILU_BACK", "ggml-93ea0016"}, {"RMS_NORM_BACK", "ggml-93ea0016"},
        {"SOFT_MAX_BACK", "ggml-93ea0016"}, {"ADD_ID", "ggml-3b145175"}, {"FILL", "ggml-106c2686"},
        {"CLAMP", "llama.cpp-0c1e570"}};
    for (const auto& [op, since] : added) {
        GraphFile file = graph(R"({"name": "CPU", "alignment": 32})",
                               R"({"name": "a", "type": "f32", "ne": [8], "flags": ["input"]},
                                  {"name": "o", "type": "f32", "ne": [8], "op": ")" + std::string(op) +
                                   R"(", "src": ["a"], "flags": ["output"]})",
                               R"("a")", R"("o")");
        for (const AllocatorProfile* p : history_between(seed_era(), newest_profile())) {
            const bool in_place = profile_age(*p) >= profile_age(profile(since));
            const Planned planned = plan(file, *p);
            EXPECT_EQ(planned.buffer_sizes, std::vector<std::size_t>{in_place ? 32u : 64u}) << op << " " << p->name;
            EXPECT_EQ(planned.places, (Places{{"a", {0, 0, 0}}, {"o", {0, 0, in_place ? 0u : 32u}}})) << op << " " << p->name;
        }
    }
}

// Chunks (#15815) and the reuse factor (#16788) against the seed era's one buffer. Alignment
// 32, max_size 96; leafs a (32 bytes), b (64); n = NORM(a) (32), m = NORM(b) (64),
// k = CONCAT(n, m) (96, output). Nothing runs in place (NORM, CONCAT).
//
// Chunks (llama.cpp-0c1e570, ggml-0a2b6b20): a opens chunk 0 [0, 96) at 0; b fits its tail
// [32, 96) exactly: b at 0:32, chunk 0 full. n: no free block fits anywhere (chunk 0 has
// none), so chunk 1 opens: n at 1:0; a is freed: chunk 0 = [0, 32). m (64): chunk 0's tail
// [0, 32) is too small, chunk 1's tail [32, 96) fits: m at 1:32; b is freed, joining [0, 32):
// chunk 0 = [0, 96). k (96): chunk 0's tail fits with reuse factor 96 - 0 - 96 = 0 (no
// growth): k at 0:0. Chunks 96 and 96.
//
// One buffer (ggml-f54604ef): a at 0, b at 32 (tail from 96). n: only the tail: n at 96; a
// freed: [0, 32) and the tail from 128. m: [0, 32) too small, the tail: m at 128 (high water
// 192); b freed: [0, 96). k: best fit [0, 96) exactly: k at 0. One buffer of 192, although
// no chunk may exceed 96 bytes under the later versions.
TEST(Profiles, MaxSizeSplitsIntoChunksOnlySinceChunksCame) {
    GraphFile file = graph(R"({"name": "CPU", "alignment": 32, "max_size": 96})",
                           R"({"name": "a", "type": "f32", "ne": [8]},
                              {"name": "b", "type": "f32", "ne": [16]},
                              {"name": "n", "type": "f32", "ne": [8], "op": "NORM", "src": ["a"]},
                              {"name": "m", "type": "f32", "ne": [16], "op": "NORM", "src": ["b"]},
                              {"name": "k", "type": "f32", "ne": [24], "op": "CONCAT", "src": ["n", "m"], "flags": ["output"]})",
                           R"("a", "b")", R"("n", "m", "k")");
    for (const AllocatorProfile* p : {&llama(), &baseline()}) {
        const Planned chunked = plan(file, *p);
        EXPECT_EQ(chunked.error, "") << p->name;
        EXPECT_EQ(chunked.chunk_sizes, (std::vector<std::vector<std::size_t>>{{96, 96}})) << p->name;
        EXPECT_EQ(chunked.buffer_sizes, std::vector<std::size_t>{192}) << p->name;
        EXPECT_EQ(chunked.places, (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 32}}, {"n", {0, 1, 0}}, {"m", {0, 1, 32}},
                                          {"k", {0, 0, 0}}}))
            << p->name;
    }
    const Planned whole = plan(file, seed_era());
    EXPECT_EQ(whole.error, "");
    EXPECT_EQ(whole.chunk_sizes, (std::vector<std::vector<std::size_t>>{{192}}));
    EXPECT_EQ(whole.buffer_sizes, std::vector<std::size_t>{192});
    EXPECT_EQ(whole.places,
              (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 32}}, {"n", {0, 0, 96}}, {"m", {0, 0, 128}}, {"k", {0, 0, 0}}}));
}

// A device whose get_alloc_size pads CONT results by 32 bytes (real backends pad some ops'
// tensors), so that a same-layout in-place child of a CONT is smaller than its parent: the
// only way free_extra_space has anything to free. Memory comes from a fake-base test type.
class PaddedContType final : public BufferType {
public:
    std::string_view name() const override { return "padded"; }
    std::size_t alignment() const override { return 32; }
    std::size_t alloc_size(const Tensor& tensor) const override { return nbytes(tensor) + (tensor.op == Op::CONT ? 32 : 0); }

protected:
    std::unique_ptr<Buffer> allocate_memory(std::size_t size) override { return memory_.allocate(size); }

private:
    ConfigurableBufferType memory_{test_support::dummy_backend(kSizeMax, 32)};
};

// a (8 f32 = 32 bytes), x = cont(a) (padded: 64), y = scale(x) (32, in place over x),
// z = cont(y) (64, output). a at 0; x at 32 (tail), high water 96; a freed: [0, 32).
// y takes x's place at 32.
// With free_extra_space (ggml-0a2b6b20): x's bytes past y, [64, 96), go back and join the
// tail: [0, 32), tail from 64. z (64): [0, 32) too small, the tail: z at 64, buffer 128.
// Without (ggml-f54604ef): [64, 96) stays taken; z: the tail from 96: z at 96, buffer 160.
TEST(Profiles, FreeExtraSpaceGivesBackWhatALargerParentHeldPastItsChild) {
    Context context;
    GraphBuilder ggml{context};
    Tensor& a = ggml.new_tensor(DataType::f32, {8}, "a");
    Tensor& x = ggml.cont(a);
    Tensor& y = ggml.scale(x, 2.0f);
    Tensor& z = ggml.cont(y);
    set_output(z);
    Graph g;
    build_forward_expand(g, z);
    PaddedContType type;
    for (const AllocatorProfile* p : {&baseline(), &seed_era()}) {
        GraphAllocator allocator(type, *p);
        ASSERT_TRUE(allocator.reserve(g)) << allocator.last_error();
        EXPECT_EQ(allocator.hash_node(a)->address, (BufferAddress{0, 0})) << p->name;
        EXPECT_EQ(allocator.hash_node(x)->address, (BufferAddress{0, 32})) << p->name;
        EXPECT_EQ(allocator.hash_node(y)->address, (BufferAddress{0, 32})) << p->name;
    }
    GraphAllocator freeing(type, baseline());
    ASSERT_TRUE(freeing.reserve(g));
    EXPECT_EQ(freeing.hash_node(z)->address, (BufferAddress{0, 64}));
    EXPECT_EQ(freeing.buffer_size(0), 128u);
    GraphAllocator keeping(type, seed_era());
    ASSERT_TRUE(keeping.reserve(g));
    EXPECT_EQ(keeping.hash_node(z)->address, (BufferAddress{0, 96}));
    EXPECT_EQ(keeping.buffer_size(0), 160u);
}

// A device that pads CONT results by 20 bytes and SCALE results by 4 (alignment 32), so an
// in-place child's size and its parent's are both unaligned: what told 9dea367c (#16679, the
// bytes past the child freed from the child's own end) from 3129a944 (#17884, both sizes
// aligned first).
class UnalignedPaddingType final : public BufferType {
public:
    std::string_view name() const override { return "unaligned"; }
    std::size_t alignment() const override { return 32; }
    std::size_t alloc_size(const Tensor& tensor) const override {
        return nbytes(tensor) + (tensor.op == Op::CONT ? 20 : tensor.op == Op::SCALE ? 4 : 0);
    }

protected:
    std::unique_ptr<Buffer> allocate_memory(std::size_t size) override { return memory_.allocate(size); }

private:
    ConfigurableBufferType memory_{test_support::dummy_backend(kSizeMax, 32)};
};

// a (8 f32: 32 bytes), x = cont(a) (52, 64 aligned), y = scale(x) (36, in place over x),
// w = norm(y) (32), an output. a at 0; x at 32 (the tail), high water 96; a freed: [0, 32),
// tail from 96. y takes x's place at 32.
//   3129a944: 52 and 36 both align to 64: nothing past y to free. w: best fit [0, 32): w at 0.
//   9dea367c: 52 > 36: the 16 bytes from 32 + 36 = 68 are freed, their size aligned up to 32:
//     [68, 100), which touches neither [0, 32) nor the tail at 96 (it overlaps the tail: the
//     bug #17884 fixed) and is inserted between them. w: two blocks of 32 fit, the later wins
//     ties: w at 68, a misaligned offset.
//   Before 9dea367c nothing is freed: w at 0, as under 3129a944.
TEST(Profiles, FreeExtraSpaceFromAnUnalignedEndUntil17884) {
    Context context;
    GraphBuilder ggml{context};
    Tensor& a = ggml.new_tensor(DataType::f32, {8}, "a");
    Tensor& x = ggml.cont(a);
    Tensor& y = ggml.scale(x, 2.0f);
    Tensor& w = ggml.norm(y);
    set_output(w);
    Graph g;
    build_forward_expand(g, w);
    UnalignedPaddingType type;
    for (const char* name : {"ggml-3b145175", "ggml-9dea367c", "ggml-058128a6", "ggml-3129a944", "ggml-0a2b6b20"}) {
        GraphAllocator allocator(type, profile(name));
        ASSERT_TRUE(allocator.reserve(g)) << name << ": " << allocator.last_error();
        EXPECT_EQ(allocator.hash_node(x)->address, (BufferAddress{0, 32})) << name;
        EXPECT_EQ(allocator.hash_node(y)->address, (BufferAddress{0, 32})) << name;
        const bool unaligned = profile(name).free_extra_space == ExtraSpace::freed;
        EXPECT_EQ(allocator.hash_node(w)->address, (BufferAddress{0, unaligned ? 68u : 0u})) << name;
    }
}

// b3f27f37 (#16396): reserve replaces a buffer whose chunk would grow even when the plan's
// total does not. Max size 96, alignment 32; x is outside memory.
//   g1: p = norm(x) (96 bytes) fills chunk 0; q = norm(x) (32) opens chunk 1: chunks [96, 32].
//   g2: p = norm(x) (64) at 0:0, leaving chunk 0's tail [64, 96); q (64) does not fit it and
//     opens chunk 1: chunks [64, 64], total 128 as before.
// Since b3f27f37 chunk 1 grows from 32 to 64, so the buffer is made anew: [64, 64], and
// alloc_graph places q at 1:0. Before, the total did not grow and the buffer [96, 32] was
// kept: q's 64 bytes at 1:0 do not fit chunk 1's 32 (upstream aborts: we fail naming q).
TEST(Profiles, ReallocationWhenAChunkGrowsOnlySince16396) {
    auto graph_of = [](std::int64_t p_elements, std::int64_t q_elements) {
        return graph(R"({"name": "GPU", "alignment": 32, "max_size": 96})",
                     R"({"name": "x", "type": "f32", "ne": [8], "data": true},
                        {"name": "p", "type": "f32", "ne": [)" + std::to_string(p_elements) +
                         R"(], "op": "NORM", "src": ["x"], "flags": ["output"]},
                        {"name": "q", "type": "f32", "ne": [)" + std::to_string(q_elements) +
                         R"(], "op": "NORM", "src": ["x"], "flags": ["output"]})",
                     R"("x")", R"("p", "q")");
    };
    for (const char* name : {"ggml-254ea3e5", "ggml-b3f27f37"}) {
        const GraphFile g1 = graph_of(24, 8);
        const GraphFile g2 = graph_of(16, 16);
        auto types = make_buffer_types(g1);
        GraphAllocator allocator(*types[0], profile(name));
        WorkingGraph w1 = working_copy(g1);
        WorkingGraph w2 = working_copy(g2);
        ASSERT_TRUE(allocator.reserve(w1.graph)) << allocator.last_error();
        EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{96, 32})) << name;
        ASSERT_TRUE(allocator.reserve(w2.graph)) << allocator.last_error();
        const bool per_chunk = profile(name).reallocation == Reallocation::when_a_chunk_grows;
        EXPECT_EQ(allocator.chunk_sizes(0), (per_chunk ? std::vector<std::size_t>{64, 64} : std::vector<std::size_t>{96, 32}))
            << name;
        EXPECT_EQ(allocator.alloc_graph(w2.graph), per_chunk) << name;
        if (per_chunk) {
            EXPECT_EQ(allocator.locate(w2.copy_of(*g2.context.find("q"))), (Placement{0, 1, 0}));
        } else {
            EXPECT_NE(allocator.last_error().find("tensor q"), std::string::npos) << allocator.last_error();
        }
    }
}

// #16653: a tensor on an external buffer with no data yet (here: in a zero-size buffer)
// counts as allocated. Leafs a and e (8 f32 = 32 bytes each), y = a + e (in place over a).
// ggml-0a2b6b20: e is not planned; a at 0, y over a: buffer 32. ggml-f54604ef plans e like any
// leaf: e at 32, buffer 64.
TEST(Profiles, ATensorOnAnExternalBufferCountsAsAllocatedOnlySince16653) {
    Context context;
    GraphBuilder ggml{context};
    Tensor& a = ggml.new_tensor(DataType::f32, {8}, "a");
    Tensor& e = ggml.new_tensor(DataType::f32, {8}, "e");
    Tensor& y = ggml.add(a, e);
    set_output(y);
    Graph g;
    build_forward_expand(g, y);
    ConfigurableBufferType type{test_support::dummy_backend(kSizeMax, 32)};
    const auto external = type.allocate(0);  // a zero-size buffer: no address for e
    e.buffer = external.get();

    GraphAllocator skipping(type, baseline());
    ASSERT_TRUE(skipping.reserve(g)) << skipping.last_error();
    EXPECT_FALSE(skipping.hash_node(e) != nullptr && skipping.hash_node(e)->allocated);
    EXPECT_EQ(skipping.hash_node(y)->address, (BufferAddress{0, 0}));
    EXPECT_EQ(skipping.buffer_size(0), 32u);

    GraphAllocator planning(type, seed_era());
    ASSERT_TRUE(planning.reserve(g)) << planning.last_error();
    EXPECT_EQ(planning.hash_node(e)->address, (BufferAddress{0, 32}));
    EXPECT_EQ(planning.hash_node(y)->address, (BufferAddress{0, 0}));
    EXPECT_EQ(planning.buffer_size(0), 64u);
}

// #13222 (1e04f6ae): a leaf that had external data at reserve and has none at alloc_graph.
// a (8 f32, external), y = NORM(a), an output. Since then, needs_realloc says yes and the
// one-buffer allocator plans again: a at 0, y at 32. Before, upstream asked a null buffer
// type for a's size and crashed: an error naming a.
TEST(Profiles, DataDroppedAfterReservePlansAgainOnlySince13222) {
    static float external_data[8];
    for (const AllocatorProfile* p : history_between(seed_era(), newest_profile())) {
        EXPECT_EQ(p->replans_when_data_dropped, profile_age(*p) >= profile_age(profile("ggml-1e04f6ae"))) << p->name;
        Context context;
        GraphBuilder ggml{context};
        Tensor& a = ggml.new_tensor(DataType::f32, {8}, "a");
        Tensor& y = ggml.norm(a);
        set_output(y);
        Graph g;
        build_forward_expand(g, y);
        ConfigurableBufferType type{test_support::dummy_backend(kSizeMax, 32)};
        GraphAllocator allocator(type, *p);
        a.data = external_data;
        ASSERT_TRUE(allocator.reserve(g)) << allocator.last_error();
        a.data = nullptr;
        if (p->replans_when_data_dropped) {
            ASSERT_TRUE(allocator.alloc_graph(g)) << allocator.last_error();
            EXPECT_EQ(allocator.locate(a), (Placement{0, 0, 0}));
            EXPECT_EQ(allocator.locate(y), (Placement{0, 0, 32}));
        } else {
            EXPECT_FALSE(allocator.alloc_graph(g));
            EXPECT_NE(allocator.last_error().find("tensor a had external data"), std::string::npos) << allocator.last_error();
            EXPECT_NE(allocator.last_error().find("#13222"), std::string::npos) << allocator.last_error();
        }
    }
}

// reserve_n_size came with 0a2b6b20 (#16653): refused under the seed era, with a reason.
TEST(Profiles, ReserveNSizeIsRefusedUnderTheSeedEra) {
    GraphFile file = graph(R"({"name": "CPU", "alignment": 32})",
                           R"({"name": "a", "type": "f32", "ne": [8], "flags": ["input"]},
                              {"name": "o", "type": "f32", "ne": [8], "op": "NORM", "src": ["a"], "flags": ["output"]})",
                           R"("a")", R"("o")");
    const MeasuredPlan today = measure_plan(file, baseline());
    ASSERT_TRUE(today.sizes.has_value()) << today.error;
    EXPECT_EQ(*today.sizes, std::vector<std::size_t>{64});  // a at 0, o at 32
    const MeasuredPlan seed = measure_plan(file, seed_era());
    EXPECT_FALSE(seed.sizes.has_value());
    EXPECT_NE(seed.error.find("reserve_n_size does not exist in ggml-f54604ef"), std::string::npos) << seed.error;
}

// da649f70: a request for 0 bytes became a dummy buffer without memory. Buffer type GPU holds
// nothing here (every tensor is on CPU): the baseline allocates it no chunk ([]) and reports
// size 0; the seed era asks the buffer type for its one buffer anyway, 0 bytes ([0]). On CPU
// both plan a (4 bytes) at 0 and o (4 bytes) at 32: one chunk of 64.
TEST(Profiles, ABufferTypeWithNothingPlannedHoldsAZeroByteBufferOnlyInTheSeedEra) {
    GraphFile file = graph(R"({"name": "CPU", "alignment": 32}, {"name": "GPU", "alignment": 64})",
                           R"({"name": "a", "type": "f32", "ne": [1], "flags": ["input"]},
                              {"name": "o", "type": "f32", "ne": [1], "op": "NORM", "src": ["a"], "flags": ["output"]})",
                           R"("a")", R"("o")");
    const Planned today = plan(file, baseline());
    EXPECT_EQ(today.chunk_sizes, (std::vector<std::vector<std::size_t>>{{64}, {}})) << today.error;
    EXPECT_EQ(today.buffer_sizes, (std::vector<std::size_t>{64, 0}));
    const Planned seed = plan(file, seed_era());
    EXPECT_EQ(seed.chunk_sizes, (std::vector<std::vector<std::size_t>>{{64}, {0}})) << seed.error;
    EXPECT_EQ(seed.buffer_sizes, (std::vector<std::size_t>{64, 0}));
}

// The same rule, for tensors: two zero-element inputs plan to offset 0 of a 0-byte buffer.
// The 2024 buffer type gave that buffer a base, so both are placed at 0; since da649f70 the
// dummy buffer has none and ggml aborts placing them (we refuse with an error).
TEST(Profiles, ZeroByteTensorsArePlacedInAZeroByteBufferOnlyInTheSeedEra) {
    GraphFile file = graph(R"({"name": "CPU", "alignment": 32})",
                           R"({"name": "a", "type": "f32", "ne": [0], "flags": ["input"]},
                              {"name": "b", "type": "f32", "ne": [0], "flags": ["input"]},
                              {"name": "o", "type": "f32", "ne": [0], "op": "ADD", "src": ["a", "b"], "flags": ["output"]})",
                           R"("a", "b")", R"("o")");
    const Planned seed = plan(file, seed_era());
    EXPECT_EQ(seed.error, "");
    EXPECT_EQ(seed.chunk_sizes, (std::vector<std::vector<std::size_t>>{{0}}));
    EXPECT_EQ(seed.places, (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 0}}, {"o", {0, 0, 0}}}));
    for (const char* name : {"ggml-da649f70", "ggml-0a2b6b20"}) {
        const Planned today = plan(file, profile(name));
        EXPECT_NE(today.error.find("(upstream aborts here)"), std::string::npos) << name << ": " << today.error;
    }
}

// The golden corpus came from ggml d99724f2 and names it as its source.
TEST(Profiles, GoldenCorpusPassesUnderItsSourceProfile) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        GraphFile file = load_graph_file(path);
        ASSERT_TRUE(file.expected.has_value());
        EXPECT_EQ(profile_for_source(file.expected->source), &baseline());
        EXPECT_EQ(compare_plans(*file.expected, run_plan(file, nullptr, baseline()).plan, file.context), std::vector<std::string>{});
    });
}

// Where none of the differing rules can fire (no max_size, none of the ops added to the
// in-place list later, no buffer type left empty; graph files have no external buffers and same-layout reuse frees no
// extra space), the seed era plans exactly as the baseline: the differences listed in
// docs/versions.md are all there are on these graphs.
TEST(Profiles, SeedEraPlansLikeTheBaselineWhereNoDifferingRuleApplies) {
    int compared = 0;
    test_support::for_each_golden_file("", [&](const std::filesystem::path& path) {
        GraphFile file = load_graph_file(path);
        const bool bounded = std::ranges::any_of(file.buffer_types, [](const BufferTypeSpec& s) {
            return s.max_size && *s.max_size < SIZE_MAX / 2;
        });
        const bool newer_in_place_op = std::ranges::any_of(file.context.tensors(), [](const Tensor& t) {
            return baseline().can_inplace(t.op) && !seed_era().can_inplace(t.op);
        });
        const PlanRun today = run_plan(file, nullptr, baseline());
        bool empty_buffer_type = false;
        for (int id = 0; id < file.buffer_count(); ++id) {
            const auto& chunks = today.plan.chunk_sizes[static_cast<std::size_t>(id)];
            empty_buffer_type |= chunks.empty() && today.allocator->canonical_buffer_id(id) == id;
        }
        if (bounded || newer_in_place_op || empty_buffer_type) {
            return;
        }
        ++compared;
        const PlanRecord seed = run_plan(file, nullptr, seed_era()).plan;
        EXPECT_EQ(compare_plans(today.plan, seed, file.context), std::vector<std::string>{});
    });
    if (!test_support::golden_files().empty()) {
        EXPECT_GE(compared, 30);  // most of the 71 files without max_size
    }
}

} // namespace
} // namespace gallocsim
