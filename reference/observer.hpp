#pragma once
// The observer seam: the graph allocator reports each step of planning and allocation
// to an optional observer. Events are plain values that name the tensors involved and
// carry the allocator's decisions and the reasons for them (which rule picked a block, how
// a freed range merged), so that explanations word them instead of working them out again.
// With no observer attached none is built.
//
// Each kind of event is declared once, here, with what it is: its fields, its place in the
// one list of kinds (EventKind), the tensors it is about, the part of the run it opens, and
// what it does to the allocator's state (one of a few effects). A trace records, replays and
// lists every kind from these declarations. How a kind is worded (simulator/trace/explain.cpp)
// and written as JSON (simulator/trace/trace_json.cpp) is said per kind where it is done.

#include "reference/dynamic_allocator.hpp"
#include "reference/tensor.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
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

// Which part of the run an event belongs to. An event that opens one says so (`begins`).
enum class Stage : std::uint8_t {
    leafs,      // reserve_n starts: graph leafs get memory
    counting,   // consumers and views are counted, inputs allocated early
    nodes,      // the node loop: allocate each node, release its parents
    buffers,    // backend buffers are allocated for the plan
    addresses,  // alloc_graph gives every tensor its address
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

// The one list of event kinds, in the order a run first meets each (the order lists, filters
// and walk's `k` show them in). Each event says which it is (kind()); TensorAllocated is four,
// one per phase, each where a run first meets it.
enum class EventKind : std::uint8_t {
    plan_started, leaf_allocated, counting_started, consumer_counted, view_counted,
    input_allocated, node_started, chunk_created, parent_allocated, node_allocated,
    in_place_rejected, in_place_reused, placed_again, extra_space_freed, parent_released,
    view_released, tensor_freed, output_kept, plan_finished, buffer_allocated,
    tensor_initialised,
};

// Their names, in that order (row by row as above): what lists, filters, breakpoints and
// written traces call them.
inline constexpr std::array<std::string_view, 21> kEventKindNames{
    "plan-started", "leaf-allocated", "counting-started", "consumer-counted", "view-counted",
    "input-allocated", "node-started", "chunk-created", "parent-allocated", "node-allocated",
    "in-place-rejected", "in-place-reused", "placed-again", "extra-space-freed", "parent-released",
    "view-released", "tensor-freed", "output-kept", "plan-finished", "buffer-allocated",
    "tensor-initialised",
};
inline constexpr std::size_t kEventKindCount = kEventKindNames.size();

// What an event does to the allocator's state, in the few ways there are. Replaying a
// trace, its timeline and the memory an event touches are worked out from these, so a kind
// that does what another does (or nothing) needs nothing more than its declaration.
namespace effect {

template <class R>
using TensorRef = typename R::TensorRef;

// Nothing changes: the event marks a moment of the run.
template <class R>
struct None {};

// Every plan starts afresh: records and free lists are reset (backend buffers stay).
template <class R>
struct StartsPlan {};

// A tensor's count of consumers or views not yet done is now this.
template <class R>
struct CountsUses {
    TensorRef<R> tensor = R::kNone;
    std::optional<int> children;
    std::optional<int> views;
};

// A new chunk with one free block of `size` bytes.
template <class R>
struct CreatesChunk {
    int buffer_id = 0;
    int chunk = 0;
    std::size_t size = 0;
};

// `tensor` takes the block the decision names.
template <class R>
struct Allocates {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = 0;
    typename R::Taken taken{};
};

// `node` takes over the memory of `parent` (or of the source of `parent`, a view).
template <class R>
struct ReusesParent {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    TensorRef<R> view_source = R::kNone;
    int buffer_id = 0;
    BufferAddress address;
    std::size_t alloc_size = 0;
};

// A range goes back to the free list, as the decision says; `tensor` (if any) no longer
// holds memory.
template <class R>
struct Frees {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = 0;
    typename R::Freed freed{};
};

// A graph output keeps its memory where it would have been freed.
template <class R>
struct KeepsOutput {
    TensorRef<R> tensor = R::kNone;
};

// The backend buffer of a buffer id after planning.
template <class R>
struct SetsBuffer {
    int buffer_id = 0;
    typename R::ChunkSizes chunk_sizes{};
    bool reallocated = false;
    bool ok = false;
};

// A tensor gets its address (buffer id -1: a view, in its source's buffer).
template <class R>
struct Places {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = -1;
    BufferAddress address = kInvalidAddress;
    typename R::Data data{};
};

} // namespace effect

// Every kind of event, declared once: `R` is how it refers to things (see ObservedRefs).
// An event is an aggregate of its fields (a trace copies it field by field, in order); a
// field `node` is the node the event is about (node_of). A kind declares:
//   kind() (and kinds, when it is several)  its EventKind
//   begins (optional)                        the stage it opens; else it stays in the stage it meets
//   touched()                                the tensors it is about, main one first
//   does()                                   what it does to the allocator's state (effect::)
// Adding a kind here, to Any and to EventKind makes every observer take it and every trace
// record, list and replay it; the explanation (simulator/trace/explain.cpp) and the JSON
// (simulator/trace/trace_json.cpp) fail to compile until they word and write the new kind.
namespace event {

template <class R>
using TensorRef = typename R::TensorRef;

template <class R>
struct PlanStarted {
    bool measure_only = false;  // reserve_n_size: plan only, allocate no buffer

    static constexpr EventKind kind() { return EventKind::plan_started; }
    static constexpr Stage begins = Stage::leafs;
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::StartsPlan<R> does() const { return {}; }
};

// The counting pass begins: consumers and views are counted and inputs allocated early.
template <class R>
struct CountingStarted {
    static constexpr EventKind kind() { return EventKind::counting_started; }
    static constexpr Stage begins = Stage::counting;
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::None<R> does() const { return {}; }
};

// The counting pass found another consumer of `tensor` (node `consumer` reads it).
template <class R>
struct ConsumerCounted {
    TensorRef<R> tensor = R::kNone;
    TensorRef<R> consumer = R::kNone;
    int children = 0;  // after counting

    static constexpr EventKind kind() { return EventKind::consumer_counted; }
    static constexpr auto touched() { return std::tuple{&ConsumerCounted::tensor, &ConsumerCounted::consumer}; }
    constexpr effect::CountsUses<R> does() const { return {tensor, children, std::nullopt}; }
};

// The counting pass found another view of `tensor`.
template <class R>
struct ViewCounted {
    TensorRef<R> tensor = R::kNone;
    TensorRef<R> view = R::kNone;
    int views = 0;  // after counting

    static constexpr EventKind kind() { return EventKind::view_counted; }
    static constexpr auto touched() { return std::tuple{&ViewCounted::tensor, &ViewCounted::view}; }
    constexpr effect::CountsUses<R> does() const { return {tensor, std::nullopt, views}; }
};

// The node loop reaches graph.nodes[index]: its parents, then the node itself, get memory,
// then its parents are released.
template <class R>
struct NodeStarted {
    TensorRef<R> node = R::kNone;
    std::size_t index = 0;

    static constexpr EventKind kind() { return EventKind::node_started; }
    static constexpr Stage begins = Stage::nodes;
    static constexpr auto touched() { return std::tuple{&NodeStarted::node}; }
    constexpr effect::None<R> does() const { return {}; }
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

    static constexpr EventKind kind() { return EventKind::chunk_created; }
    static constexpr auto touched() { return std::tuple{&ChunkCreated::tensor}; }
    constexpr effect::CreatesChunk<R> does() const { return {buffer_id, chunk, size}; }
};

template <class R>
struct TensorAllocated {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = 0;
    AllocationPhase phase = AllocationPhase::node;
    std::size_t alloc_size = 0;  // the buffer type's alloc size, before alignment
    typename R::Taken taken{};   // the dynamic allocator's decision and why (its candidates)

    // One kind per phase, in AllocationPhase's order.
    static constexpr std::array kinds{EventKind::leaf_allocated, EventKind::input_allocated, EventKind::parent_allocated,
                                      EventKind::node_allocated};
    constexpr EventKind kind() const { return kinds[static_cast<std::size_t>(phase)]; }
    static constexpr auto touched() { return std::tuple{&TensorAllocated::tensor}; }
    constexpr effect::Allocates<R> does() const { return {tensor, buffer_id, taken}; }
};

template <class R>
struct InPlaceRejected {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    InPlaceRejection reason = InPlaceRejection::not_owned;
    int parent_children = 0;  // the parent's consumers and views not yet done, when it was checked
    int parent_views = 0;

    static constexpr EventKind kind() { return EventKind::in_place_rejected; }
    static constexpr auto touched() { return std::tuple{&InPlaceRejected::node, &InPlaceRejected::parent}; }
    constexpr effect::None<R> does() const { return {}; }
};

template <class R>
struct InPlaceReused {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    TensorRef<R> view_source = R::kNone;  // set when the parent is a view (upstream never gets here; a policy may)
    int buffer_id = 0;
    BufferAddress address;
    std::size_t alloc_size = 0;

    static constexpr EventKind kind() { return EventKind::in_place_reused; }
    static constexpr auto touched() {
        return std::tuple{&InPlaceReused::node, &InPlaceReused::parent, &InPlaceReused::view_source};
    }
    constexpr effect::ReusesParent<R> does() const { return {node, parent, view_source, buffer_id, address, alloc_size}; }
};

// A tensor that had memory once is given memory again (reported just after the allocation or
// in-place reuse that gave it): its first place went to a node in place, or was freed, before the
// tensor itself was done with, which happens when a node reads a node that runs after it. Only
// the last place counts: it is the one alloc_graph gives the tensor.
template <class R>
struct TensorPlacedAgain {
    TensorRef<R> tensor = R::kNone;
    AllocationPhase phase = AllocationPhase::node;  // how the allocator met it again
    int previous_buffer = 0;                          // where it was before
    int previous_chunk = 0;
    std::size_t previous_offset = 0;

    static constexpr EventKind kind() { return EventKind::placed_again; }
    static constexpr auto touched() { return std::tuple{&TensorPlacedAgain::tensor}; }
    constexpr effect::None<R> does() const { return {}; }
};

// After in-place reuse of a larger parent, the bytes past the node's end are freed.
template <class R>
struct ExtraSpaceFreed {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    int buffer_id = 0;
    typename R::Freed freed{};  // the dynamic allocator's decision: where, the merge, the free list after

    static constexpr EventKind kind() { return EventKind::extra_space_freed; }
    static constexpr auto touched() { return std::tuple{&ExtraSpaceFreed::node, &ExtraSpaceFreed::parent}; }
    // The node keeps the memory it took: these bytes were the parent's, past the node's end.
    constexpr effect::Frees<R> does() const { return {R::kNone, buffer_id, freed}; }
};

// A node has run: `parent` has one consumer fewer.
template <class R>
struct ParentReleased {
    TensorRef<R> node = R::kNone;
    TensorRef<R> parent = R::kNone;
    int children_left = 0;
    int views_left = 0;
    bool still_owned = false;  // the parent's memory is still the allocator's (false after in-place reuse)

    static constexpr EventKind kind() { return EventKind::parent_released; }
    static constexpr auto touched() { return std::tuple{&ParentReleased::parent, &ParentReleased::node}; }
    constexpr effect::CountsUses<R> does() const { return {parent, children_left, views_left}; }
};

// A view parent is done: its source has one view fewer.
template <class R>
struct ViewReleased {
    TensorRef<R> view = R::kNone;
    TensorRef<R> view_source = R::kNone;
    int source_children = 0;
    int source_views_left = 0;

    static constexpr EventKind kind() { return EventKind::view_released; }
    static constexpr auto touched() { return std::tuple{&ViewReleased::view_source, &ViewReleased::view}; }
    constexpr effect::CountsUses<R> does() const { return {view_source, source_children, source_views_left}; }
};

template <class R>
struct TensorFreed {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = 0;
    FreeReason reason = FreeReason::last_consumer;
    std::size_t alloc_size = 0;
    typename R::Freed freed{};

    static constexpr EventKind kind() { return EventKind::tensor_freed; }
    static constexpr auto touched() { return std::tuple{&TensorFreed::tensor}; }
    constexpr effect::Frees<R> does() const { return {tensor, buffer_id, freed}; }
};

// An output would have been freed here but outputs are never freed.
template <class R>
struct OutputKept {
    TensorRef<R> tensor = R::kNone;
    FreeReason reason = FreeReason::last_consumer;

    static constexpr EventKind kind() { return EventKind::output_kept; }
    static constexpr auto touched() { return std::tuple{&OutputKept::tensor}; }
    constexpr effect::KeepsOutput<R> does() const { return {tensor}; }
};

template <class R>
struct PlanFinished {
    bool ok = false;

    static constexpr EventKind kind() { return EventKind::plan_finished; }
    static constexpr Stage begins = Stage::buffers;
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::None<R> does() const { return {}; }
};

// The chunks of a buffer id after planning: allocated anew, kept, or failed.
template <class R>
struct BufferAllocated {
    int buffer_id = 0;
    typename R::ChunkSizes chunk_sizes{};
    std::size_t previous_size = 0;
    bool reallocated = false;  // false: the existing buffer was large enough
    bool ok = false;

    static constexpr EventKind kind() { return EventKind::buffer_allocated; }
    static constexpr Stage begins = Stage::buffers;
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::SetsBuffer<R> does() const { return {buffer_id, chunk_sizes, reallocated, ok}; }
};

template <class R>
struct TensorInitialised {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = -1;  // -1 for a view (it takes its source's buffer)
    BufferAddress address = kInvalidAddress;
    typename R::Data data{};  // chunk base + offset

    static constexpr EventKind kind() { return EventKind::tensor_initialised; }
    static constexpr Stage begins = Stage::addresses;
    static constexpr auto touched() { return std::tuple{&TensorInitialised::tensor}; }
    constexpr effect::Places<R> does() const { return {tensor, buffer_id, address, data}; }
};

// Every kind, in the order a run can report them.
template <class R>
using Any = std::variant<PlanStarted<R>, CountingStarted<R>, ConsumerCounted<R>, ViewCounted<R>, NodeStarted<R>,
                         ChunkCreated<R>, TensorAllocated<R>, InPlaceRejected<R>, InPlaceReused<R>,
                         TensorPlacedAgain<R>, ExtraSpaceFreed<R>, ParentReleased<R>, ViewReleased<R>, TensorFreed<R>, OutputKept<R>,
                         PlanFinished<R>, BufferAllocated<R>, TensorInitialised<R>>;

// The node an event is about: its field `node`, in the kinds that have one; else `otherwise`.
template <class Kind, class Otherwise>
constexpr Otherwise node_of(const Kind& e, Otherwise otherwise) {
    if constexpr (requires { e.node; }) {
        return e.node;
    } else {
        return otherwise;
    }
}

} // namespace event

// An event as the allocator reports it: Observed<event::TensorAllocated>.
template <template <class> class Kind>
using Observed = Kind<ObservedRefs>;
using ObservedEvent = event::Any<ObservedRefs>;

// Events are built and dropped for every step of a traced plan: nothing in them owns
// memory (lists are views of the allocator's own, for the length of the call).
static_assert(std::is_trivially_copyable_v<ObservedEvent> && std::is_trivially_destructible_v<ObservedEvent>);

// EventKind and the events agree: each EventKind is the kind() of one event, and each has a
// name (an index past kEventKindNames does not compile).
template <class... Kinds>
consteval bool is_each_kind_once(const std::variant<Kinds...>*) {
    std::array<int, kEventKindCount> events{};
    auto count = [&]<class Kind>() {
        if constexpr (requires { Kind::kinds; }) {
            for (EventKind kind : Kind::kinds) {
                ++events.at(static_cast<std::size_t>(kind));
            }
        } else {
            ++events.at(static_cast<std::size_t>(Kind::kind()));
        }
    };
    (count.template operator()<Kinds>(), ...);
    return std::ranges::all_of(events, [](int n) { return n == 1; });
}
static_assert(is_each_kind_once(static_cast<const ObservedEvent*>(nullptr)), "each EventKind is the kind of one event");

namespace detail {
// One pure virtual on() per kind, made from event::Any, in one chain of classes (one vtable).
template <class... Kinds>
class ObservesEach;
template <class Kind>
class ObservesEach<Kind> {
public:
    virtual ~ObservesEach() = default;
    virtual void on(const Kind& e) = 0;
};
template <class Kind, class... Rest>
class ObservesEach<Kind, Rest...> : public ObservesEach<Rest...> {
public:
    using ObservesEach<Rest...>::on;
    virtual void on(const Kind& e) = 0;
};
template <class Variant>
struct ObserverOf;
template <class... Kinds>
struct ObserverOf<std::variant<Kinds...>> {
    using type = ObservesEach<Kinds...>;
};
} // namespace detail

// Takes every kind of event by its own virtual, each one pure: an observer that forgets a
// kind does not compile, and a recorder gets one direct call per event (no dispatch on the
// kind), the same target from each place that emits.
class AllocationObserver : public detail::ObserverOf<ObservedEvent>::type {};

namespace detail {
// Overrides every on() with a direct call to Derived's handle(e) (a template, or an overload
// per kind), again one class per kind, made from event::Any.
template <class Derived, class... Kinds>
class HandlesEach;
template <class Derived>
class HandlesEach<Derived> : public AllocationObserver {};
template <class Derived, class Kind, class... Rest>
class HandlesEach<Derived, Kind, Rest...> : public HandlesEach<Derived, Rest...> {
public:
    using HandlesEach<Derived, Rest...>::on;
    void on(const Kind& e) override { static_cast<Derived&>(*this).handle(e); }
};
template <class Derived, class Variant>
struct HandlerOf;
template <class Derived, class... Kinds>
struct HandlerOf<Derived, std::variant<Kinds...>> {
    using type = HandlesEach<Derived, Kinds...>;
};
} // namespace detail

// An observer that handles every kind in one member template, `handle(const Kind&)`, called
// directly from each kind's on() (a trace recorder). Derived makes this base a friend if
// handle is private.
template <class Derived>
using ObserverOfEach = typename detail::HandlerOf<Derived, ObservedEvent>::type;

// For observers that want every event in one place (logs, filters, forwarding): each kind
// arrives as an ObservedEvent.
class EventListener : public ObserverOfEach<EventListener> {
public:
    virtual void on_event(const ObservedEvent& e) = 0;

private:
    template <class, class...>
    friend class detail::HandlesEach;
    template <class Kind>
    void handle(const Kind& e) {
        on_event(e);
    }
};

} // namespace gallocsim
