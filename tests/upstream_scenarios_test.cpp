// Every allocator scenario of llama.cpp's tests/test-alloc.cpp, rebuilt with GraphBuilder
// the way the test builds it with ggml calls, on a test buffer type configured like the
// test's dummy backend. Each test states the exact plan (pictures show the chunks) and
// checks that it is the plan upstream ggml made: ../shared/golden/upstream-*.json holds
// the same graph, rebuilt with the real ggml, and the offsets upstream gave it.
//
// In the pictures each column is one tensor's slot; a tensor written under another
// reuses its memory (in place, or after it was freed). Chunks are backend buffers of at
// most max_size bytes (one tensor larger than max_size gets a chunk of its own size).
#include "reference/builder.hpp"
#include "reference/graph_allocator.hpp"
#include "reference/linear_allocator.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

using test_support::assign_names;
using test_support::dummy_backend;
using Places = std::vector<std::pair<std::string, Placement>>;

class UpstreamScenario : public ::testing::Test {
protected:
    WorkingGraph file;  // the graph as a plan of a graph file holds it, so its plan can be recorded like one
    GraphBuilder ggml{file.context};

    // make_input_1d / make_input_with_size
    static Tensor& input_1d(GraphBuilder& builder, std::int64_t elements) {
        Tensor& t = builder.new_tensor(DataType::f32, {elements});
        set_input(t);
        return t;
    }
    Tensor& input_with_size(std::size_t bytes) { return input_1d(ggml, static_cast<std::int64_t>(bytes / 4)); }

    // allocate_graph: the result is the graph output; alloc_graph plans by itself (one buffer).
    void expand(Tensor& out) {
        set_output(out);
        build_forward_expand(file.graph, out);
    }

    Places places(const GraphAllocator& allocator) const { return test_support::placements(file.context, allocator); }

    // The golden file holds the same graph as upstream built it; its expected plan must be ours.
    void expect_golden(const std::string& name, const GraphAllocator& allocator) {
        const auto path = test_support::golden_dir() / (name + ".json");
        if (!std::filesystem::exists(path)) {
            GTEST_SKIP() << path << " not found: the plan was checked against the values above only";
        }
        GraphFile golden = load_graph_file(path);
        expect_same_graph(golden.graph, file.graph);
        ASSERT_TRUE(golden.expected.has_value());
        // The golden file's tensors are ours by name (not necessarily in our order): our plan is
        // read into its ids.
        PlanRecord ours = record_plan(file, allocator, true, true);
        const TensorsByName golden_ids = tensors_by_name(golden.context);
        for (PlacedTensor& placed : ours.tensors) {
            const auto found = golden_ids.find(tensor_name(file.context, placed.tensor));
            ASSERT_NE(found, golden_ids.end()) << name << ": " << tensor_name(file.context, placed.tensor);
            placed.tensor = found->second;
        }
        std::ranges::sort(ours.tensors, {}, &PlacedTensor::tensor);
        EXPECT_EQ(compare_plans(*golden.expected, ours, golden.context), std::vector<std::string>{}) << name;
    }

private:
    static std::vector<std::string> names(const std::vector<Tensor*>& tensors) {
        std::vector<std::string> out;
        for (const Tensor* t : tensors) {
            out.push_back(t->name);
        }
        return out;
    }

    // Same leafs and nodes in the same order, and each with the same shape, strides, op,
    // sources, view and flags as upstream's.
    static void expect_same_graph(const Graph& upstream, const Graph& ours) {
        ASSERT_EQ(names(ours.leafs), names(upstream.leafs));
        ASSERT_EQ(names(ours.nodes), names(upstream.nodes));
        auto same_tensor = [](const Tensor& want, const Tensor& got) {
            SCOPED_TRACE(want.name);
            EXPECT_EQ(got.type, want.type);
            EXPECT_EQ(got.ne, want.ne);
            EXPECT_EQ(got.nb, want.nb);
            EXPECT_EQ(got.op, want.op);
            EXPECT_EQ(got.flags, want.flags);
            EXPECT_EQ(got.view_offs, want.view_offs);
            EXPECT_EQ(got.view_src ? got.view_src->name : "", want.view_src ? want.view_src->name : "");
            for (std::size_t s = 0; s < want.src.size(); ++s) {
                EXPECT_EQ(got.src[s] ? got.src[s]->name : "", want.src[s] ? want.src[s]->name : "") << "src " << s;
            }
        };
        for (std::size_t i = 0; i < upstream.leafs.size(); ++i) {
            same_tensor(*upstream.leafs[i], *ours.leafs[i]);
        }
        for (std::size_t i = 0; i < upstream.nodes.size(); ++i) {
            same_tensor(*upstream.nodes[i], *ours.nodes[i]);
        }
    }
};

// test_max_size_too_many_tensors: max size 16, three 8-byte inputs. The first chunk is
// full after two of them, so the third opens a second chunk; every add then runs in place.
//
//   chunk 0 (16)          chunk 1 (8)
//   0      8      16      0      8
//   +------+------+       +------+
//   | x1   | x2   |       | x0   |
//   | x3   | x4   |       +------+
//   | x5   | x6   |
//   +------+------+
TEST_F(UpstreamScenario, MaxSizeTooManyTensors) {
    ConfigurableBufferType type(dummy_backend(16));
    std::array<Tensor*, 7> x{};
    x[0] = &input_with_size(8);
    x[1] = &input_with_size(8);
    x[2] = &input_with_size(8);
    x[3] = &ggml.mul(*x[0], *x[1]);
    x[4] = &ggml.add(*x[1], *x[2]);
    x[5] = &ggml.add(*x[3], *x[0]);
    x[6] = &ggml.add(*x[4], *x[5]);
    assign_names(file.context);
    expand(*x[6]);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{16, 8}));
    EXPECT_EQ(allocator.buffer_size(0), 24u);
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 1, 0}}, {"x1", {0, 0, 0}}, {"x2", {0, 0, 8}}, {"x3", {0, 0, 0}},
                                         {"x4", {0, 0, 8}}, {"x5", {0, 0, 0}}, {"x6", {0, 0, 8}}}));
    expect_golden("upstream-max_size_too_many_tensors", allocator);
}

// test_max_size_tensor_too_large: max size 32. x0 and x1 fit the first chunk, but the
// 24-byte concat does not fit the 8 bytes left, so it gets a second chunk.
//
//   chunk 0 (24)                 chunk 1 (24)
//   0             16     24      0                     24
//   +-------------+------+       +---------------------+
//   | x0          | x1   |       | x2 = concat(x0, x1) |
//   +-------------+------+       +---------------------+
TEST_F(UpstreamScenario, MaxSizeTensorTooLarge) {
    ConfigurableBufferType type(dummy_backend(32));
    Tensor& x0 = input_with_size(16);
    Tensor& x1 = input_with_size(8);
    Tensor& x2 = ggml.concat(x0, x1, 0);
    assign_names(file.context);
    expand(x2);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{24, 24}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 0, 16}}, {"x2", {0, 1, 0}}}));
    expect_golden("upstream-max_size_tensor_too_large", allocator);
}

// test_tensor_larger_than_max_size: max size 16, a 24-byte tensor. The allocator makes a
// chunk as large as the tensor anyway (the backend may refuse it); scale runs in place.
//
//   chunk 0 (24 > max size 16)
//   0                        24
//   +------------------------+
//   | x0, then x1 = x0 * 2   |
//   +------------------------+
TEST_F(UpstreamScenario, TensorLargerThanMaxSize) {
    ConfigurableBufferType type(dummy_backend(16));
    Tensor& x0 = input_with_size(24);
    Tensor& x1 = ggml.scale(x0, 2.0f);
    assign_names(file.context);
    expand(x1);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{24}));
    EXPECT_EQ(type.allocation_count(), 1u);
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 0, 0}}}));
    expect_golden("upstream-tensor_larger_than_max_size", allocator);
}

// test_not_enough_chunks: max size 8 and seventeen 8-byte inputs. Fifteen chunks hold
// one input each; the sixteenth and last chunk is unbounded, so it takes both x15 and
// x16 and grows to 16 bytes. The chain of adds runs in place in x0's slot.
//
//   chunk:  0    1    2   ...   14    15
//         +----+----+----+     +----+---------+
//         | x0 | x1 | x2 | ... |x14 | x15 x16 |
//         |x17 |    |    |     |    |         |
//         | .. |    |    |     |    |         |
//         |x32 |    |    |     |    |         |
//         +----+----+----+     +----+---------+
TEST_F(UpstreamScenario, NotEnoughChunks) {
    constexpr int kInputs = kMaxChunks + 1;
    ConfigurableBufferType type(dummy_backend(8));
    std::vector<Tensor*> x;
    for (int i = 0; i < kInputs; ++i) {
        x.push_back(&input_with_size(8));
    }
    Tensor* acc = x[0];
    for (int i = 0; i < kMaxChunks; ++i) {
        acc = &ggml.add(*acc, *x[static_cast<std::size_t>(i) + 1]);
    }
    assign_names(file.context);
    expand(*acc);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    std::vector<std::size_t> chunks(kMaxChunks, 8);
    chunks.back() = 16;
    EXPECT_EQ(allocator.chunk_sizes(0), chunks);
    EXPECT_EQ(allocator.buffer_size(0), 136u);  // more than 16 chunks * max size 8
    Places expected;
    for (int i = 0; i < kMaxChunks; ++i) {
        expected.push_back({"x" + std::to_string(i), {0, i, 0}});
    }
    expected.push_back({"x16", {0, 15, 8}});
    for (int i = kInputs; i < kInputs + kMaxChunks; ++i) {
        expected.push_back({"x" + std::to_string(i), {0, 0, 0}});
    }
    EXPECT_EQ(places(allocator), expected);
    expect_golden("upstream-not_enough_chunks", allocator);
}

// test_fill_leftover_space: max size 16. The 16-byte pad does not fit behind x0, so it
// opens chunk 1; x0 is then freed and mean's result fills chunk 0 instead of growing
// chunk 1 (reuse factor 0: it fits chunk 0 exactly).
//
//   chunk 0 (8)       chunk 1 (16)
//   0      8          0              16
//   +------+          +--------------+
//   | x0   |          | x1 = pad(x0) |
//   | x2   |          +--------------+
//   +------+
TEST_F(UpstreamScenario, FillLeftoverSpace) {
    ConfigurableBufferType type(dummy_backend(16));
    Tensor& x0 = input_with_size(8);
    Tensor& x1 = ggml.pad(x0, {2, 0, 0, 0});
    Tensor& x3 = ggml.mean(x1);  // the test's x[3]; it is the third tensor, so it is named x2
    assign_names(file.context);
    expand(x3);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{8, 16}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 1, 0}}, {"x2", {0, 0, 0}}}));
    expect_golden("upstream-fill_leftover_space", allocator);
}

// test_view_inplace: views need no memory. x1, x2, x3 are views of x0 (a view of a view
// points at the root, so x3 sits at x0 + 4); the add cannot take over the view x3, but
// takes x4 in place.
//
//   chunk 0 (24)
//   0    4         12   16          24
//   +-------------------+-----------+
//   | x0 = x1 = x2      | x4        |
//   |    | x3      |    | x5        |
//   +----+---------+----+-----------+
TEST_F(UpstreamScenario, ViewInplace) {
    ConfigurableBufferType type(dummy_backend(32));
    Tensor& x0 = input_1d(ggml, 4);
    Tensor& x1 = ggml.reshape(x0, {2, 2, 1, 1});
    Tensor& x2 = ggml.permute(x1, 1, 0, 2, 3);
    Tensor& x3 = ggml.view_1d(x2, 2, 4);
    Tensor& x4 = input_1d(ggml, 2);
    Tensor& x5 = ggml.add(x3, x4);
    assign_names(file.context);
    expand(x5);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(x3.view_src, &x0);
    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{24}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 0, 0}}, {"x2", {0, 0, 0}}, {"x3", {0, 0, 4}},
                                         {"x4", {0, 0, 16}}, {"x5", {0, 0, 16}}}));
    expect_golden("upstream-view_inplace", allocator);
}

// test_reuse_and_free: max size 40. The three inputs fill chunk 0; the 32-byte pad needs
// chunk 1; freeing x0 (and x2 earlier) leaves 32 free bytes at 8 in chunk 0, which scale's
// result takes; x7 views x6 at offset 8; the final add takes x3 in place.
//
//   chunk 0 (40)                         chunk 1 (32)
//   0      8      16                 40  0      8      16            32
//   +------+------+------------------+   +------+------+-------------+
//   | x1   | x2   | x0               |   | x4 = pad(x0)              |
//   | x3   | x5 = scale(x4)          |   | x6 = x4 + x5 (in place)   |
//   | x8   |                         |   |      | x7   |             |
//   +------+-------------------------+   +------+------+-------------+
TEST_F(UpstreamScenario, ReuseAndFree) {
    ConfigurableBufferType type(dummy_backend(40));
    std::array<Tensor*, 9> x{};
    x[0] = &input_with_size(24);
    x[1] = &input_with_size(8);
    x[2] = &input_with_size(8);
    x[3] = &ggml.add(*x[1], *x[2]);
    x[4] = &ggml.pad(*x[0], {2, 0, 0, 0});
    x[5] = &ggml.scale(*x[4], 2.0f);
    x[6] = &ggml.add(*x[4], *x[5]);
    x[7] = &ggml.view_1d(*x[6], 2, 8);
    x[8] = &ggml.add(*x[3], *x[7]);
    assign_names(file.context);
    expand(*x[8]);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{40, 32}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 16}}, {"x1", {0, 0, 0}}, {"x2", {0, 0, 8}}, {"x3", {0, 0, 0}},
                                         {"x4", {0, 1, 0}}, {"x5", {0, 0, 8}}, {"x6", {0, 1, 0}}, {"x7", {0, 1, 8}},
                                         {"x8", {0, 0, 0}}}));
    expect_golden("upstream-reuse_and_free", allocator);
}

class MergeFreeBlock : public UpstreamScenario {
protected:
    // test_merge_free_block: three 16-byte inputs, two means, two pads and two adds.
    void build() {
        std::array<Tensor*, 9> x{};
        x[0] = &input_with_size(16);
        x[1] = &input_with_size(16);
        x[2] = &input_with_size(16);
        x[3] = &ggml.mean(*x[0]);
        x[4] = &ggml.mean(*x[1]);
        x[5] = &ggml.pad(*x[2], {2, 0, 0, 0});
        x[6] = &ggml.add(*x[3], *x[4]);
        x[7] = &ggml.pad(*x[6], {5, 0, 0, 0});
        x[8] = &ggml.add(*x[5], *x[7]);
        assign_names(file.context);
        expand(*x[8]);
    }
};

// test_merge_free_block(32): the leafs fill chunk 0 and half of chunk 1; the 24-byte
// pad x5 opens chunk 2. Freed x2 and x0 merge into one free block in chunk 0, where the
// means, their sum and the second pad all fit.
//
//   chunk 0 (32)                    chunk 1 (16)   chunk 2 (24)
//   0      8      16            32  0          16  0            24
//   +------+------+-------------+   +----------+   +------------+
//   | x2          | x0          |   | x1       |   | x5         |
//   | x3   | x4   |             |   +----------+   | x8 = x5+x7 |
//   | x6   | x7 = pad(x6)       |                  +------------+
//   +------+--------------------+
TEST_F(MergeFreeBlock, MaxSize32) {
    ConfigurableBufferType type(dummy_backend(32));
    build();

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{32, 16, 24}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 16}}, {"x1", {0, 1, 0}}, {"x2", {0, 0, 0}}, {"x3", {0, 0, 0}},
                                         {"x4", {0, 0, 8}}, {"x5", {0, 2, 0}}, {"x6", {0, 0, 0}}, {"x7", {0, 0, 8}},
                                         {"x8", {0, 2, 0}}}));
    expect_golden("upstream-merge_free_block_32", allocator);
}

// test_merge_free_block(SIZE_MAX): one chunk. Freed x0 and x1 merge with the free space
// around them into [8, 48), where the 24-byte pad x7 fits without growing the buffer.
//
//   chunk 0 (72)
//   0      8      16            32            48                 72
//   +------+------+-------------+-------------+------------------+
//   | x2          | x0          | x1          | x5 = pad(x2)     |
//   | x3   | x4   |             |             | x8 = x5 + x7     |
//   | x6   | x7 = pad(x6)       |             |                  |
//   +------+--------------------+-------------+------------------+
TEST_F(MergeFreeBlock, MaxSizeUnbounded) {
    ConfigurableBufferType type(dummy_backend(kSizeMax));
    build();

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{72}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 16}}, {"x1", {0, 0, 32}}, {"x2", {0, 0, 0}}, {"x3", {0, 0, 0}},
                                         {"x4", {0, 0, 8}}, {"x5", {0, 0, 48}}, {"x6", {0, 0, 0}}, {"x7", {0, 0, 8}},
                                         {"x8", {0, 0, 48}}}));
    expect_golden("upstream-merge_free_block_size_max", allocator);
}

// test_prefer_already_allocated_memory: alignment 4, max size 32. The second mean goes
// into x0's freed 24 bytes rather than the 4 bytes left at the end of the chunk, which
// would fit better but grow the buffer.
//
//   chunk 0 (28)
//   0                 24    28
//   +-----------------+-----+
//   | x0              | x1  |
//   | x2 |            |     |
//   +-----------------+-----+
TEST_F(UpstreamScenario, PreferAlreadyAllocatedMemory) {
    ConfigurableBufferType type(dummy_backend(32, 4));
    Tensor& x0 = input_with_size(24);
    Tensor& x1 = ggml.mean(x0);
    Tensor& x2 = ggml.mean(x1);
    assign_names(file.context);
    expand(x2);

    GraphAllocator allocator(type);
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{28}));
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 0, 24}}, {"x2", {0, 0, 0}}}));
    expect_golden("upstream-prefer_already_allocated_memory", allocator);
}

// test_multiple_buffer_types: a0, a1 (type A, max size 32) and b0, b1 (type B, unbounded)
// are weights allocated outside the graph allocator with alloc_context_tensors; the graph
// runs x1, x2, x7, x8 on A and x3..x6 on B.
//
//   A chunk 0 (16)   A chunk 1 (24)      B chunk 0 (24)
//   0          16    0            24     0      8          24
//   +----------+     +------------+      +------+----------+
//   | x0       |     | x2 = pad   |      | x4   | x6 = pad |
//   | x1 = x0*a0     | x3 = x2*b0 |      | x5   | x7, x8   |
//   +----------+     +------------+      +------+----------+
//
// x3 runs on B but takes x2's memory in place (in A), and x7, x8 run on A but take x6's
// in B: in-place reuse follows the parent's buffer.
TEST_F(UpstreamScenario, MultipleBufferTypes) {
    ConfigurableBufferType type_a(dummy_backend(32, 8, "A"));
    ConfigurableBufferType type_b(dummy_backend(kSizeMax, 8, "B"));

    Context ctx_a;
    GraphBuilder ggml_a(ctx_a);
    Tensor& a0 = input_1d(ggml_a, 4);
    Tensor& a1 = input_1d(ggml_a, 4);
    assign_names(ctx_a, "a");
    Context ctx_b;
    GraphBuilder ggml_b(ctx_b);
    Tensor& b0 = input_1d(ggml_b, 6);
    Tensor& b1 = input_1d(ggml_b, 1);
    assign_names(ctx_b, "b");

    std::array<Tensor*, 9> x{};
    x[0] = &input_with_size(16);
    x[1] = &ggml.mul(*x[0], a0);
    x[2] = &ggml.pad(*x[1], {2, 0, 0, 0});
    x[3] = &ggml.mul(*x[2], b0);
    x[4] = &ggml.mean(*x[3]);
    x[5] = &ggml.add(*x[4], b1);
    x[6] = &ggml.pad(*x[5], {3, 0, 0, 0});
    x[7] = &ggml.add(*x[6], a1);
    x[8] = &ggml.scale(*x[7], 2.0f);
    assign_names(file.context, "x");

    ContextAllocation weights_a = alloc_context_tensors(ctx_a, type_a);
    ContextAllocation weights_b = alloc_context_tensors(ctx_b, type_b);
    ASSERT_TRUE(weights_a.ok && weights_b.ok) << weights_a.error << weights_b.error;
    expand(*x[8]);

    // Buffer ids by name, as the test assigns them.
    auto ids_for = [](const std::vector<Tensor*>& tensors, const std::vector<std::string>& on_b) {
        std::vector<int> ids;
        for (const Tensor* t : tensors) {
            ids.push_back(std::ranges::find(on_b, t->name) != on_b.end() ? 1 : 0);
        }
        return ids;
    };
    ASSERT_EQ(file.graph.leafs.size(), 5u);
    ASSERT_EQ(file.graph.nodes.size(), 8u);
    const std::vector<int> leaf_ids = ids_for(file.graph.leafs, {"b0", "b1"});
    const std::vector<int> node_ids = ids_for(file.graph.nodes, {"x3", "x4", "x5", "x6"});

    const std::array<BufferType*, 2> types{&type_a, &type_b};
    GraphAllocator allocator(types);
    ASSERT_TRUE(allocator.reserve_n(file.graph, node_ids, leaf_ids)) << allocator.last_error();
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{16, 24}));
    EXPECT_EQ(allocator.chunk_sizes(1), (std::vector<std::size_t>{24}));
    // The test's bounds: A holds at most 32 + 32 + 24 bytes, B at most 32 + 24.
    EXPECT_EQ(weights_a.buffer->size() + allocator.buffer_size(0), 32u + 40u);
    EXPECT_EQ(weights_b.buffer->size() + allocator.buffer_size(1), 32u + 24u);
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 0, 0}}, {"x2", {0, 1, 0}}, {"x3", {0, 1, 0}},
                                         {"x4", {1, 0, 0}}, {"x5", {1, 0, 0}}, {"x6", {1, 0, 8}}, {"x7", {1, 0, 8}},
                                         {"x8", {1, 0, 8}}}));
    // The weights stay where alloc_context_tensors put them.
    EXPECT_EQ(a0.buffer, weights_a.buffer.get());
    EXPECT_EQ(allocator.locate(a0), std::nullopt);
    expect_golden("upstream-multiple_buffer_types", allocator);
}

// test_buffer_size_zero: two buffer types, everything on id 0. Buffer id 1 has no tensor,
// so nothing is allocated from type B and its size is 0.
//
//   A chunk 0 (16)                       B: no chunks
//   0                   16
//   +-------------------+
//   | leaf_0, node_0    |
//   +-------------------+
TEST_F(UpstreamScenario, BufferSizeZero) {
    ConfigurableBufferType type_a(dummy_backend(kSizeMax, 8, "A"));
    ConfigurableBufferType type_b(dummy_backend(kSizeMax, 8, "B"));
    Tensor& x0 = input_with_size(16);
    Tensor& x1 = ggml.scale(x0, 2.0f);
    x0.name = "leaf_0";
    x1.name = "node_0";
    expand(x1);

    const std::array<BufferType*, 2> types{&type_a, &type_b};
    GraphAllocator allocator(types);
    const std::array<int, 1> leaf_ids{0};
    const std::array<int, 1> node_ids{0};
    ASSERT_TRUE(allocator.reserve_n(file.graph, node_ids, leaf_ids)) << allocator.last_error();
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.buffer_size(0), 16u);
    EXPECT_EQ(allocator.buffer_size(1), 0u);
    EXPECT_EQ(allocator.chunk_sizes(1), std::vector<std::size_t>{});
    EXPECT_EQ(type_a.live_buffers(), 1u);
    EXPECT_EQ(type_b.allocation_count(), 0u);
    EXPECT_EQ(places(allocator), (Places{{"leaf_0", {0, 0, 0}}, {"node_0", {0, 0, 0}}}));
    expect_golden("upstream-buffer_size_zero", allocator);
}

// test_reallocation: one allocator, two graphs. Both need 40 bytes in all, but the second
// needs a 20-byte chunk 1 where the first had 16, so alloc_graph re-plans by itself and
// replaces the chunks.
//
//   first graph                               second graph
//   chunk 0 (24)          chunk 1 (16)        chunk 0 (20)        chunk 1 (20)
//   +--------------+      +----------+        +-------------+     +-------------+
//   | x0 (x2 views)|      | x1, x3   |        | x0, x2      |     | x1          |
//   +--------------+      +----------+        +-------------+     +-------------+
class Reallocation : public UpstreamScenario {
protected:
    // x0 (24 bytes), x1 (16), x2 = view of x0's first 4 floats, x3 = x2 + x1.
    static void build_first(WorkingGraph& first) {
        GraphBuilder builder(first.context);
        Tensor& x0 = input_1d(builder, 6);
        Tensor& x1 = input_1d(builder, 4);
        Tensor& x2 = builder.view_1d(x0, 4, 0);
        Tensor& x3 = builder.add(x2, x1);
        assign_names(first.context);
        set_output(x3);
        build_forward_expand(first.graph, x3);
    }

    // x0 and x1 (20 bytes each), x2 = x0 + x1: built in the fixture's own file.
    void build_second() {
        Tensor& x0 = input_with_size(20);
        Tensor& x1 = input_with_size(20);
        Tensor& x2 = ggml.add(x0, x1);
        assign_names(file.context);
        expand(x2);
    }
};

TEST_F(Reallocation, SecondGraphWithALargerChunkIsReplannedAutomatically) {
    ConfigurableBufferType type(dummy_backend(32, 4));
    GraphAllocator allocator(type);
    {
        WorkingGraph first;
        build_first(first);
        ASSERT_TRUE(allocator.alloc_graph(first.graph)) << allocator.last_error();
        EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{24, 16}));
        EXPECT_EQ(test_support::placements(first.context, allocator),
                  (Places{{"x0", {0, 0, 0}}, {"x1", {0, 1, 0}}, {"x2", {0, 0, 0}}, {"x3", {0, 1, 0}}}));
    }
    build_second();
    EXPECT_TRUE(allocator.needs_realloc(file.graph));
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();

    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{20, 20}));
    EXPECT_EQ(allocator.buffer_size(0), 40u);
    EXPECT_EQ(type.live_buffers(), 2u);       // the first graph's chunks were released
    EXPECT_EQ(type.allocation_count(), 4u);   // two chunks per plan
    EXPECT_EQ(places(allocator), (Places{{"x0", {0, 0, 0}}, {"x1", {0, 1, 0}}, {"x2", {0, 0, 0}}}));
}

// With several buffers alloc_graph cannot know the buffer ids of a new graph, so it
// refuses (upstream returns false too) and asks for reserve_n.
TEST_F(Reallocation, WithSeveralBuffersAllocGraphReturnsFalse) {
    ConfigurableBufferType type(dummy_backend(32, 4));
    ConfigurableBufferType other(dummy_backend(32, 4, "other"));
    const std::array<BufferType*, 2> types{&type, &other};
    GraphAllocator allocator(types);
    {
        WorkingGraph first;
        build_first(first);
        ASSERT_TRUE(allocator.reserve(first.graph)) << allocator.last_error();
        ASSERT_TRUE(allocator.alloc_graph(first.graph)) << allocator.last_error();
    }
    build_second();
    EXPECT_FALSE(allocator.alloc_graph(file.graph));
    EXPECT_NE(allocator.last_error().find("call reserve_n"), std::string::npos) << allocator.last_error();
    EXPECT_EQ(file.context.find("x2")->data, nullptr);

    // reserve first, and the same graph allocates.
    ASSERT_TRUE(allocator.reserve(file.graph)) << allocator.last_error();
    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();
    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{20, 20}));
}

// test_graph_measurement_binding (the part without a placeholder buffer): reserve_n_size
// measures 32 bytes for an 8-float input and its in-place scale, allocates nothing and
// leaves the tensors untouched; alloc_graph then plans and allocates by itself.
TEST_F(UpstreamScenario, MeasurementAllocatesNothing) {
    ConfigurableBufferType type(dummy_backend(64));
    Tensor& input = input_1d(ggml, 8);
    Tensor& output = ggml.scale(input, 2.0f);
    expand(output);

    GraphAllocator allocator(type);
    const auto sizes = allocator.reserve_n_size(file.graph, {}, {});
    ASSERT_TRUE(sizes.has_value()) << allocator.last_error();
    EXPECT_EQ(*sizes, std::vector<std::size_t>{32});
    EXPECT_EQ(type.allocation_count(), 0u);
    EXPECT_EQ(input.buffer, nullptr);
    EXPECT_EQ(input.data, nullptr);

    ASSERT_TRUE(allocator.alloc_graph(file.graph)) << allocator.last_error();
    EXPECT_EQ(type.allocation_count(), 1u);
    EXPECT_NE(input.data, nullptr);
    EXPECT_EQ(output.data, input.data);
}

} // namespace
} // namespace gallocsim
