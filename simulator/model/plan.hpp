#pragma once
// Runs the reference allocator on a graph file exactly as the golden corpus was made
// (new_n, reserve_n with the file's buffer ids, alloc_graph) and reports the plan in the
// shape of the file's `expected` section; compares two such plans field by field.

#include "reference/graph_allocator.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/working_graph.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gallocsim {

// The settings a buffer type of a graph file stands for. `fake_base`: planning only, no
// memory behind the addresses (the executor gives false and gets real buffers).
BufferTypeSettings buffer_type_settings(const BufferTypeSpec& spec, bool fake_base);

// One buffer type per spec of the file; fake base addresses, so no memory is touched.
std::vector<std::unique_ptr<ConfigurableBufferType>> make_buffer_types(const GraphFile& file);
std::vector<std::unique_ptr<ConfigurableBufferType>> make_buffer_types(std::span<const BufferTypeSpec> specs);

// The allocator for the file's buffer ids, each id on its buffer type in `types` (one per
// buffer type of the file, as make_buffer_types makes them).
std::unique_ptr<GraphAllocator> make_allocator(const GraphFile& file,
                                               std::span<const std::unique_ptr<ConfigurableBufferType>> types,
                                               const AllocatorProfile& profile);

// One plan of a file: the buffers and the tensors whose addresses point into them, owned
// together (the allocator's buffers go first when it ends, and nothing outside points in).
struct PlanRun {
    std::vector<std::unique_ptr<ConfigurableBufferType>> types;
    WorkingGraph planned;  // the file's tensors, with the addresses the plan gave them
    std::unique_ptr<GraphAllocator> allocator;
    PlanRecord plan;
    std::string error;  // why reserve or alloc_graph failed, if one did
    std::string sizes_only;  // why alloc_graph is not run (sizes_only_reason), if it is not
};

// Plans by the rules of `profile` (the newest ggml unless told); the file is not touched, so
// it can be planned any number of times.
PlanRun run_plan(const GraphFile& file, AllocationObserver* observer = nullptr,
                 const AllocatorProfile& profile = newest_profile());
// run_plan in two halves, for an observer that must know the planned tensors before the
// plan starts (the trace recorder names tensors by their copies' addresses): the working
// copy, buffer types and allocator; then reserve_n, alloc_graph and the record.
PlanRun prepare_plan(const GraphFile& file, const AllocatorProfile& profile = newest_profile());
// prepare_plan on the working copy of an earlier run of the same file, which it takes: that
// run's allocator and buffers go and its tensors' addresses are put back as copied, so the
// graph is not copied again (a third of the cost of a plan without a trace).
PlanRun prepare_plan_again(const GraphFile& file, PlanRun earlier, const AllocatorProfile& profile = newest_profile());
void carry_out_plan(PlanRun& run, AllocationObserver* observer = nullptr);

// ggml_backend_sched's pattern: reserve_n on one graph (the largest the program will run),
// then alloc_graph on another graph with the same allocator. alloc_graph keeps the reserved
// plan when needs_realloc says the graph still fits it, and re-plans otherwise: by itself
// with one buffer id; with several it fails and the caller must call reserve_n.
struct ReservedPlanRun {
    WorkingGraph reserved;  // `reserved`'s tensors as reserve_n left them; outlives the allocator
    PlanRun run;            // the allocator (for the buffer types both files share) and `file`'s plan
    std::vector<std::size_t> reserved_sizes;  // buffer sizes right after reserve_n on `reserved`
    bool needed_realloc = false;
    std::string realloc_reason;  // why needs_realloc said yes
};
// Throws GraphFileError when the files' buffer types or buffer ids differ.
ReservedPlanRun run_plan_after_reserve(const GraphFile& reserved, const GraphFile& file,
                                       const AllocatorProfile& profile = newest_profile());

// Why alloc_graph would not keep the allocator's last plan for `graph` (needs_realloc's
// reasons, first one found); empty when the plan still fits.
std::string realloc_reason(const GraphAllocator& allocator, const Graph& graph);

// ggml_gallocr_reserve_n_size: plans with the file's buffer ids and allocates nothing.
struct MeasuredPlan {
    std::optional<std::vector<std::size_t>> sizes;  // per buffer id; ids sharing a type repeat its total
    std::vector<int> canonical_ids;                 // per buffer id, the lowest id with its buffer type
    std::string error;                              // when planning failed
};
MeasuredPlan measure_plan(const GraphFile& file, const AllocatorProfile& profile = newest_profile());

// Why ggml can only size `file` (ggml_gallocr_reserve_n_size) and never run alloc_graph on
// it: a tensor in a buffer without data (`data: "buffer"`, a no_alloc load as llama.cpp's
// fit pass makes), which alloc_graph aborts on (under every state: planned or not, it has
// a buffer already). Empty when alloc_graph may run.
std::string sizes_only_reason(const GraphFile& file);

// Builds the record of where alloc_graph put the planned tensors, from the allocator's state.
PlanRecord record_plan(const WorkingGraph& planned, const GraphAllocator& allocator, bool reserved, bool allocated);

// One line per difference: "tensor 'x' offset: expected 32, got 64". Both plans are of one
// graph, `tensors`, and are compared tensor by tensor by id; the tensors are named only in the
// lines: first each expected tensor's, in `expected`'s order, then each of `unknown` (expected
// places under names the graph lacks, from an input read by name: each got no memory), then
// the tensors only `actual` placed, by name.
std::vector<std::string> compare_plans(const PlanRecord& expected, const PlanRecord& actual, const Context& tensors,
                                       std::span<const NamedPlacement> unknown = {});
// The same style for one more value: nothing when equal, else "what: expected [64], got [96]".
std::optional<std::string> compare_values(const std::string& what, bool expected, bool actual);
std::optional<std::string> compare_values(const std::string& what, const std::vector<std::size_t>& expected,
                                          const std::vector<std::size_t>& actual);

} // namespace gallocsim
