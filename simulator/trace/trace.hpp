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

private:
    const std::vector<TraceTensor>& all() const;

    std::shared_ptr<const std::vector<TraceTensor>> tensors_;
    std::size_t source_count_ = 0;
};

// Describes every tensor of the file's context, with its role in the graph.
TraceTensors describe_tensors(const GraphFile& file);

// One buffer id of the allocator. Ids whose buffer type is the same share one allocator.
struct TraceBuffer {
    std::string type_name;
    std::size_t alignment = 0;
    std::size_t max_size = kSizeMax;  // the buffer type's largest buffer
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
struct BlockTaken {
    BufferAddress address;
    std::size_t size = 0;  // aligned request
    BlockChoice choice = BlockChoice::best_fit;
    int block = 0;  // index of the block taken, before the take
    FreeBlock block_before;
    bool block_consumed = false;
    std::int64_t reuse_factor = 0;
    std::size_t high_water_before = 0;
    std::size_t high_water_after = 0;
    PoolRange candidates;  // the blocks the search looked at
};

// The events of a trace: the reference's events with tensor ids, plus ChunkCreated
// (split out of an allocation that needed a new chunk, so the chunk appears on its own).
namespace events {

struct PlanStarted {
    bool measure_only = false;
};
struct CountingStarted {};
struct NodeStarted {
    TensorId node = kNoTensor;
    std::size_t index = 0;  // in graph.nodes
};
struct ConsumerCounted {
    TensorId tensor = kNoTensor;
    TensorId consumer = kNoTensor;
    int children = 0;  // after counting
};
struct ViewCounted {
    TensorId tensor = kNoTensor;
    TensorId view = kNoTensor;
    int views = 0;  // after counting
};
// No free block could hold `tensor`'s `request` bytes: a chunk with one free block of `size` bytes.
struct ChunkCreated {
    int buffer_id = 0;
    int chunk = 0;
    std::size_t size = 0;
    TensorId tensor = kNoTensor;
    std::size_t request = 0;  // aligned
};
struct TensorAllocated {
    TensorId tensor = kNoTensor;
    int buffer_id = 0;
    AllocationPhase phase = AllocationPhase::node;
    std::size_t alloc_size = 0;  // before alignment
    std::size_t taken = 0;       // index into Trace::blocks_taken
};
struct InPlaceRejected {
    TensorId node = kNoTensor;
    TensorId parent = kNoTensor;
    InPlaceRejection reason = InPlaceRejection::not_owned;
    int parent_children = 0;
    int parent_views = 0;
};
struct InPlaceReused {
    TensorId node = kNoTensor;
    TensorId parent = kNoTensor;
    TensorId view_source = kNoTensor;  // set when the parent is a view (upstream never gets here)
    int buffer_id = 0;
    BufferAddress address;
    std::size_t alloc_size = 0;
};
struct ExtraSpaceFreed {
    TensorId node = kNoTensor;
    TensorId parent = kNoTensor;
    int buffer_id = 0;
    std::size_t freed = 0;  // index into Trace::blocks_freed
};
struct ParentReleased {
    TensorId node = kNoTensor;
    TensorId parent = kNoTensor;
    int children_left = 0;
    int views_left = 0;
    bool still_owned = false;
};
struct ViewReleased {
    TensorId view = kNoTensor;
    TensorId view_source = kNoTensor;
    int source_children = 0;
    int source_views_left = 0;
};
struct TensorFreed {
    TensorId tensor = kNoTensor;
    int buffer_id = 0;
    FreeReason reason = FreeReason::last_consumer;
    std::size_t alloc_size = 0;
    std::size_t freed = 0;  // index into Trace::blocks_freed
};
struct OutputKept {
    TensorId tensor = kNoTensor;
    FreeReason reason = FreeReason::last_consumer;
};
struct PlanFinished {
    bool ok = false;
};
struct BufferAllocated {
    int buffer_id = 0;
    PoolRange chunk_sizes;  // in Trace::chunk_size_pool
    std::size_t previous_size = 0;
    bool reallocated = false;
    bool ok = false;
};
struct TensorInitialised {
    TensorId tensor = kNoTensor;
    int buffer_id = -1;  // -1 for a view
    BufferAddress address = kInvalidAddress;
    std::uint64_t data = 0;  // chunk base + offset
};

} // namespace events

using EventData = std::variant<events::PlanStarted, events::CountingStarted, events::NodeStarted,
                               events::ConsumerCounted, events::ViewCounted, events::ChunkCreated,
                               events::TensorAllocated, events::InPlaceRejected, events::InPlaceReused,
                               events::ExtraSpaceFreed, events::ParentReleased, events::ViewReleased,
                               events::TensorFreed, events::OutputKept, events::PlanFinished,
                               events::BufferAllocated, events::TensorInitialised>;

struct TraceEvent {
    Stage stage = Stage::leafs;
    TensorId node = kNoTensor;  // the node being run (node stage only)
    EventData data;
};

// What kind of thing an event is, for filters and breakpoints. Allocations are split by
// why they happened.
enum class EventKind : std::uint8_t {
    plan_started, leaf_allocated, counting_started, consumer_counted, view_counted, input_allocated,
    node_started, chunk_created, parent_allocated, node_allocated, in_place_rejected, in_place_reused,
    extra_space_freed, parent_released, view_released, tensor_freed, output_kept, plan_finished,
    buffer_allocated, tensor_initialised,
};
inline constexpr std::size_t kEventKindCount = 20;

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

    const BlockTaken& taken(const events::TensorAllocated& e) const { return blocks_taken.at(e.taken); }
    const FreeDecision& freed(const events::TensorFreed& e) const { return blocks_freed.at(e.freed); }
    const FreeDecision& freed(const events::ExtraSpaceFreed& e) const { return blocks_freed.at(e.freed); }
    std::span<const BlockCandidate> candidates(const events::TensorAllocated& e) const;
    std::span<const std::size_t> chunk_sizes(const events::BufferAllocated& e) const;
};

// Records the events of one run into a Trace. Construct it on the graph file to be run,
// attach it (run_plan(file, &recorder)), then take the trace.
class TraceRecorder final : public AllocationObserver {
public:
    explicit TraceRecorder(const GraphFile& file);
    // With the description of this file's tensors that an earlier trace of it made
    // (std::invalid_argument if it describes another number of tensors).
    TraceRecorder(const GraphFile& file, TraceTensors tensors);
    // The recorded trace; `error` is the run's failure, if any. The recorder is spent.
    Trace take(std::string error);

    // Every kind of event is taken by its own override: a direct call per event.
    void on(const event::PlanStarted& e) override;
    void on(const event::CountingStarted& e) override;
    void on(const event::NodeStarted& e) override;
    void on(const event::ConsumerCounted& e) override;
    void on(const event::ViewCounted& e) override;
    void on(const event::TensorAllocated& e) override;
    void on(const event::InPlaceRejected& e) override;
    void on(const event::InPlaceReused& e) override;
    void on(const event::ExtraSpaceFreed& e) override;
    void on(const event::ParentReleased& e) override;
    void on(const event::ViewReleased& e) override;
    void on(const event::TensorFreed& e) override;
    void on(const event::OutputKept& e) override;
    void on(const event::PlanFinished& e) override;
    void on(const event::BufferAllocated& e) override;
    void on(const event::TensorInitialised& e) override;

private:
    TensorId id_of(const Tensor* tensor) const;
    template <typename E>
    void add(const E& event);
    std::size_t add_freed(const FreeDecision& decision);

    Trace trace_;
    std::vector<const Tensor*> addresses_;  // the graph file's tensors by id (their position in its context)
    Stage stage_ = Stage::leafs;
    TensorId node_ = kNoTensor;
};

// Runs the file as run_plan does (reserve_n, alloc_graph) and returns what happened.
Trace record_trace(GraphFile& file, const AllocatorProfile& profile = newest_profile());
// The same, reusing the description of the file's tensors from an earlier trace of it.
Trace record_trace(GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile = newest_profile());

} // namespace gallocsim
