// working_copy: a graph file is input only, and a plan writes into a copy of its tensors.
// The expectations follow from the copy's contract (same order, links within the copy,
// outside memory as ggml tells it: data without a buffer), not from what the code printed.
#include "reference/builder.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/model/working_graph.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

// w is a weight (`data: true`), x an input; y = wv + x reads a view of the weight.
//
//   w [8] (outside) ──view 16 B on──► wv [4] ─┐
//   x [4] (input) ────────────────────────────┴─► y = ADD(wv, x) (output)
GraphFile weight_and_input() {
    GraphFile file;
    file.name = "weight-and-input";
    file.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
    file.buffers = {0};
    GraphBuilder b(file.context);
    Tensor& w = b.new_tensor(DataType::f32, {8}, "w");
    file.mark_external(w);
    Tensor& x = b.new_tensor(DataType::f32, {4}, "x");
    set_input(x);
    Tensor& wv = b.view_1d(w, 4, 16);
    wv.name = "wv";
    Tensor& y = b.add(wv, x);
    y.name = "y";
    set_output(y);
    build_forward_expand(file.graph, y);
    return file;
}

bool points_into(const WorkingGraph& copy, const Tensor* tensor) {
    return tensor != nullptr && tensor->index < copy.context.size() && &copy.context.tensors()[tensor->index] == tensor;
}

std::vector<std::string> names(const std::vector<Tensor*>& list) {
    std::vector<std::string> out;
    for (const Tensor* t : list) {
        out.push_back(t->name);
    }
    return out;
}

TEST(WorkingCopy, KeepsTheOrderAndLinksWithinTheCopy) {
    const GraphFile file = weight_and_input();
    const WorkingGraph copy = working_copy(file);
    ASSERT_EQ(copy.context.size(), file.context.size());
    for (const Tensor& original : file.context.tensors()) {
        const Tensor& copied = copy.copy_of(original);
        EXPECT_NE(&copied, &original);
        EXPECT_EQ(copied.name, original.name);
        EXPECT_EQ(copied.index, original.index);  // so trace ids are the same in both
        for (std::size_t k = 0; k < copied.src.size(); ++k) {
            if (original.src[k] == nullptr) {
                EXPECT_EQ(copied.src[k], nullptr);
                continue;
            }
            EXPECT_TRUE(points_into(copy, copied.src[k])) << copied.name << " src " << k;
            EXPECT_EQ(copied.src[k]->name, original.src[k]->name);
        }
    }
    const Tensor& wv = *copy.context.find("wv");
    EXPECT_TRUE(points_into(copy, wv.view_src));
    EXPECT_EQ(wv.view_src->name, "w");
    EXPECT_EQ(names(copy.graph.leafs), names(file.graph.leafs));
    EXPECT_EQ(names(copy.graph.nodes), names(file.graph.nodes));
    for (const auto* list : {&copy.graph.leafs, &copy.graph.nodes}) {
        for (const Tensor* t : *list) {
            EXPECT_TRUE(points_into(copy, t)) << t->name;
        }
    }
}

// ggml's allocator leaves alone a tensor that already has data; a weight's copy has an
// address and no buffer, every other tensor neither.
TEST(WorkingCopy, GivesOutsideMemoryAnAddressAndNothingElse) {
    const GraphFile file = weight_and_input();
    const WorkingGraph copy = working_copy(file);
    for (const Tensor& t : copy.context.tensors()) {
        EXPECT_EQ(t.buffer, nullptr) << t.name;
        EXPECT_EQ(t.data != nullptr, t.name == "w") << t.name;
    }
    EXPECT_EQ(copy.context.find("w")->data, external_data_placeholder());
}

TEST(WorkingCopy, PlanningLeavesTheFileWithoutAnAddress) {
    const GraphFile file = weight_and_input();
    const PlanRun run = run_plan(file);
    ASSERT_EQ(run.error, "");
    for (const Tensor& t : file.context.tensors()) {
        EXPECT_EQ(t.data, nullptr) << t.name;
        EXPECT_EQ(t.buffer, nullptr) << t.name;
    }
    // The plan's addresses are in the run's copy: x and y in the allocator's buffer, the
    // weight still outside it.
    EXPECT_NE(run.planned.context.find("x")->buffer, nullptr);
    EXPECT_NE(run.planned.context.find("y")->buffer, nullptr);
    EXPECT_EQ(run.planned.context.find("w")->buffer, nullptr);
    EXPECT_TRUE(file.is_external(*file.context.find("w")));
}

// A program builds its graph afresh for every call: forget_addresses gives that state back.
TEST(WorkingCopy, ForgettingAddressesGivesTheFreshCopyBack) {
    const GraphFile file = weight_and_input();
    PlanRun run = run_plan(file);
    ASSERT_EQ(run.error, "");
    run.planned.forget_addresses();
    const WorkingGraph fresh = working_copy(file);
    for (const Tensor& t : run.planned.context.tensors()) {
        const Tensor& want = fresh.context.tensors()[t.index];
        EXPECT_EQ(t.data, want.data) << t.name;
        EXPECT_EQ(t.buffer, want.buffer) << t.name;
    }
}

// reset_addresses gives the fresh copy back exactly, from the file: a view marked external
// (data of its own) keeps its placeholder, which forget_addresses cannot tell from a plan's.
TEST(WorkingCopy, ResettingAddressesGivesTheFreshCopyBackExactly) {
    GraphFile file = weight_and_input();
    file.mark_external(*file.context.find("wv"));
    PlanRun run = run_plan(file);
    ASSERT_EQ(run.error, "");
    run.planned.reset_addresses(file);
    const WorkingGraph fresh = working_copy(file);
    for (const Tensor& t : run.planned.context.tensors()) {
        const Tensor& want = fresh.context.tensors()[t.index];
        EXPECT_EQ(t.data, want.data) << t.name;
        EXPECT_EQ(t.buffer, want.buffer) << t.name;
    }
    EXPECT_EQ(run.planned.context.find("wv")->data, external_data_placeholder());

    GraphFile other;
    other.name = "other";
    EXPECT_THROW(run.planned.reset_addresses(other), std::invalid_argument);
}

// A tensor in a buffer without data (`data: "buffer"`) is copied as ggml's no_alloc load
// leaves a weight: the placeholder buffer, no address; a plan and forget_addresses keep it so.
TEST(WorkingCopy, GivesATensorOnAnOutsideBufferThePlaceholderBufferAndNoAddress) {
    GraphFile file = weight_and_input();
    file.mark_on_external_buffer(*file.context.find("x"));
    WorkingGraph copy = working_copy(file);
    const Tensor& x = *copy.context.find("x");
    EXPECT_EQ(x.buffer, external_buffer_placeholder());
    EXPECT_EQ(x.data, nullptr);
    copy.forget_addresses();
    EXPECT_EQ(x.buffer, external_buffer_placeholder());
    EXPECT_EQ(x.data, nullptr);
    EXPECT_EQ(copy.context.find("y")->buffer, nullptr);
}

// A source in another context cannot be found by its index: the copy would link a stranger.
TEST(WorkingCopy, RefusesALinkToATensorOfAnotherContext) {
    GraphFile file = weight_and_input();
    Context elsewhere;
    Tensor lost;
    lost.name = "stranger";
    Tensor& stranger = elsewhere.add(lost);
    file.context.find("y")->src[1] = &stranger;
    try {
        working_copy(file);
        FAIL() << "no error";
    } catch (const GraphFileError& error) {
        EXPECT_STREQ(error.what(), "'weight-and-input': tensor 'stranger' is linked but not in the graph's context");
    }
}

} // namespace
} // namespace gallocsim
