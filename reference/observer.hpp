#pragma once
// The observer seam: the graph allocator reports each step of planning and allocation
// to an optional observer. Events are plain values that name the tensors involved and
// carry the numbers a teacher would show; with no observer attached none is built.

#include "reference/dynamic_allocator.hpp"
#include "reference/tensor.hpp"

#include <cstddef>
#include <span>
#include <type_traits>
#include <variant>

namespace gallocsim {

// Why ggml_gallocr_allocate_node was reached for a tensor.
enum class AllocationPhase {
    leaf,         // the leafs loop, before any node
    graph_input,  // an input-flagged tensor, allocated early in the counting pass
    parent,       // a node's source, allocated just before the node
    node,         // the node itself
};

// Why a parent's memory could not be taken over in place.
enum class InPlaceRejection {
    not_owned,         // the parent's memory is not the allocator's (external data, a view, or already given away)
    output,            // the parent (or its view source) is a graph output
    different_layout,  // type, shape or strides differ
    other_consumers,   // the parent still has other consumers or views
    view_source_busy,  // the parent is a view whose source has other users
};

// Why a tensor's memory went back to the free list.
enum class FreeReason {
    last_consumer,  // its last consumer has run and no view of it remains
    last_view,      // its last view has been released and it has no consumers left
};

namespace event {

struct PlanStarted {
    const Graph* graph;
    bool measure_only;  // reserve_n_size: plan only, allocate no buffer
};

// The counting pass begins: consumers and views are counted and inputs allocated early.
struct CountingStarted {};

// The node loop reaches graph.nodes[index]: its parents, then the node itself, get memory,
// then its parents are released.
struct NodeStarted {
    const Tensor* node;
    std::size_t index;
};

// The counting pass found another consumer of `tensor` (node `consumer` reads it).
struct ConsumerCounted {
    const Tensor* tensor;
    const Tensor* consumer;
    int children;  // after counting
};

// The counting pass found another view of `tensor`.
struct ViewCounted {
    const Tensor* tensor;
    const Tensor* view;
    int views;  // after counting
};

struct TensorAllocated {
    const Tensor* tensor;
    int buffer_id;
    AllocationPhase phase;
    std::size_t alloc_size;  // buffer type's alloc size, before alignment
    AllocationDecision decision;
    std::span<const BlockCandidate> candidates;  // the blocks the search looked at; valid during on_event only
};

struct InPlaceRejected {
    const Tensor* node;
    const Tensor* parent;
    InPlaceRejection reason;
    int parent_children;  // the parent's consumers and views not yet done, when it was checked
    int parent_views;
};

struct InPlaceReused {
    const Tensor* node;
    const Tensor* parent;
    const Tensor* view_source;  // non-null when the parent is a view (upstream never gets here)
    int buffer_id;
    BufferAddress address;
    std::size_t alloc_size;
};

// After in-place reuse of a larger parent, the bytes past the node's end are freed.
struct ExtraSpaceFreed {
    const Tensor* node;
    const Tensor* parent;
    int buffer_id;
    FreeDecision decision;
};

// A node has run: `parent` has one consumer fewer.
struct ParentReleased {
    const Tensor* node;
    const Tensor* parent;
    int children_left;
    int views_left;
    bool still_owned;  // parent's memory is still the allocator's (false after in-place reuse)
};

// A view parent is done: its source has one view fewer.
struct ViewReleased {
    const Tensor* view;
    const Tensor* view_source;
    int source_children;
    int source_views_left;
};

struct TensorFreed {
    const Tensor* tensor;
    int buffer_id;
    FreeReason reason;
    std::size_t alloc_size;
    FreeDecision decision;
};

// An output would have been freed here but outputs are never freed.
struct OutputKept {
    const Tensor* tensor;
    FreeReason reason;
};

struct PlanFinished {
    bool ok;
};

// The chunks of a buffer id after planning: allocated anew, kept, or failed.
struct BufferAllocated {
    int buffer_id;
    std::span<const std::size_t> chunk_sizes;  // valid during on_event only
    std::size_t previous_size;
    bool reallocated;  // false: the existing buffer was large enough
    bool ok;
};

struct TensorInitialised {
    const Tensor* tensor;
    int buffer_id;  // -1 for a view (it takes its source's buffer)
    BufferAddress address;
    const void* data;  // chunk base + offset
};

} // namespace event

using Event = std::variant<event::PlanStarted, event::CountingStarted, event::NodeStarted, event::ConsumerCounted,
                           event::ViewCounted, event::TensorAllocated, event::InPlaceRejected, event::InPlaceReused,
                           event::ExtraSpaceFreed, event::ParentReleased, event::ViewReleased, event::TensorFreed,
                           event::OutputKept, event::PlanFinished, event::BufferAllocated, event::TensorInitialised>;

// Events are built and dropped for every step of a traced plan: nothing in them owns
// memory (lists are views of the allocator's own, for the length of the call).
static_assert(std::is_trivially_copyable_v<Event> && std::is_trivially_destructible_v<Event>);

// An observer takes events as one Event (on_event: one place for every kind, as logs
// want) or by kind (on: a virtual per kind, each passing its event to on_event unless
// overridden). A recorder that overrides every kind gets one direct call per event, the
// same target from each place that emits, instead of a dispatch on the kind every time.
class AllocationObserver {
public:
    virtual ~AllocationObserver() = default;
    virtual void on_event(const Event&) {}
    virtual void on(const event::PlanStarted& e) { on_event(e); }
    virtual void on(const event::CountingStarted& e) { on_event(e); }
    virtual void on(const event::NodeStarted& e) { on_event(e); }
    virtual void on(const event::ConsumerCounted& e) { on_event(e); }
    virtual void on(const event::ViewCounted& e) { on_event(e); }
    virtual void on(const event::TensorAllocated& e) { on_event(e); }
    virtual void on(const event::InPlaceRejected& e) { on_event(e); }
    virtual void on(const event::InPlaceReused& e) { on_event(e); }
    virtual void on(const event::ExtraSpaceFreed& e) { on_event(e); }
    virtual void on(const event::ParentReleased& e) { on_event(e); }
    virtual void on(const event::ViewReleased& e) { on_event(e); }
    virtual void on(const event::TensorFreed& e) { on_event(e); }
    virtual void on(const event::OutputKept& e) { on_event(e); }
    virtual void on(const event::PlanFinished& e) { on_event(e); }
    virtual void on(const event::BufferAllocated& e) { on_event(e); }
    virtual void on(const event::TensorInitialised& e) { on_event(e); }
};

} // namespace gallocsim
