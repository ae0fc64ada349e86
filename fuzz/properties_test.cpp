// Property-based checks of the graph allocator on generated ggml-like graphs (see
// recipe.hpp for what the graphs contain and fuzz/README.md for budgets and replay).
// Each property says why it matters. The oracles (oracle.hpp, free_list.hpp) share no
// code with the allocator: they read the graph and the addresses it gave.
#include "fuzz/counterexample.hpp"
#include "fuzz/free_list.hpp"
#include "fuzz/independent_checks.hpp"
#include "fuzz/property_support.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it needs

#include <algorithm>
#include <set>

namespace gallocsim::fuzz {
namespace {

std::size_t buffer_allocations(const std::vector<std::unique_ptr<ConfigurableBufferType>>& types) {
    std::size_t total = 0;
    for (const auto& type : types) {
        total += type->allocation_count();
    }
    return total;
}

// Counts re-plans (reserve, or alloc_graph planning again).
class PlanCounter final : public EventListener {
public:
    void on_event(const ObservedEvent& event) override { plans += std::holds_alternative<Observed<event::PlanStarted>>(event) ? 1 : 0; }
    int plans = 0;
};

// Did some node run in place (at the address of a source it may overwrite)?
bool has_in_place_node(const Graph& graph) {
    return std::ranges::any_of(graph.nodes, [](const Tensor* node) {
        return placed_by_allocator(*node) && node->buffer != nullptr && newest_profile().can_inplace(node->op) &&
               std::ranges::any_of(node->src, [&](const Tensor* src) {
                   return src != nullptr && src != node && placed_by_allocator(*src) && src->data == node->data &&
                          src->buffer == node->buffer;
               });
    });
}

void classify(const GraphFile& file, const PlanRun& run) {
    std::size_t chunks = 0;
    for (const auto& sizes : run.plan.chunk_sizes) {
        chunks = std::max(chunks, sizes.size());
    }
    RC_CLASSIFY(file.graph.nodes.size() >= 20, "20+ nodes");
    RC_CLASSIFY(has_in_place_node(run.planned.graph), "in-place reuse");
    RC_CLASSIFY(chunks > 1, "several chunks");
    RC_CLASSIFY(chunks == static_cast<std::size_t>(kMaxChunks), "16 chunks");
    RC_CLASSIFY(file.buffer_count() > 1, "several buffer ids");
    RC_CLASSIFY(!run.plan.alloc_graph, "zero-byte chunk (expected failure)");
}

// --- The generator ------------------------------------------------------------------

// Every property below saves failing graphs as files to be replayed, so every generated
// graph must be one the graph-file validator accepts and that survives a save and load
// unchanged, down to its plan.
RC_GTEST_PROP(Generator, GraphsAreValidGraphFiles, ()) {
    Generated g = generate();
    keeping_counterexample("generator", g.json, [&] {
        GraphFile loaded = parse_graph_file(g.json, "generated");
        RC_ASSERT(graph_file_to_json(loaded) == g.json);
        const PlanRun original = run_plan(g.file);
        const PlanRun reloaded = run_plan(loaded);
        RC_ASSERT_NONE(compare_plans(original.plan, reloaded.plan, loaded.context));
        classify(g.file, original);
    });
}

// --- Property 1: no overlap ---------------------------------------------------------

// The allocator's one job: two tensors that hold memory at the same step never share a
// byte, or a kernel would read another tensor's data. The only sharing allowed is an
// in-place child that took over its parent's memory at the parent's last use (views
// share their root's bytes and hold none of their own). Lifetimes come from the oracle's
// own reading of ggml's rule, not from the allocator.
RC_GTEST_PROP(Plan, NoTwoLiveTensorsShareAByte, ()) {
    // ggml_set_input on an op node is left out: upstream may then put a leaf over another
    // leaf (UpstreamQuirks.InputFlaggedOpNodeCanPutALeafOverAnotherLeaf), a bug this
    // property finds within a few thousand cases.
    Generated g = generate({.inputs_on_op_nodes = false});
    keeping_counterexample("no-overlap", g.json, [&] {
        const PlanRun run = run_plan(g.file);
        if (planned(run)) {
            RC_ASSERT_NONE(overlap_violations(run.planned.graph, Lifetimes(run.planned.graph)));
        }
    });
}

// --- Property 2: bounds and alignment ------------------------------------------------

// Backends assume every tensor is aligned and inside its buffer; buffers should be no
// larger than the plan needs, and max_size (a backend's largest allocation) is exceeded
// only when a single tensor cannot fit otherwise.
RC_GTEST_PROP(Plan, AddressesAreAlignedAndInsideTheirChunks, ()) {
    Generated g = generate();
    keeping_counterexample("bounds", g.json, [&] {
        const PlanRun run = run_plan(g.file);
        if (planned(run)) {
            RC_ASSERT_NONE(bounds_violations(g.file, run.planned.graph, *run.allocator));
        }
    });
}

// --- Property 3: inputs and outputs -------------------------------------------------

// The application writes inputs before compute and reads outputs after it: an input
// overwritten before its last use, or an output reused or freed, is wrong results
// with no crash. Checked with "last use" (the last node reading a tensor or a view of
// it), a simpler rule than property 1's release rule, as a cross-check.
RC_GTEST_PROP(Plan, InputsSurviveUntilTheirLastUse, ()) {
    Generated g = generate({.inputs_on_op_nodes = false});  // see NoTwoLiveTensorsShareAByte
    keeping_counterexample("inputs", g.json, [&] {
        const PlanRun run = run_plan(g.file);
        if (planned(run)) {
            RC_ASSERT_NONE(input_violations(run.planned.graph, Lifetimes(run.planned.graph)));
        }
    });
}

RC_GTEST_PROP(Plan, OutputsAreNeverFreedOrReused, ()) {
    Generated g = generate({.inputs_on_op_nodes = false});  // see NoTwoLiveTensorsShareAByte
    keeping_counterexample("outputs", g.json, [&] {
        const PlanRun run = run_plan(g.file);
        if (planned(run)) {
            RC_ASSERT_NONE(output_violations(run.planned.graph, Lifetimes(run.planned.graph)));
            for (const Tensor* node : run.planned.graph.nodes) {
                if (node->has_flag(TensorFlag::output) && placed_by_allocator(*node)) {
                    RC_ASSERT(run.allocator->hash_node(*node)->allocated);
                }
            }
        }
    });
}

// --- Property 6: free lists ---------------------------------------------------------

// Every allocation decision reads the free lists: if they ever lose or double-count a
// byte, or stop merging neighbours, later plans go wrong in ways no single plan shows.
// Checked after every event against the checker's own record of bytes in use. At the
// end, exactly the tensors ggml's rule never releases still hold memory: outputs,
// tensors nothing reads, and roots of views nothing reads.
RC_GTEST_PROP(Plan, FreeListsStayWellFormedAfterEveryEvent, ()) {
    Generated g = generate();
    keeping_counterexample("free-lists", g.json, [&] {
        const auto types = make_buffer_types(g.file);
        WorkingGraph planned = working_copy(g.file);
        GraphAllocator allocator(buffer_ids(g.file, types));
        FreeListChecker checker(allocator);
        allocator.set_observer(&checker);
        RC_ASSERT(allocator.reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids));
        RC_ASSERT_NONE(checker.problems());

        const Lifetimes lifetimes(planned.graph);
        std::set<const Tensor*> never_released;
        for (const auto* list : {&planned.graph.leafs, &planned.graph.nodes}) {
            for (const Tensor* t : *list) {
                if (const Lifetime* life = lifetimes.find(*t); life != nullptr && life->death == kNever) {
                    never_released.insert(t);
                }
            }
        }
        RC_ASSERT(checker.holding() == never_released);
    });
}

// --- Property 7: determinism and invariance -----------------------------------------

// A plan is a function of the graph: planning twice, or a copy loaded from its file,
// gives the same plan (no dependence on pointers, hashing or leftover state).
RC_GTEST_PROP(Invariance, PlansAreDeterministic, ()) {
    Generated g = generate();
    keeping_counterexample("determinism", g.json, [&] {
        const PlanRun first = run_plan(g.file);
        const PlanRun second = run_plan(g.file);
        GraphFile copy = parse_graph_file(g.json, "copy");
        const PlanRun third = run_plan(copy);
        RC_ASSERT_NONE(compare_plans(first.plan, second.plan, g.file.context));
        RC_ASSERT_NONE(compare_plans(first.plan, third.plan, g.file.context));
    });
}

// Names are labels: renaming every tensor (here in reverse order, so any ordering by
// name flips) must not move any tensor.
RC_GTEST_PROP(Invariance, RenamingTensorsChangesNothing, ()) {
    Generated g = generate();
    keeping_counterexample("renaming", g.json, [&] {
        GraphFile renamed = parse_graph_file(g.json, "renamed");
        const std::size_t count = renamed.context.size();
        for (std::size_t i = 0; i < count; ++i) {
            renamed.context.tensors()[i].name = "r" + std::to_string(1000000 - i);
        }
        const PlanRun original = run_plan(g.file);
        const PlanRun run = run_plan(renamed);
        RC_ASSERT(original.plan.buffer_sizes == run.plan.buffer_sizes);
        RC_ASSERT(original.plan.chunk_sizes == run.plan.chunk_sizes);
        RC_ASSERT(original.plan.tensors == run.plan.tensors);  // each tensor, by its id, at the same place
    });
}

// Scales a graph by k: every tensor's bytes, every view offset, every alignment and
// max_size times k. For each tensor, the dimension whose stride is the type size gets
// k times the elements and every other stride k times the bytes; ggml_nbytes then
// grows exactly k-fold (also for permuted views, whose element dimension is not 0), and
// tensors with the same layout before still have the same layout after.
GraphFile scaled(const std::string& json, std::size_t k) {
    GraphFile file = parse_graph_file(json, "scaled");
    for (Tensor& t : file.context.tensors()) {
        const auto element_dim = std::ranges::find(t.nb, type_size(t.type));
        RC_ASSERT(element_dim != t.nb.end());
        const auto d = static_cast<std::size_t>(element_dim - t.nb.begin());
        t.ne[d] *= static_cast<std::int64_t>(k);
        for (std::size_t i = 0; i < t.nb.size(); ++i) {
            t.nb[i] *= i == d ? 1 : k;
        }
        t.view_offs *= k;
    }
    for (BufferTypeSpec& type : file.buffer_types) {
        type.alignment *= k;
        if (type.max_size) {
            *type.max_size *= k;
        }
    }
    return file;
}

// The allocator only compares and adds sizes, so measuring in units k times larger must
// give the same plan with every offset and buffer size times k. This catches hidden
// constants (an alignment assumed, a size rounded to something fixed). Not for the cuda
// alloc-size rule: it pads quantized rows to 512 elements, a fixed constant by design.
RC_GTEST_PROP(Invariance, ScalingSizesByAPowerOfTwoScalesThePlan, ()) {
    Generated g = generate({.cuda_rule = false});
    const std::size_t k = std::size_t{1} << *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(1, 5));
    keeping_counterexample("scaling", g.json, [&] {
        GraphFile big = scaled(g.json, k);
        parse_graph_file(graph_file_to_json(big), "scaled");  // still a valid graph file
        const PlanRun small_run = run_plan(g.file);
        const PlanRun big_run = run_plan(big);
        RC_ASSERT(small_run.plan.reserve == big_run.plan.reserve);
        RC_ASSERT(small_run.plan.alloc_graph == big_run.plan.alloc_graph);
        auto times_k = [k](std::vector<std::size_t> sizes) {
            for (auto& size : sizes) {
                size *= k;
            }
            return sizes;
        };
        RC_ASSERT(times_k(small_run.plan.buffer_sizes) == big_run.plan.buffer_sizes);
        std::vector<std::vector<std::size_t>> chunks;
        std::ranges::transform(small_run.plan.chunk_sizes, std::back_inserter(chunks), times_k);
        RC_ASSERT(chunks == big_run.plan.chunk_sizes);
        auto places = small_run.plan.tensors;
        for (auto& [tensor, place] : places) {
            place.offset *= k;
        }
        RC_ASSERT(places == big_run.plan.tensors);
    });
}

// --- Property 8: reallocation -------------------------------------------------------

// Applications call alloc_graph once per evaluation on a freshly built, identical graph:
// it must reuse the plan and the buffers (no planning, no allocation), or every token
// costs a re-plan. ggml rebuilds the graph each time, so the tensors come without
// addresses: forget_addresses gives that.
RC_GTEST_PROP(Reallocation, SecondAllocGraphReusesThePlan, ()) {
    Generated g = generate();
    keeping_counterexample("second-alloc", g.json, [&] {
        const auto types = make_buffer_types(g.file);
        WorkingGraph planned = working_copy(g.file);
        GraphAllocator allocator(buffer_ids(g.file, types));
        PlanCounter counter;
        allocator.set_observer(&counter);
        RC_ASSERT(allocator.reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids));
        if (!allocator.alloc_graph(planned.graph)) {
            RC_ASSERT(has_empty_chunk(allocator));
            return;
        }
        const PlanRecord first = record_plan(planned, allocator, true, true);
        const std::size_t allocations = buffer_allocations(types);

        planned.forget_addresses();
        RC_ASSERT(!allocator.needs_realloc(planned.graph));
        RC_ASSERT(allocator.alloc_graph(planned.graph));
        RC_ASSERT(counter.plans == 1);
        RC_ASSERT(buffer_allocations(types) == allocations);
        RC_ASSERT_NONE(compare_plans(first, record_plan(planned, allocator, true, true), planned.context));
    });
}

// A tensor that grows past its planned size must not be placed in its old slot: with
// one buffer alloc_graph plans again (and the new plan is sound), with several it
// cannot know the buffer ids and must fail cleanly, asking for reserve_n.
RC_GTEST_PROP(Reallocation, GrownTensorForcesANewPlan, ()) {
    Generated g = generate({.inputs_on_op_nodes = false});  // the new plan is checked as in property 1
    WorkingGraph planned = working_copy(g.file);
    // needs_realloc looks at nodes and their sources: grow one of those.
    std::vector<Tensor*> growable;
    for (Tensor* node : planned.graph.nodes) {
        for (Tensor* t : std::array{node, node->src[0], node->src[1]}) {
            if (t != nullptr && placed_by_allocator(*t) && nbytes(*t) > 0 && std::ranges::find(growable, t) == growable.end()) {
                growable.push_back(t);
            }
        }
    }
    RC_PRE(!growable.empty());
    Tensor& grown = *growable[*rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(0, growable.size()))];
    const bool one_buffer = g.file.buffer_count() == 1;
    RC_CLASSIFY(one_buffer, "one buffer id");
    keeping_counterexample("grown-tensor", g.json, [&] {
        const auto types = make_buffer_types(g.file);
        GraphAllocator allocator(buffer_ids(g.file, types));
        PlanCounter counter;
        allocator.set_observer(&counter);
        RC_ASSERT(allocator.reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids));
        if (!allocator.alloc_graph(planned.graph)) {
            RC_ASSERT(has_empty_chunk(allocator));
            return;
        }
        planned.forget_addresses();
        grown.ne[3] += 1;  // contiguous: nbytes grows by nb[3]
        RC_ASSERT(allocator.needs_realloc(planned.graph));
        const bool allocated = allocator.alloc_graph(planned.graph);
        if (!one_buffer) {
            RC_ASSERT(!allocated);
            RC_ASSERT(counter.plans == 1);
            RC_ASSERT(allocator.last_error().find("reserve_n") != std::string::npos);
            return;
        }
        RC_ASSERT(counter.plans == 2);
        if (allocated) {
            RC_ASSERT_NONE(overlap_violations(planned.graph, Lifetimes(planned.graph)));
            RC_ASSERT_NONE(bounds_violations(g.file, planned.graph, allocator, BufferHistory::kept_from_earlier_plan));
        } else {
            RC_ASSERT(has_empty_chunk(allocator));
        }
    });
}

} // namespace
} // namespace gallocsim::fuzz
