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

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace gallocsim {

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
    // In a buffer the allocator does not own, no data yet (`data: "buffer"`): whether the
    // allocator plans it is its state's rule (AllocatorProfile::external_buffer_is_allocated).
    bool on_external_buffer = false;
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

// The same event with the trace's references: each field, in the order the event declares
// them, passes through `ref`, which makes a reference the trace's and gives a value back as
// it is. An event is an aggregate, so a structured binding lists its fields and no kind has
// to list them itself.
namespace detail {
// Converts to any field's type: counts an aggregate's fields by how many it takes.
struct AnyField {
    template <class T>
    operator T() const;
};
template <class T, class... Taken>
constexpr std::size_t field_count() {
    if constexpr (requires { T{Taken{}..., AnyField{}}; }) {
        return field_count<T, Taken..., AnyField>();
    } else {
        return sizeof...(Taken);
    }
}
} // namespace detail

template <class To, template <class> class Kind, class From, class Ref>
constexpr Kind<To> refer(const Kind<From>& e, Ref&& ref) {
    constexpr std::size_t fields = detail::field_count<Kind<From>>();
    static_assert(fields <= 6, "an event with more fields than any before: one more case here");
    if constexpr (fields == 0) {
        return {};
    } else if constexpr (fields == 1) {
        const auto& [a] = e;
        return {ref(a)};
    } else if constexpr (fields == 2) {
        const auto& [a, b] = e;
        return {ref(a), ref(b)};
    } else if constexpr (fields == 3) {
        const auto& [a, b, c] = e;
        return {ref(a), ref(b), ref(c)};
    } else if constexpr (fields == 4) {
        const auto& [a, b, c, d] = e;
        return {ref(a), ref(b), ref(c), ref(d)};
    } else if constexpr (fields == 5) {
        const auto& [a, b, c, d, f] = e;
        return {ref(a), ref(b), ref(c), ref(d), ref(f)};
    } else {
        const auto& [a, b, c, d, f, g] = e;
        return {ref(a), ref(b), ref(c), ref(d), ref(f), ref(g)};
    }
}

// What kind of thing an event is (reference/observer.hpp's EventKind), for filters and
// breakpoints, and its name.
EventKind kind_of(const TraceEvent& event);
std::string_view kind_name(EventKind kind);  // "leaf-allocated"
std::optional<EventKind> parse_kind(std::string_view name);
std::string_view stage_name(Stage stage);

// The tensors an event is about, main one first, without repeats.
std::vector<TensorId> touched_tensors(const TraceEvent& event);
bool touches(const TraceEvent& event, TensorId tensor);

struct Trace;

// Bytes of one chunk of a buffer (named by its lowest buffer id): [offset, offset + size).
//
// A 0-byte range holds no byte. A 0-byte tensor still gets an offset (the start of the block
// best fit chose, or its parent's when it takes that over in place), and frees a 0-byte block
// there, but that offset is only an address: such a tensor shares a byte with nothing, touches
// no hole and no other tensor's memory. The hole runs and the properties read it this way through
// shares_a_byte_with; the checker leaves 0-byte tensors out of its pairs (analysis/checker.cpp).
struct MemoryRange {
    int buffer_id = 0;
    int chunk = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
    bool operator==(const MemoryRange&) const = default;

    std::size_t end() const { return offset + size; }
    // Whether this range holds a byte of [from, from + bytes) of `in_chunk` (of the same buffer:
    // the caller says which buffer it means). Empty ranges hold none, wherever they are.
    bool shares_a_byte_with(int in_chunk, std::size_t from, std::size_t bytes) const {
        return chunk == in_chunk && size > 0 && bytes > 0 && offset < from + bytes && from < end();
    }
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
    // The same, for what events do (effect::).
    const BlockTaken& taken(const Recorded<effect::Allocates>& e) const { return blocks_taken.at(e.taken); }
    const FreeDecision& freed(const Recorded<effect::Frees>& e) const { return blocks_freed.at(e.freed); }
    std::span<const std::size_t> chunk_sizes(const Recorded<effect::SetsBuffer>& e) const {
        return std::span(chunk_size_pool).subspan(e.chunk_sizes.first, e.chunk_sizes.count);
    }
};

// Records the events of one run into a Trace. Construct it on the graph file to be run and
// the working copy the run plans (prepare_plan), attach it (carry_out_plan(run, &recorder)),
// then take the trace. Events name the copy's tensors; the trace names them by index.
class TraceRecorder final : public ObserverOfEach<TraceRecorder> {
public:
    // `profile` is the ggml version the run plans by (the trace says which rules made it).
    TraceRecorder(const GraphFile& file, const WorkingGraph& planned, const AllocatorProfile& profile = newest_profile());
    // With the description of this file's tensors that an earlier trace of it made
    // (std::invalid_argument if it, or `planned`, has another number of tensors).
    TraceRecorder(const GraphFile& file, const WorkingGraph& planned, TraceTensors tensors,
                  const AllocatorProfile& profile = newest_profile());
    // The recorded trace; `error` is the run's failure, if any. The recorder is spent.
    Trace take(std::string error);

private:
    template <class, class...>
    friend class detail::HandlesEach;

    // Every kind, by a direct call from its on(): the event recorded field by field (its
    // references made the trace's), in the stage it opens or the one it meets.
    template <class Kind>
    void handle(const Kind& observed) {
        const auto recorded = refer<RecordedRefs>(observed, [&](const auto& field) { return ref(field); });
        if constexpr (requires { Kind::begins; }) {
            stage_ = Kind::begins;
            node_ = Kind::begins == Stage::nodes ? event::node_of(recorded, kNoTensor) : kNoTensor;
        }
        trace_.events.push_back({stage_, node_, recorded});
    }

    // The trace's reference for each of the allocator's; values stay as they are.
    TensorId ref(const Tensor* tensor) const {
        if (tensor == nullptr) {
            return kNoTensor;
        }
        // A tensor's id is its position in the graph file's context.
        if (tensor->index >= addresses_.size() || addresses_[tensor->index] != tensor) [[unlikely]] {
            unknown_tensor(*tensor);
        }
        return static_cast<TensorId>(tensor->index);
    }
    std::size_t ref(const ObservedRefs::Taken& taken);
    std::size_t ref(const FreeDecision& freed);
    PoolRange ref(std::span<const std::size_t> chunk_sizes);
    static std::uint64_t ref(const void* data) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(data)); }
    template <class Value>
        requires std::is_arithmetic_v<Value> || std::is_enum_v<Value> || std::is_same_v<Value, BufferAddress>
    static Value ref(const Value& value) {
        return value;
    }
    [[noreturn]] static void unknown_tensor(const Tensor& tensor);

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
