// Lifetimes as ggml's plan gives them (read off its trace), and the bounds they give. Each
// expectation is worked out from ggml's release rule by hand, in the picture above it. Step 0
// is the start (leafs and inputs); step i+1 is node i running.
#include "simulator/analysis/analysis.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/what_if.hpp"
#include "simulator/analysis/in_place_bound.hpp"
#include "simulator/model/examples.hpp"

#include "golden_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <vector>

namespace gallocsim {
namespace {

const std::string& name_of(const GraphFile& file, TensorId id) {
    return file.context.tensors()[static_cast<std::size_t>(id)].name;
}

struct Span {
    int first;
    int last;
    LifetimeEnd end;
    bool operator==(const Span&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Span& s) {
    return out << "[" << s.first << ", " << s.last << "] end " << static_cast<int>(s.end);
}

std::map<std::string, Span> spans(const GraphFile& file, const GraphLifetimes& lifetimes) {
    std::map<std::string, Span> out;
    for (const TensorLifetime& l : lifetimes.tensors) {
        out[name_of(file, l.tensor)] = {l.first, l.last, l.end};
    }
    return out;
}

GraphLifetimes lifetimes_of(const GraphFile& file) {
    return run_ggml_plan(file).lifetimes;
}

TensorId id_of(const GraphFile& file, const std::string& name) {
    return static_cast<TensorId>(file.context.find(name)->index);
}

GraphFile parse(const std::string& json) {
    return parse_graph_file(json, "test.json");
}

// a, b and mul all live at step 1: the bound is 3 x 32 bytes. ggml needs only 64, because
// mul runs in place of a; the bound assumes no in-place reuse.
//
//   step:   0 (start)   1 (mul)
//   a       #########   #########
//   b       #########   #########
//   mul                 #########   output: kept to the end
TEST(Lifetimes, SeedGraph) {
    const GraphFile file = seed_example();
    const GraphLifetimes lifetimes = lifetimes_of(file);
    EXPECT_EQ(lifetimes.step_count, 2);
    EXPECT_EQ(spans(file, lifetimes), (std::map<std::string, Span>{{"a", {0, 1, LifetimeEnd::last_consumer}},
                                                            {"b", {0, 1, LifetimeEnd::last_consumer}},
                                                            {"mul", {1, 1, LifetimeEnd::output}}}));
    const auto problems = arena_problems(file, lifetimes);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].blocks.size(), 3u);
    EXPECT_EQ(problems[0].blocks[0].size, 32u);  // 4 bytes, aligned to 32
    EXPECT_EQ(lower_bound(problems[0].blocks).bytes, 96u);
    EXPECT_EQ(lower_bound(problems[0].blocks).step, 1);
    EXPECT_EQ(no_reuse_size(problems[0].blocks), 96u);
    EXPECT_EQ(live_bytes_per_step(problems[0].blocks, lifetimes.step_count), (std::vector<std::size_t>{64, 96}));
}

// result has no consumer and no output flag: nothing ever releases it.
//
//   step:   0     1 (ab)   2 (result)
//   c       ###   ###      ###
//   a2      ###   ###
//   b2      ###   ###
//   ab            ###      ###
//   result                 ###   never released
TEST(Lifetimes, SchedIssueGraph) {
    const GraphFile file = sched_issue_example();
    const GraphLifetimes lifetimes = lifetimes_of(file);
    EXPECT_EQ(spans(file, lifetimes), (std::map<std::string, Span>{{"c", {0, 2, LifetimeEnd::last_consumer}},
                                                            {"a2", {0, 1, LifetimeEnd::last_consumer}},
                                                            {"b2", {0, 1, LifetimeEnd::last_consumer}},
                                                            {"ab", {1, 2, LifetimeEnd::last_consumer}},
                                                            {"result", {2, 2, LifetimeEnd::never_released}}}));
    // In the order ggml allocates: the leafs c, a2, b2, then the nodes.
    std::vector<std::string> order;
    for (const auto& l : lifetimes.tensors) {
        order.push_back(name_of(file, l.tensor));
    }
    EXPECT_EQ(order, (std::vector<std::string>{"c", "a2", "b2", "ab", "result"}));
    EXPECT_EQ(lower_bound(arena_problems(file, lifetimes)[0].blocks).bytes, 128u);  // step 1: c, a2, b2, ab
    EXPECT_EQ(step_label(file, 0), "start");
    EXPECT_EQ(step_label(file, 2), "result");
}

// A view keeps its root alive: r is released only after y, which reads the view v, has run.
// Views and external weights have no lifetime of their own.
//
//   step:   0   1 (r)   2 (v)   3 (y)
//   x       #   #
//   r           #       #       #      released with its last view
//   y                           #      output
TEST(Lifetimes, AViewKeepsItsRootAlive) {
    const GraphFile file = parse(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [
          {"name": "x", "ne": [8], "flags": ["input"]},
          {"name": "w", "ne": [8], "data": true},
          {"name": "r", "ne": [8], "op": "MUL", "src": ["x", "w"]},
          {"name": "v", "ne": [4], "op": "VIEW", "src": ["r"], "view_src": "r", "view_offs": 16},
          {"name": "y", "ne": [4], "op": "SQR", "src": ["v"], "flags": ["output"]}],
        "leafs": ["x", "w"], "nodes": ["r", "v", "y"]})");
    const GraphLifetimes lifetimes = lifetimes_of(file);
    EXPECT_EQ(spans(file, lifetimes), (std::map<std::string, Span>{{"x", {0, 1, LifetimeEnd::last_consumer}},
                                                            {"r", {1, 3, LifetimeEnd::last_view}},
                                                            {"y", {3, 3, LifetimeEnd::output}}}));
}

// Buffer ids that share a buffer type plan in one arena; each tensor is sized by its type's
// rule and alignment (CUDA pads a quantized row to 512 elements: 18 + 15 x 18 = 288 bytes).
TEST(Lifetimes, ArenasFollowBufferTypes) {
    const GraphFile file = parse(R"({"format": "ggml-graph/1",
        "buffer_types": [{"name": "CUDA0", "alignment": 128, "alloc_size": "cuda"}, {"name": "CPU", "alignment": 32}],
        "buffers": ["CUDA0", "CPU", "CUDA0"],
        "tensors": [
          {"name": "q", "type": "q4_0", "ne": [32], "flags": ["input"]},
          {"name": "x", "ne": [3], "flags": ["input"]},
          {"name": "y", "ne": [32], "op": "GET_ROWS", "src": ["x", "x"]},
          {"name": "z", "ne": [32], "op": "ADD", "src": ["y", "y"], "flags": ["output"]}],
        "leafs": ["q", "x"], "nodes": ["y", "z"],
        "leaf_buffer_ids": [2, 1], "node_buffer_ids": [1, 2]})");
    const GraphLifetimes lifetimes = lifetimes_of(file);
    const auto problems = arena_problems(file, lifetimes);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].name, "CUDA0");
    ASSERT_EQ(problems[0].blocks.size(), 2u);  // q (id 2) and z (id 2): both CUDA0
    EXPECT_EQ(problems[0].blocks[0].name, "q");
    EXPECT_EQ(problems[0].blocks[0].size, 384u);  // 288 rounded up to 128
    EXPECT_EQ(problems[0].blocks[0].alignment, 128u);
    EXPECT_EQ(problems[0].blocks[1].name, "z");
    EXPECT_EQ(problems[1].name, "CPU");
    ASSERT_EQ(problems[1].blocks.size(), 2u);  // x and y
    EXPECT_EQ(lifetimes.find(id_of(file, "q"))->size, 288u);
    EXPECT_EQ(lifetimes.find(id_of(file, "q"))->arena, 0);
    EXPECT_EQ(lifetimes.find(id_of(file, "q"))->buffer_id, 2);
}

// Replays ggml's events into the step each tensor got memory and the step it gave it back,
// with a bookkeeping of its own (node steps counted from the events, not the trace's
// timeline), so that the lifetimes read off the timeline can be held against it.
class StepRecorder final : public EventListener {
public:
    explicit StepRecorder(const Graph& graph) {
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
            step_of_node_[graph.nodes[i]] = static_cast<int>(i) + 1;
        }
    }

    void on_event(const ObservedEvent& event) override {
        std::visit([&](const auto& e) { handle(e); }, event);
    }

    std::map<std::string, int> allocated;  // tensor -> step it got memory
    std::map<std::string, int> released;   // tensor -> step its memory (or its claim to it) ended

private:
    void at_node(const Tensor* node) {
        step_ = step_of_node_.at(node);
        for (const Tensor* parent : pending_) {
            allocated[parent->name] = step_;
        }
        pending_.clear();
    }
    void handle(const Observed<event::TensorAllocated>& e) {
        switch (e.phase) {
        case AllocationPhase::leaf:
        case AllocationPhase::graph_input: allocated[e.tensor->name] = kStartStep; break;
        case AllocationPhase::parent: pending_.push_back(e.tensor); break;  // its node's step comes next
        case AllocationPhase::node: at_node(e.tensor); allocated[e.tensor->name] = step_; break;
        }
    }
    // Input nodes get memory in the counting pass, before any node runs: at the start.
    void handle(const Observed<event::InPlaceReused>& e) {
        const bool input = e.node->has_flag(TensorFlag::input);
        if (!input) {
            at_node(e.node);
        }
        allocated[e.node->name] = input ? kStartStep : step_;
        released[e.parent->name] = step_of_node_.at(e.node);  // the node is the parent's last consumer
    }
    void handle(const Observed<event::InPlaceRejected>& e) {
        if (!e.node->has_flag(TensorFlag::input)) {
            at_node(e.node);
        }
    }
    void handle(const Observed<event::ParentReleased>& e) { at_node(e.node); }
    void handle(const Observed<event::TensorFreed>& e) { released[e.tensor->name] = step_; }
    template <typename Other>
    void handle(const Other&) {}

    std::map<const Tensor*, int> step_of_node_;
    std::vector<const Tensor*> pending_;
    int step_ = kStartStep;
};

// Every tensor ggml allocates has a lifetime that starts at the step ggml allocated it and
// ends where ggml freed it (or where a node took its memory in place); tensors ggml never
// frees last to the final step.
TEST(GoldenLifetimes, MatchTheAllocatorsOwnEvents) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        const GraphFile file = load_graph_file(path);
        PlanRun run = prepare_plan(file);
        StepRecorder recorder(run.planned.graph);
        carry_out_plan(run, &recorder);
        ASSERT_TRUE(run.error.empty()) << run.error;
        const GraphLifetimes lifetimes = lifetimes_of(file);
        std::map<std::string, int> first;
        for (const TensorLifetime& l : lifetimes.tensors) {
            const std::string& name = name_of(file, l.tensor);
            first[name] = l.first;
            const auto freed = recorder.released.find(name);
            EXPECT_EQ(l.last, freed != recorder.released.end() ? freed->second : lifetimes.step_count - 1) << name;
            if (freed == recorder.released.end()) {
                EXPECT_TRUE(l.end == LifetimeEnd::output || l.end == LifetimeEnd::never_released) << name;
            }
        }
        EXPECT_EQ(first, recorder.allocated);
    });
}

// compare_planners plans the file and lets the plan go: the buffers go with it, and since the
// plan was made on a copy, no tensor of the file is left pointing into them.
TEST(ComparePlanners, LeavesNoAddressInTheFile) {
    const GraphFile file = make_example("llama");
    const Comparison comparison = compare_planners(file, run_ggml_plan(file));
    ASSERT_EQ(comparison.ggml_error, "");
    for (const Tensor& t : file.context.tensors()) {
        EXPECT_EQ(t.data, nullptr) << t.name;
        EXPECT_EQ(t.buffer, nullptr) << t.name;
    }
}

// PlansWithout answers every question on one working copy of the file, its own or the one
// ggml's plan wrote into. Each answer must be the plan of a fresh copy of the file with that
// tensor's data outside the buffers, whatever was asked before it: asked here, on every golden
// file, for the last dozen tensors ggml gave memory (the last first), then the first again.
// buffer_sizes_without_each, which shares the questions between two threads on two copies, must
// give the same answers in the order asked.
TEST(PlansWithout, EachAnswerIsAFreshPlanWithThatTensorExternal) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        const GraphFile file = load_graph_file(path);
        GgmlPlan ggml = run_ggml_plan(file);
        std::vector<TensorId> asked;
        for (const TensorLifetime& lifetime : ggml.lifetimes.tensors) {
            asked.insert(asked.begin(), lifetime.tensor);
        }
        if (asked.size() > 12) {
            asked.resize(12);
        }
        if (!asked.empty()) {
            asked.push_back(asked.front());
        }
        const auto each = buffer_sizes_without_each(file, newest_profile(), asked);
        ASSERT_EQ(each.size(), asked.size());
        PlansWithout own_copy(file, newest_profile());
        PlansWithout plans_copy(file, newest_profile(), std::move(ggml.run));
        for (std::size_t i = 0; const TensorId tensor : asked) {
            GraphFile without = load_graph_file(path);
            without.mark_external(without.context.tensors()[static_cast<std::size_t>(tensor)]);
            const PlanRun fresh = run_plan(without);
            const std::vector<std::size_t> expected = fresh.error.empty() ? fresh.plan.buffer_sizes : std::vector<std::size_t>{};
            EXPECT_EQ(own_copy.buffer_sizes_without(tensor), expected) << name_of(file, tensor);
            EXPECT_EQ(plans_copy.buffer_sizes_without(tensor), expected) << name_of(file, tensor);
            EXPECT_EQ(each[i++], expected) << name_of(file, tensor);
        }
    });
}

// The seed graph: a and b (4 bytes, 32-aligned) from the start, mul at step 1 in place of a.
//
//   without in-place reuse        with ggml's in-place decision
//   step 0: a b          64       step 0: a+mul b     64
//   step 1: a b mul      96       step 1: a+mul b     64   (mul is a's bytes)
//
// ggml's plan needs 64 bytes: below the plain bound, exactly the in-place-aware one.
TEST(InPlaceBound, SeedChainsMulWithA) {
    GraphFile file = make_example("seed");
    const GgmlPlan ggml = run_ggml_plan(file);
    const GraphLifetimes& lifetimes = ggml.lifetimes;
    const auto plain = arena_problems(file, lifetimes);
    const auto merged = in_place_arena_problems(file, lifetimes, ggml.in_place);
    ASSERT_EQ(merged.size(), 1u);
    ASSERT_EQ(merged[0].blocks.size(), 2u);
    EXPECT_EQ(merged[0].blocks[0].name, "a+mul");
    EXPECT_EQ(merged[0].blocks[0].first, 0);
    EXPECT_EQ(merged[0].blocks[0].last, 1);
    EXPECT_EQ(merged[0].blocks[0].size, 32u);
    EXPECT_EQ(lower_bound(plain[0].blocks).bytes, 96u);
    EXPECT_EQ(lower_bound(merged[0].blocks).bytes, 64u);
    EXPECT_EQ(ggml.run.plan.buffer_sizes[0], 64u);
}

// ggml's plan never needs less than the in-place-aware bound, on every golden file and
// every buffer type (ids of one type share an allocator: their chunks together).
TEST(InPlaceBound, GgmlIsNeverBelowItOnTheGoldenCorpus) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        GraphFile file = load_graph_file(path);
        const GgmlPlan ggml = run_ggml_plan(file);
        if (!ggml.run.error.empty()) {
            return;  // a file whose expected plan is a failure
        }
        const auto merged = in_place_arena_problems(file, ggml.lifetimes, ggml.in_place);
        for (std::size_t type = 0; type < merged.size(); ++type) {
            std::size_t planned = 0;
            for (int id = 0; id < file.buffer_count(); ++id) {
                if (static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(id)]) == type) {
                    for (std::size_t chunk : ggml.run.plan.chunk_sizes[static_cast<std::size_t>(id)]) {
                        planned += chunk;
                    }
                }
            }
            EXPECT_LE(lower_bound(merged[type].blocks).bytes, planned) << merged[type].name;
        }
    });
}

} // namespace
} // namespace gallocsim
