// GraphAllocator (ggml_gallocr): the rules that decide where each tensor of a graph goes.
// In-place reuse and each reason it is refused, views and their roots, early inputs,
// outputs, buffer ids, re-planning, and the error returns where upstream aborts.
//
// Unless said otherwise: one test buffer type, alignment 16, unbounded, and f32 vectors
// of 4 elements (16 bytes: one slot in the pictures).
#include "reference/builder.hpp"
#include "reference/graph_allocator.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gallocsim {
namespace {

using test_support::dummy_backend;
using Places = std::vector<std::pair<std::string, Placement>>;
using Rejections = std::vector<std::tuple<std::string, std::string, InPlaceRejection>>;
using Reuses = std::vector<std::pair<std::string, std::string>>;

class GraphAllocatorTest : public ::testing::Test {
protected:
    Context context;
    GraphBuilder ggml{context};
    Graph graph;
    ConfigurableBufferType type{dummy_backend(kSizeMax, 16)};
    test_support::EventLog log;

    Tensor& vec(std::string name, std::int64_t elements = 4) {
        return ggml.new_tensor(DataType::f32, {elements}, std::move(name));
    }
    static Tensor& named(Tensor& tensor, std::string name) {
        tensor.name = std::move(name);
        return tensor;
    }
    void expand(Tensor& tensor) { build_forward_expand(graph, tensor); }

    // reserve with the event log attached, then alloc_graph.
    void plan(GraphAllocator& allocator) {
        allocator.set_observer(&log);
        ASSERT_TRUE(allocator.reserve(graph)) << allocator.last_error();
        ASSERT_TRUE(allocator.alloc_graph(graph)) << allocator.last_error();
    }

    Places places(const GraphAllocator& allocator) const { return test_support::placements(context, allocator); }

    // (node, parent, why) for every parent that a node could not take over.
    Rejections rejections() const {
        Rejections out;
        for (const auto& e : log.all<Observed<event::InPlaceRejected>>()) {
            out.emplace_back(e.node->name, e.parent->name, e.reason);
        }
        return out;
    }
    // (node, parent) for every in-place reuse.
    Reuses reuses() const {
        Reuses out;
        for (const auto& e : log.all<Observed<event::InPlaceReused>>()) {
            out.emplace_back(e.node->name, e.parent->name);
        }
        return out;
    }
    int freed_at(const Tensor& tensor) const {
        return log.index_of<Observed<event::TensorFreed>>([&](const auto& e) { return e.tensor == &tensor; });
    }
    int allocated_at(const Tensor& tensor) const {
        return log.index_of<Observed<event::TensorAllocated>>([&](const auto& e) { return e.tensor == &tensor; });
    }

    // What a fresh build of the same graph would look like: no memory yet.
    void forget_memory() {
        for (Tensor& tensor : context.tensors()) {
            tensor.buffer = nullptr;
            tensor.data = nullptr;
        }
    }
};

// --- In place -----------------------------------------------------------------------

// ADD may run in place; a is ours, not an output, laid out like c, and c is its only
// consumer: c takes a's memory. b is freed after c runs.
//
//   0      16     32
//   | a    | b    |
//   | c    |      |
TEST_F(GraphAllocatorTest, NodeTakesOverItsParentInPlace) {
    Tensor& a = vec("a");
    Tensor& b = vec("b");
    Tensor& c = named(ggml.add(a, b), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 16}}, {"c", {0, 0, 0}}}));
    EXPECT_EQ(reuses(), (Reuses{{"c", "a"}}));
    EXPECT_EQ(rejections(), Rejections{});
    EXPECT_GE(freed_at(b), 0);
    EXPECT_EQ(freed_at(a), -1);  // a's memory is c's now
    EXPECT_EQ(allocator.buffer_size(0), 32u);
}

// Planning records are kept by Tensor::index, and the tensors of a second context, or one
// made outside any context, share index 0 with a: each must still have a record of its
// own (sharing a's, b would count as allocated and never get memory).
//
//   0      16     32     48
//   | a    | b    | loose|      c takes a's place, then e takes c's
TEST_F(GraphAllocatorTest, TensorsOfSeveralContextsKeepRecordsOfTheirOwn) {
    Context other_context;
    GraphBuilder other{other_context};
    Tensor& a = vec("a");
    Tensor& b = other.new_tensor(DataType::f32, {4}, "b");
    Tensor loose = a;  // a copy keeps a's index
    loose.name = "loose";
    ASSERT_EQ(a.index, b.index);
    Tensor& c = named(ggml.add(a, b), "c");
    Tensor& e = named(ggml.add(c, loose), "e");
    set_output(e);
    expand(e);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"c", {0, 0, 0}}, {"e", {0, 0, 0}}}));
    EXPECT_EQ(allocator.locate(b), (Placement{0, 0, 16}));
    EXPECT_EQ(allocator.locate(loose), (Placement{0, 0, 32}));
    EXPECT_EQ(reuses(), (Reuses{{"c", "a"}, {"e", "c"}}));
    EXPECT_GE(freed_at(b), 0);
    EXPECT_GE(freed_at(loose), 0);
    EXPECT_EQ(allocator.buffer_size(0), 48u);
}

// CONT is not an op that may run in place, so it is not even tried.
//
//   0      16
//   | a    | c    |
TEST_F(GraphAllocatorTest, OpThatCannotRunInPlaceGetsNewMemory) {
    Tensor& a = vec("a");
    Tensor& c = named(ggml.cont(a), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_FALSE(newest_profile().can_inplace(Op::CONT));
    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"c", {0, 0, 16}}}));
    EXPECT_EQ(reuses(), Reuses{});
    EXPECT_EQ(rejections(), Rejections{});
}

// A parent whose data is already set (a weight) is not the allocator's to give away.
TEST_F(GraphAllocatorTest, ExternalParentIsNotReused) {
    std::array<float, 4> weights{};
    Tensor& a = vec("a");
    a.data = weights.data();
    Tensor& c = named(ggml.scale(a, 2.0f), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "a", InPlaceRejection::not_owned}}));
    EXPECT_EQ(places(allocator), (Places{{"c", {0, 0, 0}}}));
    EXPECT_EQ(a.data, weights.data());
    EXPECT_EQ(a.buffer, nullptr);
}

// Outputs must survive the graph, so nothing runs in place over one.
//
//   0      16
//   | x    | a    |
//   | c    |      |    c takes x's freed slot, not a's
TEST_F(GraphAllocatorTest, OutputParentIsNotReused) {
    Tensor& x = vec("x");
    Tensor& a = named(ggml.cont(x), "a");
    Tensor& c = named(ggml.scale(a, 2.0f), "c");
    set_output(a);
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "a", InPlaceRejection::output}}));
    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"a", {0, 0, 16}}, {"c", {0, 0, 0}}}));
}

// Same type and byte count but another shape: the allocator only hands a node a parent
// laid out exactly like it. (The first parent is external, so the second is the one tried.)
TEST_F(GraphAllocatorTest, ParentWithADifferentLayoutIsNotReused) {
    std::array<float, 4> weights{};
    Tensor& a = vec("a");
    a.data = weights.data();
    Tensor& b = named(ggml.new_tensor(DataType::f32, {2, 2}), "b");
    Tensor& c = named(ggml.add(a, b), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "a", InPlaceRejection::not_owned},
                                        {"c", "b", InPlaceRejection::different_layout}}));
    EXPECT_EQ(places(allocator), (Places{{"b", {0, 0, 0}}, {"c", {0, 0, 16}}}));
}

// a has two consumers: the first must not overwrite it, the last may.
//
//   0      16     32
//   | a    | c    |
//   | d    | e    |     d takes a (its last consumer), e takes c
TEST_F(GraphAllocatorTest, ParentWithAnotherConsumerIsReusedOnlyByTheLast) {
    Tensor& a = vec("a");
    Tensor& c = named(ggml.scale(a, 2.0f), "c");
    Tensor& d = named(ggml.scale(a, 3.0f), "d");
    Tensor& e = named(ggml.add(c, d), "e");
    set_output(e);
    expand(e);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "a", InPlaceRejection::other_consumers}}));
    EXPECT_EQ(reuses(), (Reuses{{"d", "a"}, {"e", "c"}}));
    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"c", {0, 0, 16}}, {"d", {0, 0, 0}}, {"e", {0, 0, 16}}}));
}

// A parent that a live view still reads is not reused, even by its last direct consumer;
// it is freed when the view's last consumer has run.
//
//   0      16     32     48
//   | x    | a    | w    |     v views a's first 8 bytes
//   | c    |      |      |
TEST_F(GraphAllocatorTest, ParentWithALiveViewIsNotReused) {
    Tensor& x = vec("x");
    Tensor& a = named(ggml.cont(x), "a");
    Tensor& v = named(ggml.view_1d(a, 2, 0), "v");
    Tensor& c = named(ggml.scale(a, 2.0f), "c");
    Tensor& w = named(ggml.cont(v), "w");
    set_output(c);
    set_output(w);
    expand(v);
    expand(c);
    expand(w);
    ASSERT_EQ(graph.nodes, (std::vector<Tensor*>{&a, &v, &c, &w}));
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "a", InPlaceRejection::other_consumers}}));
    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"a", {0, 0, 16}}, {"v", {0, 0, 16}}, {"c", {0, 0, 0}},
                                         {"w", {0, 0, 32}}}));
    const auto freed = log.all<Observed<event::TensorFreed>>();
    ASSERT_EQ(freed.size(), 2u);
    EXPECT_EQ(freed[1].tensor, &a);
    EXPECT_EQ(freed[1].reason, FreeReason::last_view);
    EXPECT_GT(freed_at(a), allocated_at(w));
}

// A view is never allocated, so it is never "ours" to reuse (upstream keeps a branch for
// view parents that this makes unreachable). The view's root is freed once the view is done.
//
//   0      16
//   | x    | c    |     r = reshape(x) aliases x
TEST_F(GraphAllocatorTest, ParentThatIsAViewIsNeverReused) {
    Tensor& x = vec("x");
    Tensor& r = named(ggml.reshape(x, {2, 2, 1, 1}), "r");
    Tensor& c = named(ggml.scale(r, 2.0f), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "r", InPlaceRejection::not_owned}}));
    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"r", {0, 0, 0}}, {"c", {0, 0, 16}}}));
    const auto freed = log.all<Observed<event::TensorFreed>>();
    ASSERT_EQ(freed.size(), 1u);
    EXPECT_EQ(freed[0].tensor, &x);
    EXPECT_EQ(freed[0].reason, FreeReason::last_view);
}

// The newest rules with a policy's inplace_through_views (docs/policies.md).
const AllocatorProfile& through_views_profile() {
    static const AllocatorProfile profile = [] {
        AllocatorProfile p = newest_profile();
        p.inplace_through_views = true;
        return p;
    }();
    return profile;
}

// A policy's rule (inplace_through_views): the same graph, and c looks through its view
// parent r to r's source x, whose only view r is and which nothing else reads: c takes x's
// memory. Nothing is freed (x's memory is c's now, and c is an output), and the buffer
// holds one slot instead of two.
//
//   0      16
//   | x, then c |
TEST_F(GraphAllocatorTest, ThroughViewsAPolicyTakesTheViewsSourceInPlace) {
    Tensor& x = vec("x");
    Tensor& r = named(ggml.reshape(x, {2, 2, 1, 1}), "r");
    Tensor& c = named(ggml.scale(r, 2.0f), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type, through_views_profile());
    plan(allocator);

    EXPECT_EQ(rejections(), Rejections{});
    const auto reused = log.all<Observed<event::InPlaceReused>>();
    ASSERT_EQ(reused.size(), 1u);
    EXPECT_EQ(reused[0].parent, &r);
    EXPECT_EQ(reused[0].view_source, &x);
    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"r", {0, 0, 0}}, {"c", {0, 0, 0}}}));
    EXPECT_TRUE(log.all<Observed<event::TensorFreed>>().empty());
    EXPECT_EQ(allocator.buffer_size(0), 16u);
}

// Through views only where the view shows its whole source: a view at offset 16 of a 2-slot
// source would put c at the source's address, not the view's, and a view of the first slot only
// would hand c the source's second slot too; both are refused as before.
class ThroughViews : public GraphAllocatorTest {
protected:
    // c = SCALE(v), v 4 elements of an 8-element x at `offset` bytes, planned through views.
    Places plan_scale_of_view(std::size_t offset) {
        Tensor& x = vec("x", 8);
        Tensor& v = named(ggml.view_1d(x, 4, offset), "v");
        Tensor& c = named(ggml.scale(v, 2.0f), "c");
        set_output(c);
        expand(c);
        GraphAllocator allocator(type, through_views_profile());
        plan(allocator);
        return places(allocator);
    }
};

TEST_F(ThroughViews, RefusesAViewThatDoesNotStartAtItsSource) {
    EXPECT_EQ(plan_scale_of_view(16), (Places{{"x", {0, 0, 0}}, {"v", {0, 0, 16}}, {"c", {0, 0, 32}}}));
    EXPECT_EQ(rejections(), (Rejections{{"c", "v", InPlaceRejection::not_owned}}));
}

TEST_F(ThroughViews, RefusesAViewOfPartOfItsSource) {
    EXPECT_EQ(plan_scale_of_view(0), (Places{{"x", {0, 0, 0}}, {"v", {0, 0, 0}}, {"c", {0, 0, 32}}}));
    EXPECT_EQ(rejections(), (Rejections{{"c", "v", InPlaceRejection::not_owned}}));
}

// Even a view of an output is refused for being a view first.
TEST_F(GraphAllocatorTest, ViewOfAnOutputIsNotReused) {
    Tensor& x = vec("x");
    Tensor& a = named(ggml.cont(x), "a");
    Tensor& r = named(ggml.reshape(a, {2, 2, 1, 1}), "r");
    Tensor& c = named(ggml.scale(r, 2.0f), "c");
    set_output(a);
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(rejections(), (Rejections{{"c", "r", InPlaceRejection::not_owned}}));
    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"a", {0, 0, 16}}, {"r", {0, 0, 16}}, {"c", {0, 0, 0}}}));
}

// --- Views --------------------------------------------------------------------------

// While any consumer of v is still to run, r (v's root) keeps its memory: u, planned in
// between, goes elsewhere; r is freed right after w, v's last consumer.
//
//   0      16     32     48
//   | a    | b    | r    |
//   | u    | w    |      |
TEST_F(GraphAllocatorTest, ViewKeepsItsRootAliveUntilTheViewsLastConsumer) {
    Tensor& a = vec("a");
    Tensor& b = vec("b");
    Tensor& r = named(ggml.cont(a), "r");
    Tensor& v = named(ggml.view_1d(r, 2, 0), "v");
    Tensor& u = named(ggml.cont(b), "u");
    Tensor& w = named(ggml.scale(v, 2.0f), "w");
    set_output(u);
    set_output(w);
    expand(a);
    expand(b);
    expand(v);
    expand(u);
    expand(w);
    ASSERT_EQ(graph.nodes, (std::vector<Tensor*>{&r, &v, &u, &w}));
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 16}}, {"r", {0, 0, 32}}, {"v", {0, 0, 32}},
                                         {"u", {0, 0, 0}}, {"w", {0, 0, 16}}}));
    EXPECT_GT(freed_at(r), allocated_at(w));
    const auto released = log.all<Observed<event::ViewReleased>>();
    ASSERT_EQ(released.size(), 1u);
    EXPECT_EQ(released[0].view, &v);
    EXPECT_EQ(released[0].view_source, &r);
    EXPECT_EQ(released[0].source_views_left, 0);
}

// view_src always names the root: views of views count against x0, and their addresses
// are x0's plus the summed offset.
TEST_F(GraphAllocatorTest, ViewsOfViewsPointAtTheRoot) {
    Tensor& x0 = vec("x0");
    Tensor& x1 = named(ggml.reshape(x0, {2, 2, 1, 1}), "x1");
    Tensor& x2 = named(ggml.permute(x1, 1, 0, 2, 3), "x2");
    Tensor& x3 = named(ggml.view_1d(x2, 2, 4), "x3");
    Tensor& y = named(ggml.cont(x3), "y");
    set_output(y);
    expand(y);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(x2.view_src, &x0);
    EXPECT_EQ(x3.view_src, &x0);
    std::vector<std::pair<std::string, int>> counted;
    for (const auto& e : log.all<Observed<event::ViewCounted>>()) {
        counted.emplace_back(e.tensor->name, e.views);
    }
    EXPECT_EQ(counted, (std::vector<std::pair<std::string, int>>{{"x0", 1}, {"x0", 2}, {"x0", 3}}));
    EXPECT_EQ(x3.buffer, x0.buffer);
    EXPECT_EQ(static_cast<const std::byte*>(x3.data), static_cast<const std::byte*>(x0.data) + 4);
    EXPECT_EQ(allocator.locate(x3), (Placement{0, 0, 4}));
    EXPECT_GT(freed_at(x0), allocated_at(y));
}

// ggml's scheduler keeps a split's input alive with a dependency: an op NONE view of the input
// (here r, a reshape of v) whose src[0] is the input, placed at the start of the split that
// reads it, which can come before the input's own node. The dependency reads r before r's node:
// ggml counts that read like any other, and does not count the NONE view as a view of v.
// Worked by hand: a at 0, b at 16, v at 32; a is freed after v. At dep, r has no consumer left
// and gives v's one view back, but v keeps its memory: r, its consumer, has not run. u takes a's
// slot; b is freed after u. At r, v has no consumer and no view left and is freed: 16..48 is one
// block, where z (32 bytes) fits, so it takes b's and v's memory instead of growing the buffer.
// dep and r sit at their root v's address.
//
//   0      16     32     48
//   | a    | b    | v    |
//   | u    | z           |
TEST_F(GraphAllocatorTest, DependencyViewBeforeItsSourceCountsAsAConsumer) {
    Tensor& a = vec("a");
    Tensor& b = vec("b");
    Tensor& v = named(ggml.cont(a), "v");
    Tensor& r = named(ggml.reshape(v, {2, 2}), "r");
    Tensor& dep = named(ggml.view_tensor(r), "dep");
    dep.src[0] = &r;
    Tensor& u = named(ggml.cont(b), "u");
    Tensor& z = named(ggml.concat(u, u, 0), "z");  // 8 elements: 32 bytes
    set_output(u);
    set_output(z);
    graph.leafs = {&a, &b};
    graph.nodes = {&v, &dep, &u, &r, &z};
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(dep.view_src, &v);
    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 16}}, {"v", {0, 0, 32}}, {"r", {0, 0, 32}},
                                         {"dep", {0, 0, 32}}, {"u", {0, 0, 0}}, {"z", {0, 0, 16}}}));
    EXPECT_GT(freed_at(v), allocated_at(u));
    EXPECT_LT(freed_at(v), allocated_at(z));
    EXPECT_EQ(allocator.buffer_size(0), 48u);
}

// --- Inputs and outputs -------------------------------------------------------------

// The input data of p is written before the graph runs, so no node computed before p is
// read may share its memory. An input node is therefore placed in the counting pass,
// before any node: n1, computed first, cannot land on it.
class InputNode : public GraphAllocatorTest {
protected:
    // a -> n1 = cont(a) -> n2 = cont(n1); n3 = n2 + p, where p is a param node.
    Tensor& build(bool p_is_input) {
        Tensor& a = vec("a");
        Tensor& n1 = named(ggml.cont(a), "n1");
        Tensor& n2 = named(ggml.cont(n1), "n2");
        Tensor& p = vec("p");
        p.flags.set(TensorFlag::param);
        if (p_is_input) {
            set_input(p);
        }
        Tensor& n3 = named(ggml.add(n2, p), "n3");
        set_output(n3);
        expand(n3);
        return p;
    }
};

//   0      16     32
//   | a    | p    | n1   |
//   | n2   |      |      |
//   | n3   |      |      |
TEST_F(InputNode, IsAllocatedBeforeAnyNodeRuns) {
    Tensor& p = build(true);
    ASSERT_EQ(graph.nodes.size(), 4u);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"n1", {0, 0, 32}}, {"n2", {0, 0, 0}}, {"p", {0, 0, 16}},
                                         {"n3", {0, 0, 0}}}));
    const auto allocated = log.all<Observed<event::TensorAllocated>>();
    ASSERT_GE(allocated.size(), 2u);
    EXPECT_EQ(allocated[1].tensor, &p);
    EXPECT_EQ(allocated[1].phase, AllocationPhase::graph_input);
}

// Without the input flag p is placed when its turn comes, in n1's freed slot.
//
//   0      16
//   | a    | n1   |
//   | n2   | p    |
//   | n3   |      |
TEST_F(InputNode, WithoutTheFlagTakesAFreedSlot) {
    build(false);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"n1", {0, 0, 16}}, {"n2", {0, 0, 0}}, {"p", {0, 0, 16}},
                                         {"n3", {0, 0, 0}}}));
}

// An output's last consumer would free it; outputs are kept instead, so m cannot have
// o's slot.
//
//   0      16     32
//   | x    | o    | m    |
//   | n    |      |      |
TEST_F(GraphAllocatorTest, OutputsAreNeverFreed) {
    Tensor& x = vec("x");
    Tensor& o = named(ggml.cont(x), "o");
    Tensor& n = named(ggml.cont(o), "n");
    Tensor& m = named(ggml.cont(n), "m");
    set_output(o);
    set_output(m);
    expand(m);
    GraphAllocator allocator(type);
    plan(allocator);

    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"o", {0, 0, 16}}, {"n", {0, 0, 0}}, {"m", {0, 0, 32}}}));
    const auto kept = log.all<Observed<event::OutputKept>>();
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].tensor, &o);
    EXPECT_EQ(kept[0].reason, FreeReason::last_consumer);
    EXPECT_EQ(freed_at(o), -1);
}

// --- Buffer ids ---------------------------------------------------------------------

// Ids 0 and 2 share buffer type A, so they share one allocator and one buffer, which only
// id 0 reports; id 1 is type B. x is a leaf on id 2, y a node on id 0, z a node on id 1.
//
//   A (ids 0, 2)          B (id 1)
//   0      16     32      0      16
//   | x    | y    |       | z    |
class SharedBufferTypes : public GraphAllocatorTest {
protected:
    ConfigurableBufferType type_b{dummy_backend(kSizeMax, 16, "B")};
    std::array<BufferType*, 3> types{&type, &type_b, &type};
    GraphAllocator allocator{types};
    Tensor& x = vec("x");
    Tensor& y = named(ggml.cont(x), "y");
    Tensor& z = named(ggml.cont(y), "z");
    const std::array<int, 2> node_ids{0, 1};
    const std::array<int, 1> leaf_ids{2};

    void SetUp() override {
        set_output(z);
        expand(z);
    }
};

TEST_F(SharedBufferTypes, ShareOneAllocatorAndBuffer) {
    EXPECT_EQ(allocator.buffer_count(), 3);
    EXPECT_EQ(allocator.canonical_buffer_id(2), 0);
    EXPECT_EQ(allocator.canonical_buffer_id(1), 1);
    EXPECT_EQ(&allocator.allocator(2), &allocator.allocator(0));

    ASSERT_TRUE(allocator.reserve_n(graph, node_ids, leaf_ids)) << allocator.last_error();
    ASSERT_TRUE(allocator.alloc_graph(graph)) << allocator.last_error();

    EXPECT_EQ(allocator.buffer_size(0), 32u);
    EXPECT_EQ(allocator.buffer_size(1), 16u);
    EXPECT_EQ(allocator.buffer_size(2), 0u);  // not counted twice
    EXPECT_EQ(allocator.chunk_sizes(0), std::vector<std::size_t>{32});
    EXPECT_EQ(allocator.chunk_sizes(2), std::vector<std::size_t>{});
    EXPECT_EQ(type.allocation_count(), 1u);
    // Places name the lowest id of the buffer; the plan remembers the id it was given.
    EXPECT_EQ(places(allocator), (Places{{"x", {0, 0, 0}}, {"y", {0, 0, 16}}, {"z", {1, 0, 0}}}));
    EXPECT_EQ(allocator.hash_node(x)->buffer_id, 2);
    EXPECT_EQ(allocator.leaf_allocs()[0].buffer_id, 2);
    EXPECT_EQ(allocator.node_allocs()[1].dst.buffer_id, 1);
}

// reserve_n_size reports every id's allocator total, so shared ids repeat it.
TEST_F(SharedBufferTypes, MeasuredSizesRepeatForSharedIds) {
    const auto sizes = allocator.reserve_n_size(graph, node_ids, leaf_ids);
    ASSERT_TRUE(sizes.has_value()) << allocator.last_error();
    EXPECT_EQ(*sizes, (std::vector<std::size_t>{32, 16, 32}));
}

TEST_F(GraphAllocatorTest, BadBufferIdsAreRefused) {
    Tensor& a = vec("a");
    Tensor& c = named(ggml.cont(a), "c");
    expand(c);
    GraphAllocator allocator(type);

    const std::array<int, 1> out_of_range{1};
    EXPECT_FALSE(allocator.reserve_n(graph, out_of_range, {}));
    EXPECT_EQ(allocator.last_error(), "node 0 has buffer id 1, but there are 1 buffers");

    const std::array<int, 1> negative{-1};
    EXPECT_FALSE(allocator.reserve_n(graph, {}, negative));
    EXPECT_EQ(allocator.last_error(), "leaf 0 has buffer id -1, but there are 1 buffers");

    const std::array<int, 2> too_many{0, 0};
    EXPECT_FALSE(allocator.reserve_n(graph, too_many, {}));
    EXPECT_EQ(allocator.last_error(), "node buffer ids: 2 given for 1 tensors");
    EXPECT_FALSE(allocator.reserve_n_size(graph, too_many, {}).has_value());

    EXPECT_TRUE(allocator.reserve(graph)) << allocator.last_error();
}

// --- Re-planning --------------------------------------------------------------------

class Replanning : public GraphAllocatorTest {
protected:
    // a -> b = cont(a) -> c = cont(b)
    void SetUp() override {
        Tensor& c = named(ggml.cont(named(ggml.cont(vec("a")), "b")), "c");
        set_output(c);
        expand(c);
    }
    Tensor& b() { return *context.find("b"); }

    // b grows from 4 to 8 elements, as when a graph is rebuilt for a longer batch.
    void grow_b() {
        forget_memory();
        b().ne = {8, 1, 1, 1};
        b().nb = contiguous_strides(DataType::f32, b().ne);
    }
};

TEST_F(Replanning, SameGraphNeedsNoNewPlan) {
    GraphAllocator allocator(type);
    EXPECT_TRUE(allocator.needs_realloc(graph));  // nothing planned yet
    plan(allocator);
    EXPECT_FALSE(allocator.needs_realloc(graph));
    forget_memory();
    EXPECT_FALSE(allocator.needs_realloc(graph));
}

// b no longer fits its planned 16 bytes: one buffer, so alloc_graph plans again.
//
//   before:  | a    | b    |            after:  | a    | b           |
//            | c    |      |                    | c    |             |
TEST_F(Replanning, GrownTensorIsReplannedAutomatically) {
    GraphAllocator allocator(type);
    plan(allocator);
    ASSERT_EQ(allocator.buffer_size(0), 32u);

    grow_b();
    EXPECT_TRUE(allocator.needs_realloc(graph));
    ASSERT_TRUE(allocator.alloc_graph(graph)) << allocator.last_error();
    EXPECT_EQ(allocator.buffer_size(0), 48u);
    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 16}}, {"c", {0, 0, 0}}}));
    EXPECT_EQ(type.allocation_count(), 2u);
    EXPECT_EQ(type.live_buffers(), 1u);
}

TEST_F(Replanning, GrownTensorWithSeveralBuffersNeedsReserve) {
    ConfigurableBufferType other(dummy_backend(kSizeMax, 16, "other"));
    const std::array<BufferType*, 2> types{&type, &other};
    GraphAllocator allocator(types);
    plan(allocator);

    grow_b();
    EXPECT_FALSE(allocator.alloc_graph(graph));
    EXPECT_EQ(allocator.last_error(),
              "the graph needs a new plan and there are 2 buffers: call reserve_n with the buffer ids first");
    EXPECT_EQ(b().data, nullptr);
}

// reserve_n_size plans and measures but allocates nothing. Upstream's alloc_graph would
// then place tensors in buffers that do not exist; here a missing buffer means "plan
// again": with one buffer alloc_graph does so (our documented divergence) ...
TEST_F(Replanning, AfterMeasuringOneBufferIsPlannedByAllocGraph) {
    GraphAllocator allocator(type);
    const auto sizes = allocator.reserve_n_size(graph, {}, {});
    ASSERT_TRUE(sizes.has_value());
    EXPECT_EQ(*sizes, std::vector<std::size_t>{32});
    EXPECT_EQ(type.allocation_count(), 0u);
    EXPECT_EQ(allocator.buffer_size(0), 0u);
    EXPECT_FALSE(allocator.needs_realloc(graph));  // the plan is there, the buffer is not

    ASSERT_TRUE(allocator.alloc_graph(graph)) << allocator.last_error();
    EXPECT_EQ(type.allocation_count(), 1u);
    EXPECT_EQ(allocator.buffer_size(0), 32u);
    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"b", {0, 0, 16}}, {"c", {0, 0, 0}}}));
}

// ... and with several it fails instead of crashing.
TEST_F(Replanning, AfterMeasuringSeveralBuffersAllocGraphFails) {
    ConfigurableBufferType other(dummy_backend(kSizeMax, 16, "other"));
    const std::array<BufferType*, 2> types{&type, &other};
    GraphAllocator allocator(types);
    const auto sizes = allocator.reserve_n_size(graph, {}, {});
    ASSERT_TRUE(sizes.has_value());
    EXPECT_EQ(*sizes, (std::vector<std::size_t>{32, 0}));

    EXPECT_FALSE(allocator.alloc_graph(graph));
    EXPECT_NE(allocator.last_error().find("call reserve_n"), std::string::npos);
    EXPECT_EQ(type.allocation_count(), 0u);
}

// --- Failures -----------------------------------------------------------------------

class BufferFailure : public GraphAllocatorTest {
protected:
    void SetUp() override {
        Tensor& c = named(ggml.cont(vec("a")), "c");
        set_output(c);
        expand(c);
    }
    BufferTypeSettings flaky(std::optional<std::size_t> fail_at) {
        BufferTypeSettings settings = dummy_backend(16, 16, "flaky");
        settings.fail_at_allocation = fail_at;
        return settings;
    }
};

// The backend refuses the buffer: reserve says which buffer type and how large, and the
// allocator works once the backend does.
TEST_F(BufferFailure, ReserveFailsWithTheBufferTypeAndSize) {
    type.set_settings(flaky(0));
    GraphAllocator allocator(type);
    EXPECT_FALSE(allocator.reserve(graph));
    EXPECT_EQ(allocator.last_error(), "failed to allocate flaky buffer of size 32");
    EXPECT_EQ(allocator.buffer_size(0), 0u);
    EXPECT_EQ(type.live_buffers(), 0u);

    type.set_settings(flaky(std::nullopt));
    ASSERT_TRUE(allocator.reserve(graph)) << allocator.last_error();
    ASSERT_TRUE(allocator.alloc_graph(graph)) << allocator.last_error();
    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{16, 16}));
    EXPECT_EQ(places(allocator), (Places{{"a", {0, 0, 0}}, {"c", {0, 1, 0}}}));
}

// Max size 16 makes two chunks; when the second cannot be had, the first is released too.
TEST_F(BufferFailure, FailedChunkReleasesTheChunksAlreadyAllocated) {
    type.set_settings(flaky(1));
    GraphAllocator allocator(type);
    EXPECT_FALSE(allocator.reserve(graph));
    EXPECT_EQ(type.allocation_count(), 2u);
    EXPECT_EQ(type.live_buffers(), 0u);
    EXPECT_EQ(allocator.chunk_sizes(0), std::vector<std::size_t>{});
}

// ggml cannot build a view that reaches past its source; a graph made some other way
// can. Planning never touches a view's bytes, so reserve goes through; alloc_graph then
// refuses to give the view an address rather than hand out memory that is not the view's.
TEST_F(GraphAllocatorTest, ViewReachingPastItsSourceIsRefused) {
    Tensor& a = vec("a");
    Tensor& v = named(ggml.view_1d(a, 2, 8), "v");
    Tensor& c = named(ggml.cont(v), "c");
    expand(c);
    v.ne[0] = 3;  // 12 bytes at offset 8 of a 16-byte tensor
    GraphAllocator allocator(type);

    EXPECT_TRUE(allocator.reserve(graph));
    EXPECT_FALSE(allocator.alloc_graph(graph));
    EXPECT_EQ(allocator.last_error(), "view v (12 bytes at offset 8) reaches past its source a (16 bytes)");
    EXPECT_EQ(v.data, nullptr);
    EXPECT_EQ(v.buffer, nullptr);
}

// A view of external data is checked too: its bytes past the source belong to someone else.
TEST_F(GraphAllocatorTest, ViewReachingPastExternalDataIsRefused) {
    Tensor& a = vec("a");
    std::array<float, 4> weights{};
    a.data = weights.data();
    Tensor& v = named(ggml.view_1d(a, 2, 8), "v");
    Tensor& c = named(ggml.cont(v), "c");
    expand(c);
    v.view_offs = 12;  // 8 bytes at offset 12 of a 16-byte tensor
    GraphAllocator allocator(type);

    EXPECT_TRUE(allocator.reserve(graph));
    EXPECT_FALSE(allocator.alloc_graph(graph));
    EXPECT_EQ(allocator.last_error(), "view v (8 bytes at offset 12) reaches past its source a (16 bytes)");
}

// A leaf that sits in a buffer but has no address (a zero-size buffer) cannot be given
// memory: upstream aborts in alloc_graph; here alloc_graph returns false and says why.
TEST_F(GraphAllocatorTest, LeafWithABufferButNoDataFailsAllocGraph) {
    std::unique_ptr<Buffer> empty = type.allocate(0);
    Tensor& a = vec("a");
    a.buffer = empty.get();
    Tensor& c = named(ggml.add(a, vec("b")), "c");
    set_output(c);
    expand(c);
    GraphAllocator allocator(type);

    ASSERT_TRUE(allocator.reserve(graph)) << allocator.last_error();
    EXPECT_FALSE(allocator.alloc_graph(graph));
    EXPECT_EQ(allocator.last_error(),
              "tensor a already has memory (a buffer but no address: it sits in a zero-size buffer) (upstream aborts here)");
}

// Zero-element tensors take 0 bytes; when a chunk holds nothing else it is a zero-size
// buffer with no base, so x gets a buffer but no address, and the next time alloc_graph
// meets x (as y's source) upstream aborts. Here alloc_graph returns false.
TEST_F(GraphAllocatorTest, ChunkOfOnlyZeroByteTensorsFailsAllocGraph) {
    Tensor& x = vec("x", 0);
    Tensor& y = named(ggml.scale(x, 2.0f), "y");
    set_output(y);
    expand(y);
    GraphAllocator allocator(type);

    ASSERT_TRUE(allocator.reserve(graph)) << allocator.last_error();
    EXPECT_EQ(allocator.chunk_sizes(0), std::vector<std::size_t>{0});
    EXPECT_FALSE(allocator.alloc_graph(graph));
    EXPECT_EQ(allocator.last_error(),
              "tensor x already has memory (a buffer but no address: it sits in a zero-size buffer) (upstream aborts here)");
}

// Buffers are reallocated only when a chunk of the new plan is larger than the one kept (as
// upstream), so a new last chunk holding only zero bytes never makes a buffer grow: z, a
// zero-byte leaf, is planned in a chunk the kept buffer lacks. Upstream then hands
// ggml_backend_buffer_get_base a null chunk and aborts; here alloc_graph returns false.
// Chunks of at most 16 bytes:
//
//   graph A (x1, x2, o = x1 + x2)       graph B (A and the 0-byte leaf z)
//   chunk 0: | x1, then o |             chunk 0: | x1, then o |
//   chunk 1: | x2         |             chunk 1: | x2         |
//                                       chunk 2: || z (0 bytes; both chunks are full)
TEST(KeptBuffer, LacksANewChunkOfZeroBytes) {
    Context context;
    GraphBuilder ggml(context);
    Tensor& x1 = ggml.new_tensor(DataType::f32, {4}, "x1");
    Tensor& x2 = ggml.new_tensor(DataType::f32, {4}, "x2");
    Tensor& o = ggml.add(x1, x2);
    o.name = "o";
    set_output(o);
    Tensor& z = ggml.new_tensor(DataType::f32, {0}, "z");
    Graph a;
    build_forward_expand(a, o);
    Graph b;
    build_forward_expand(b, o);
    build_forward_expand(b, z);
    ConfigurableBufferType type{dummy_backend(16, 16)};
    GraphAllocator allocator(type);

    ASSERT_TRUE(allocator.reserve(a)) << allocator.last_error();
    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{16, 16}));
    ASSERT_TRUE(allocator.reserve(b)) << allocator.last_error();
    EXPECT_EQ(allocator.chunk_sizes(0), (std::vector<std::size_t>{16, 16}));  // kept: no chunk grew
    EXPECT_FALSE(allocator.alloc_graph(b));
    EXPECT_EQ(allocator.last_error(),
              "tensor z is planned in chunk 2 of buffer 0, which the buffer kept from an earlier plan lacks: "
              "a new chunk of zero bytes does not make a buffer grow (upstream aborts here)");
}

// Leafs l0..l519 (8 bytes each, alignment 8); node i pads l(2i) to 16 bytes, which cannot
// go back into the 8-byte hole l(2i) leaves. Odd leafs are never freed, so every pad makes
// a new free block, and the 256th one is one too many.
//
//   | . | l1 | . | l3 | . | l5 | ... | pad0 | pad1 | ... tail
TEST_F(GraphAllocatorTest, MoreThan256FreeBlocksFailsReserve) {
    ConfigurableBufferType small(dummy_backend(kSizeMax, 8));
    for (int i = 0; i < 260; ++i) {
        Tensor& even = vec("l" + std::to_string(2 * i), 2);
        Tensor& odd = vec("l" + std::to_string(2 * i + 1), 2);
        expand(ggml.pad(even, {2, 0, 0, 0}));
        expand(odd);
    }
    GraphAllocator allocator(small);

    EXPECT_FALSE(allocator.reserve(graph));
    EXPECT_EQ(allocator.last_error(), "graph allocation failed: out of free blocks: chunk 0 already has 256 free blocks");
    EXPECT_EQ(small.allocation_count(), 0u);

    // The allocator plans the next graph as if nothing happened.
    Context other;
    GraphBuilder builder(other);
    Tensor& x = builder.new_tensor(DataType::f32, {2});
    Graph small_graph;
    build_forward_expand(small_graph, builder.cont(x));
    ASSERT_TRUE(allocator.reserve(small_graph)) << allocator.last_error();
    EXPECT_EQ(allocator.chunk_sizes(0), std::vector<std::size_t>{16});
}

} // namespace
// ggml_visit_parents order (sources first, each once) on a chain deeper than recursion can take:
// 300,000 SQR nodes, each reading the one before. The order is worked out from the chain itself:
// the one leaf x, then the nodes from the first SQR to the last. Walked by recursion, the chain
// took a frame per link (a 4096-layer model crashed under `ulimit -v` instead of running out of
// memory with a sentence); an explicit stack makes its depth heap memory.
TEST(ForwardExpand, AChainDeeperThanTheStackIsVisitedInOrder) {
    constexpr std::size_t kLinks = 300'000;
    Context context;
    GraphBuilder ggml(context);
    Tensor& x = ggml.new_tensor(DataType::f32, {1}, "x");
    std::vector<Tensor*> chain;
    chain.reserve(kLinks);
    Tensor* last = &x;
    for (std::size_t i = 0; i < kLinks; ++i) {
        last = &ggml.unary_op(Op::SQR, *last);
        chain.push_back(last);
    }
    Graph graph;
    build_forward_expand(graph, *last);
    EXPECT_EQ(graph.leafs, std::vector<Tensor*>{&x});
    EXPECT_EQ(graph.nodes, chain);
}

} // namespace gallocsim
