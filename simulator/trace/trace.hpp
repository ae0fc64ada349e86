#pragma once
// A trace: one run of reserve_n + alloc_graph recorded as a list of plain values. Tensors
// are named by their index in the graph file (not by pointer), so a trace does not depend
// on memory addresses, can be copied freely and outlives the graph it came from. Every
// event says which stage of the run it belongs to and which node was being run; replaying
// the events (state.hpp) rebuilds the allocator's state at any position.
//
// Events are small and trivially copyable (56 bytes) so that recording stays cheap: the
// few large payloads (block decisions, candidate lists, chunk sizes) live in the trace's
// side tables, and events refer to them by index.

#include "reference/dynamic_allocator.hpp"
#include "reference/observer.hpp"
#include "reference/profile.hpp"
#include "reference/tensor.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/model/working_graph.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gallocsim {

// A tensor's index in the graph file's `tensors` (creation order).
using TensorId = std::int32_t;
inline constexpr TensorId kNoTensor = -1;

enum class TensorRole : std::uint8_t {
    leaf,   // in graph.leafs
    node,   // in graph.nodes
    other,  // only a source or view source of graph tensors
};

constexpr std::array<TensorId, kMaxSrc> no_sources() {
    std::array<TensorId, kMaxSrc> src{};
    src.fill(kNoTensor);
    return src;
}

// What explanations and views need to know about a tensor, copied out of the graph.
struct TraceTensor {
    std::string name;
    DataType type = DataType::f32;
    Op op = Op::NONE;
    std::array<std::int64_t, kMaxDims> ne{1, 1, 1, 1};
    TensorFlags flags{};
    std::array<TensorId, kMaxSrc> src = no_sources();  // kNoTensor for holes
    TensorId view_src = kNoTensor;
    std::size_t view_offs = 0;
    bool external = false;  // has memory the allocator does not own (`data: true`)
    std::size_t bytes = 0;  // ggml_nbytes
    TensorRole role = TensorRole::other;
    int position = -1;  // index in graph.leafs or graph.nodes
    int buffer_id = 0;  // the buffer id the graph assigns it (node_buffer_ids, leaf_buffer_ids; 0 without them)

    bool is_view() const { return view_src != kNoTensor; }
    bool has_flag(TensorFlag flag) const { return flags.has(flag); }
};

// The graph's tensors as traces describe them, by id. Made once per graph and immutable
// after, so that every trace of one graph shares it (a re-plan under other buffer
// settings, a benchmark's repeated runs) and copying a trace does not copy it: describing
// the tensors costs about a third of planning them, more than recording a run's events.
class TraceTensors {
public:
    TraceTensors() = default;
    explicit TraceTensors(std::vector<TraceTensor> tensors);

    std::size_t size() const { return all().size(); }
    bool empty() const { return all().empty(); }
    const TraceTensor& operator[](std::size_t id) const { return all()[id]; }
    const TraceTensor& at(std::size_t id) const { return all().at(id); }
    auto begin() const { return all().begin(); }
    auto end() const { return all().end(); }
    // (tensor, source) pairs over all tensors: how many consumers a run counts.
    std::size_t source_count() const { return source_count_; }
    // The graph's nodes in execution order: node(i) is graph.nodes[i], run at node step i + 1.
    const std::vector<TensorId>& nodes() const;
    // The node that runs at a node step (step 1 runs the first); kNoTensor before the first
    // node (step 0) and past the last.
    TensorId node_at_step(std::int64_t step) const;

private:
    const std::vector<TraceTensor>& all() const;

    std::shared_ptr<const std::vector<TraceTensor>> tensors_;
    std::shared_ptr<const std::vector<TensorId>> nodes_;
    std::size_t source_count_ = 0;
};

// Describes every tensor of the file's context, with its role in the graph.
TraceTensors describe_tensors(const GraphFile& file);

// One buffer id of the allocator. Ids whose buffer type is the same share one allocator.
struct TraceBuffer {
    std::string type_name;
    std::size_t alignment = 0;
    std::size_t max_size = kSizeMax;  // the largest chunk planning makes (the profile's planning_max_size)
    int allocator = 0;                // index of the dynamic allocator (and buffer) it uses
    int canonical_id = 0;             // the lowest buffer id sharing that allocator
};

// Which part of the run an event belongs to.
enum class Stage : std::uint8_t {
    leafs,      // reserve_n starts: graph leafs get memory
    counting,   // consumers and views are counted, inputs allocated early
    nodes,      // the node loop: allocate each node, release its parents
    buffers,    // backend buffers are allocated for the plan
    addresses,  // alloc_graph gives every tensor its address
};

// A range of one of the trace's pools.
struct PoolRange {
    std::size_t first = 0;
    std::size_t count = 0;
};

// The reference's AllocationDecision, its candidate list in Trace::candidate_pool.
struct BlockTaken : AllocationDecision {
    PoolRange candidates;  // the blocks the search looked at
};

// How a trace refers to what its events name (the reference's event kinds, event::Any,
// recorded): tensors by id, the allocator's decisions and lists by their place in the
// trace's side tables, so that events stay small and outlive the run.
struct RecordedRefs {
    using TensorRef = TensorId;
    static constexpr TensorRef kNone = kNoTensor;
    using Taken = std::size_t;       // index into Trace::blocks_taken
    using Freed = std::size_t;       // index into Trace::blocks_freed
    using ChunkSizes = PoolRange;    // in Trace::chunk_size_pool
    using Data = std::uint64_t;      // the address the tensor got (chunk base + offset), as a number
};

// An event as a trace holds it: Recorded<event::TensorAllocated>.
template <template <class> class Kind>
using Recorded = Kind<RecordedRefs>;
using RecordedEvent = event::Any<RecordedRefs>;

struct TraceEvent {
    Stage stage = Stage::leafs;
    TensorId node = kNoTensor;  // the node being run (node stage only)
    RecordedEvent data;
};

// What kind of thing an event is, for filters and breakpoints: the event kinds, with
// allocations split by why they happened (kind_of maps each event::Any alternative).
enum class EventKind : std::uint8_t {
    plan_started, leaf_allocated, counting_started, consumer_counted, view_counted, input_allocated,
    node_started, chunk_created, parent_allocated, node_allocated, in_place_rejected, in_place_reused,
    extra_space_freed, parent_released, view_released, tensor_freed, output_kept, plan_finished,
    buffer_allocated, tensor_initialised,
};
// Their names, in EventKind's order (the names filters and JSON use).
inline constexpr std::array kEventKindNames{
    std::string_view("plan-started"),      std::string_view("leaf-allocated"),    std::string_view("counting-started"),
    std::string_view("consumer-counted"),  std::string_view("view-counted"),      std::string_view("input-allocated"),
    std::string_view("node-started"),      std::string_view("chunk-created"),     std::string_view("parent-allocated"),
    std::string_view("node-allocated"),    std::string_view("in-place-rejected"), std::string_view("in-place-reused"),
    std::string_view("extra-space-freed"), std::string_view("parent-released"),   std::string_view("view-released"),
    std::string_view("tensor-freed"),      std::string_view("output-kept"),       std::string_view("plan-finished"),
    std::string_view("buffer-allocated"),  std::string_view("tensor-initialised"),
};
inline constexpr std::size_t kEventKindCount = kEventKindNames.size();
static_assert(kEventKindCount == static_cast<std::size_t>(EventKind::tensor_initialised) + 1,
              "one name per EventKind");
// Every event::Any kind is one EventKind, except TensorAllocated, which is one of four.
static_assert(kEventKindCount == std::variant_size_v<RecordedEvent> + 3);

EventKind kind_of(const TraceEvent& event);
std::string_view kind_name(EventKind kind);  // "leaf-allocated"
std::optional<EventKind> parse_kind(std::string_view name);
std::string_view stage_name(Stage stage);

// The tensors an event is about, main one first, without repeats.
std::vector<TensorId> touched_tensors(const TraceEvent& event);
bool touches(const TraceEvent& event, TensorId tensor);

struct Trace;

// Bytes of one chunk of a buffer (named by its lowest buffer id).
struct MemoryRange {
    int buffer_id = 0;
    int chunk = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
    bool operator==(const MemoryRange&) const = default;
};

// The bytes an event hands over: taken by an allocation or an in-place node, given back
// by a free, made by a new chunk. Nothing for events that move no memory.
std::optional<MemoryRange> touched_memory(const Trace& trace, const TraceEvent& event);

struct Trace {
    std::string graph_name;
    TraceTensors tensors;
    std::vector<TraceBuffer> buffers;  // per buffer id
    int allocator_count = 0;
    std::size_t leaf_count = 0;
    std::size_t node_count = 0;
    std::vector<TraceEvent> events;
    // Side tables that events point into.
    std::vector<BlockTaken> blocks_taken;
    std::vector<FreeDecision> blocks_freed;
    std::vector<BlockCandidate> candidate_pool;
    std::vector<std::size_t> chunk_size_pool;
    std::string error;  // why reserve_n or alloc_graph failed; empty when both succeeded
    const AllocatorProfile* profile = &newest_profile();  // the ggml version whose rules made it

    std::size_t size() const { return events.size(); }
    const TraceTensor& tensor(TensorId id) const { return tensors.at(static_cast<std::size_t>(id)); }
    const TraceBuffer& buffer(int buffer_id) const { return buffers.at(static_cast<std::size_t>(buffer_id)); }
    std::optional<TensorId> find(std::string_view name) const;
    // Per allocator, the lowest buffer id using it: the id people know that buffer by.
    std::vector<int> allocator_buffer_ids() const;

    const BlockTaken& taken(const Recorded<event::TensorAllocated>& e) const { return blocks_taken.at(e.taken); }
    const FreeDecision& freed(const Recorded<event::TensorFreed>& e) const { return blocks_freed.at(e.freed); }
    const FreeDecision& freed(const Recorded<event::ExtraSpaceFreed>& e) const { return blocks_freed.at(e.freed); }
    std::span<const BlockCandidate> candidates(const Recorded<event::TensorAllocated>& e) const;
    std::span<const std::size_t> chunk_sizes(const Recorded<event::BufferAllocated>& e) const;
};

// Records the events of one run into a Trace. Construct it on the graph file to be run and
// the working copy the run plans (prepare_plan), attach it (carry_out_plan(run, &recorder)),
// then take the trace. Events name the copy's tensors; the trace names them by index.
class TraceRecorder final : public AllocationObserver {
public:
    // `profile` is the ggml version the run plans by (the trace says which rules made it).
    TraceRecorder(const GraphFile& file, const WorkingGraph& planned, const AllocatorProfile& profile = newest_profile());
    // With the description of this file's tensors that an earlier trace of it made
    // (std::invalid_argument if it, or `planned`, has another number of tensors).
    TraceRecorder(const GraphFile& file, const WorkingGraph& planned, TraceTensors tensors,
                  const AllocatorProfile& profile = newest_profile());
    // The recorded trace; `error` is the run's failure, if any. The recorder is spent.
    Trace take(std::string error);

    // Every kind of event is taken by its own override: a direct call per event.
    void on(const Observed<event::PlanStarted>& e) override;
    void on(const Observed<event::CountingStarted>& e) override;
    void on(const Observed<event::NodeStarted>& e) override;
    void on(const Observed<event::ConsumerCounted>& e) override;
    void on(const Observed<event::ViewCounted>& e) override;
    void on(const Observed<event::ChunkCreated>& e) override;
    void on(const Observed<event::TensorAllocated>& e) override;
    void on(const Observed<event::InPlaceRejected>& e) override;
    void on(const Observed<event::InPlaceReused>& e) override;
    void on(const Observed<event::ExtraSpaceFreed>& e) override;
    void on(const Observed<event::ParentReleased>& e) override;
    void on(const Observed<event::ViewReleased>& e) override;
    void on(const Observed<event::TensorFreed>& e) override;
    void on(const Observed<event::OutputKept>& e) override;
    void on(const Observed<event::PlanFinished>& e) override;
    void on(const Observed<event::BufferAllocated>& e) override;
    void on(const Observed<event::TensorInitialised>& e) override;

private:
    TensorId id_of(const Tensor* tensor) const;
    template <typename E>
    void add(const E& event);
    std::size_t add_freed(const FreeDecision& decision);

    Trace trace_;
    std::vector<const Tensor*> addresses_;  // the planned tensors by id (their position in the file's context)
    Stage stage_ = Stage::leafs;
    TensorId node_ = kNoTensor;
};

// A plan and its trace, from one run: the run keeps the places and buffers (its record is
// what `plan` prints and `conform` compares), the trace every decision that made them.
struct TracedPlan {
    PlanRun run;
    Trace trace;
};
// Runs the file as run_plan does (reserve_n, alloc_graph), recording every event.
TracedPlan trace_plan(const GraphFile& file, const AllocatorProfile& profile = newest_profile());
TracedPlan trace_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile = newest_profile());
// The same on a run prepared already (prepare_plan, or prepare_plan_again on an earlier run's
// copy of the file), by its allocator's rules.
TracedPlan trace_plan(const GraphFile& file, TraceTensors tensors, PlanRun run);

// The same, when only the trace is wanted.
Trace record_trace(const GraphFile& file, const AllocatorProfile& profile = newest_profile());
// The same, reusing the description of the file's tensors from an earlier trace of it.
Trace record_trace(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile = newest_profile());

} // namespace gallocsim
