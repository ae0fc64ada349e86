#pragma once
// The observer seam: the graph allocator reports each step of planning and allocation
// to an optional observer. Events are plain values that name the tensors involved and
// carry the allocator's decisions and the reasons for them (which rule picked a block, how
// a freed range merged), so that explanations word them instead of working them out again.
// With no observer attached none is built.

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

// How an event refers to the things it names. The graph allocator reports events as it
// works (ObservedRefs): tensor pointers, its own decisions, views of its lists valid for the
// length of the call. A trace (simulator/trace) records the same kinds with its own
// references (tensor ids, indexes into its side tables) so that it outlives the run.
struct ObservedRefs {
    using TensorRef = const Tensor*;
    static constexpr TensorRef kNone = nullptr;
    struct Taken {
        AllocationDecision decision;
        std::span<const BlockCandidate> candidates;  // the blocks the search looked at
    };
    using Freed = FreeDecision;
    using ChunkSizes = std::span<const std::size_t>;
    using Data = const void*;
};

// Every kind of event, declared once: `R` is how it refers to things (see ObservedRefs).
// Adding a kind here and to Any makes every observer and every trace consumer fail to
// compile until it handles the new kind.
namespace event {

template <class R>
using TensorRef = typename R::TensorRef;

template <class R>
struct PlanStarted {
    bool measure_only = false;  // reserve_n_size: plan only, allocate no buffer
};

// The counting pass begins: consumers and views are counted and inputs allocated early.
template <class R>
struct CountingStarted {};

// The node loop reaches graph.nodes[index]: its parents, then the node itself, get memory,
// then its parents are released.
template <class R>
struct NodeStarted {
    TensorRef<R> node = R::kNone;
    std::size_t index = 0;
};

// The counting pass found another consumer of `tensor` (node `consumer` reads it).
template <class R>
struct ConsumerCounted {
    TensorRef<R> tensor = R::kNone;
    TensorRef<R> consumer = R::kNone;
    int children = 0;  // after counting
};

// The counting pass found another view of `tensor`.
template <class R>
struct ViewCounted {
    TensorRef<R> tensor = R::kNone;
    TensorRef<R> view = R::kNone;
    int views = 0;  // after counting
};

// No free block could hold `tensor`'s `request` bytes: a new chunk with one free block of
// `size` bytes (reported just before the allocation that takes from it).
template <class R>
struct ChunkCreated {
    int buffer_id = 0;
    int chunk = 0;
    std::size_t size = 0;
    TensorRef<R> tensor = R::kNone;
    std::size_t request = 0;  // aligned
    ChunkSize why_this_size = ChunkSize::max_size;
};

template <class R>
struct TensorAllocated {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = 0;
    AllocationPhase phase = AllocationPhase::node;
    std::size_t alloc_size = 0;  // the buffer type's alloc size, before alignment
    typename R::Taken taken{};   // the dynamic allocator's decision and why (its candidates)
};

template <class R>
struct InPlaceRejected {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    InPlaceRejection reason = InPlaceRejection::not_owned;
    int parent_children = 0;  // the parent's consumers and views not yet done, when it was checked
    int parent_views = 0;
};

template <class R>
struct InPlaceReused {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    TensorRef<R> view_source = R::kNone;  // set when the parent is a view (upstream never gets here; a policy may)
    int buffer_id = 0;
    BufferAddress address;
    std::size_t alloc_size = 0;
};

// After in-place reuse of a larger parent, the bytes past the node's end are freed.
template <class R>
struct ExtraSpaceFreed {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    int buffer_id = 0;
    typename R::Freed freed{};  // the dynamic allocator's decision: where, the merge, the free list after
};

// A node has run: `parent` has one consumer fewer.
template <class R>
struct ParentReleased {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    int children_left = 0;
    int views_left = 0;
    bool still_owned = false;  // the parent's memory is still the allocator's (false after in-place reuse)
};

// A view parent is done: its source has one view fewer.
template <class R>
struct ViewReleased {
    TensorRef<R> view = R::kNone;
    TensorRef<R> view_source = R::kNone;
    int source_children = 0;
    int source_views_left = 0;
};

template <class R>
struct TensorFreed {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = 0;
    FreeReason reason = FreeReason::last_consumer;
    std::size_t alloc_size = 0;
    typename R::Freed freed{};
};

// An output would have been freed here but outputs are never freed.
template <class R>
struct OutputKept {
    TensorRef<R> tensor = R::kNone;
    FreeReason reason = FreeReason::last_consumer;
};

template <class R>
struct PlanFinished {
    bool ok = false;
};

// The chunks of a buffer id after planning: allocated anew, kept, or failed.
template <class R>
struct BufferAllocated {
    int buffer_id = 0;
    typename R::ChunkSizes chunk_sizes{};
    std::size_t previous_size = 0;
    bool reallocated = false;  // false: the existing buffer was large enough
    bool ok = false;
};

template <class R>
struct TensorInitialised {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = -1;  // -1 for a view (it takes its source's buffer)
    BufferAddress address = kInvalidAddress;
    typename R::Data data{};  // chunk base + offset
};

// Every kind, in the order a run can report them.
template <class R>
using Any = std::variant<PlanStarted<R>, CountingStarted<R>, NodeStarted<R>, ConsumerCounted<R>, ViewCounted<R>,
                         ChunkCreated<R>, TensorAllocated<R>, InPlaceRejected<R>, InPlaceReused<R>,
                         ExtraSpaceFreed<R>, ParentReleased<R>, ViewReleased<R>, TensorFreed<R>, OutputKept<R>,
                         PlanFinished<R>, BufferAllocated<R>, TensorInitialised<R>>;

} // namespace event

// An event as the allocator reports it: Observed<event::TensorAllocated>.
template <template <class> class Kind>
using Observed = Kind<ObservedRefs>;
using ObservedEvent = event::Any<ObservedRefs>;

// Events are built and dropped for every step of a traced plan: nothing in them owns
// memory (lists are views of the allocator's own, for the length of the call).
static_assert(std::is_trivially_copyable_v<ObservedEvent> && std::is_trivially_destructible_v<ObservedEvent>);

// Takes every kind of event by its own virtual, each one pure: an observer that forgets a
// kind does not compile, and a recorder gets one direct call per event (no dispatch on the
// kind), the same target from each place that emits.
class AllocationObserver {
public:
    virtual ~AllocationObserver() = default;
    virtual void on(const Observed<event::PlanStarted>& e) = 0;
    virtual void on(const Observed<event::CountingStarted>& e) = 0;
    virtual void on(const Observed<event::NodeStarted>& e) = 0;
    virtual void on(const Observed<event::ConsumerCounted>& e) = 0;
    virtual void on(const Observed<event::ViewCounted>& e) = 0;
    virtual void on(const Observed<event::ChunkCreated>& e) = 0;
    virtual void on(const Observed<event::TensorAllocated>& e) = 0;
    virtual void on(const Observed<event::InPlaceRejected>& e) = 0;
    virtual void on(const Observed<event::InPlaceReused>& e) = 0;
    virtual void on(const Observed<event::ExtraSpaceFreed>& e) = 0;
    virtual void on(const Observed<event::ParentReleased>& e) = 0;
    virtual void on(const Observed<event::ViewReleased>& e) = 0;
    virtual void on(const Observed<event::TensorFreed>& e) = 0;
    virtual void on(const Observed<event::OutputKept>& e) = 0;
    virtual void on(const Observed<event::PlanFinished>& e) = 0;
    virtual void on(const Observed<event::BufferAllocated>& e) = 0;
    virtual void on(const Observed<event::TensorInitialised>& e) = 0;
};

namespace detail {
template <class Kind>
concept Observable = requires(AllocationObserver& observer, const Kind& e) { observer.on(e); };
template <class... Kinds>
constexpr bool observes_every_kind(const std::variant<Kinds...>*) {
    return (Observable<Kinds> && ...);
}
} // namespace detail
static_assert(detail::observes_every_kind(static_cast<const ObservedEvent*>(nullptr)),
              "AllocationObserver needs an on() for every kind in event::Any");

// For observers that want every event in one place (logs, filters, forwarding): each kind
// arrives as an ObservedEvent.
class EventListener : public AllocationObserver {
public:
    virtual void on_event(const ObservedEvent& e) = 0;

    void on(const Observed<event::PlanStarted>& e) override { on_event(e); }
    void on(const Observed<event::CountingStarted>& e) override { on_event(e); }
    void on(const Observed<event::NodeStarted>& e) override { on_event(e); }
    void on(const Observed<event::ConsumerCounted>& e) override { on_event(e); }
    void on(const Observed<event::ViewCounted>& e) override { on_event(e); }
    void on(const Observed<event::ChunkCreated>& e) override { on_event(e); }
    void on(const Observed<event::TensorAllocated>& e) override { on_event(e); }
    void on(const Observed<event::InPlaceRejected>& e) override { on_event(e); }
    void on(const Observed<event::InPlaceReused>& e) override { on_event(e); }
    void on(const Observed<event::ExtraSpaceFreed>& e) override { on_event(e); }
    void on(const Observed<event::ParentReleased>& e) override { on_event(e); }
    void on(const Observed<event::ViewReleased>& e) override { on_event(e); }
    void on(const Observed<event::TensorFreed>& e) override { on_event(e); }
    void on(const Observed<event::OutputKept>& e) override { on_event(e); }
    void on(const Observed<event::PlanFinished>& e) override { on_event(e); }
    void on(const Observed<event::BufferAllocated>& e) override { on_event(e); }
    void on(const Observed<event::TensorInitialised>& e) override { on_event(e); }
};

} // namespace gallocsim
