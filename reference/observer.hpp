#pragma once
// The observer seam: the graph allocator reports each step of planning and allocation
// to an optional observer. Events are plain values that name the tensors involved and
// carry the allocator's decisions and the reasons for them (which rule picked a block, how
// a freed range merged), so that explanations word them instead of working them out again.
// With no observer attached none is built.
//
// Each kind of event is declared once, here, with every fact about it that does not need
// words: its name, its fields (in order, each with the key it is written under and how), the
// tensors it is about, the part of the run it opens, and what it does to the allocator's
// state (one of a few effects). A trace records, replays, lists and writes every kind from
// these declarations; only its explanation (simulator/trace/explain.cpp) is written per kind.

#include "reference/dynamic_allocator.hpp"
#include "reference/tensor.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
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

// The values of those fields as written out (a written trace names them, not their numbers).
constexpr std::string_view value_name(AllocationPhase phase) {
    switch (phase) {
    case AllocationPhase::leaf: return "leaf";
    case AllocationPhase::graph_input: return "graph-input";
    case AllocationPhase::parent: return "parent";
    case AllocationPhase::node: return "node";
    }
    return "?";
}

constexpr std::string_view value_name(InPlaceRejection reason) {
    switch (reason) {
    case InPlaceRejection::not_owned: return "not-owned";
    case InPlaceRejection::output: return "output";
    case InPlaceRejection::different_layout: return "different-layout";
    case InPlaceRejection::other_consumers: return "other-consumers";
    case InPlaceRejection::view_source_busy: return "view-source-busy";
    }
    return "?";
}

constexpr std::string_view value_name(FreeReason reason) {
    return reason == FreeReason::last_consumer ? "last-consumer" : "last-view";
}

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

// The name an event kind is listed and filtered by. A kind that is several (TensorAllocated,
// one per phase) lists each after the kind a run meets just before it; the others are listed
// in event::Any's order.
struct KindName {
    std::string_view name;
    std::string_view listed_after;  // empty: in event::Any's order
};

// How each field of an event is written out, in the order the event lists them (fields()).
// Every field is listed, so that a trace can copy an event field by field (event::refer).
namespace as {
struct Value {};      // a number, a flag, or an enumerator by its value_name, under `key`
struct Tensor {};     // a tensor, by name (null for none)
struct Node {};       // the node the event is about: written with the fields every event has
struct Buffer {};     // a buffer id, null for none (-1)
struct Address {};    // "chunk" and "offset", null when it has none (kInvalidAddress)
struct Taken {};      // the allocation decision, its fields inline, and the candidates
struct Freed {};      // the free decision, as one object under `key`
struct Sizes {};      // a list of sizes
struct Unwritten {};  // recorded, not written

template <class How, class Event, class T>
struct Field {
    using how = How;
    std::string_view key;
    T Event::*member;
};

template <class E, class T> constexpr Field<Value, E, T> value(std::string_view key, T E::*m) { return {key, m}; }
template <class E, class T> constexpr Field<Tensor, E, T> tensor(std::string_view key, T E::*m) { return {key, m}; }
template <class E, class T> constexpr Field<Node, E, T> node(T E::*m) { return {"node", m}; }
template <class E, class T> constexpr Field<Buffer, E, T> buffer(std::string_view key, T E::*m) { return {key, m}; }
template <class E, class T> constexpr Field<Address, E, T> address(T E::*m) { return {{}, m}; }
template <class E, class T> constexpr Field<Taken, E, T> taken(T E::*m) { return {{}, m}; }
template <class E, class T> constexpr Field<Freed, E, T> freed(std::string_view key, T E::*m) { return {key, m}; }
template <class E, class T> constexpr Field<Sizes, E, T> sizes(std::string_view key, T E::*m) { return {key, m}; }
template <class E, class T> constexpr Field<Unwritten, E, T> unwritten(T E::*m) { return {{}, m}; }
} // namespace as

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
// A kind declares:
//   name (or kinds, and kind() choosing one)  what it is called in lists, filters and written traces
//   begins (optional)                          the stage it opens; else it stays in the stage it meets
//   fields()                                   every field, in order, and how it is written (as::)
//   touched()                                  the tensors it is about, main one first
//   does()                                     what it does to the allocator's state (effect::)
// Adding a kind here and to Any makes every observer take it and every trace record, list,
// replay and write it; the explanation (simulator/trace/explain.cpp) fails to compile until
// it words the new kind.
namespace event {

template <class R>
using TensorRef = typename R::TensorRef;

template <class R>
struct PlanStarted {
    bool measure_only = false;  // reserve_n_size: plan only, allocate no buffer

    static constexpr std::string_view name = "plan-started";
    static constexpr Stage begins = Stage::leafs;
    static constexpr auto fields() { return std::tuple{as::value("measure_only", &PlanStarted::measure_only)}; }
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::StartsPlan<R> does() const { return {}; }
};

// The counting pass begins: consumers and views are counted and inputs allocated early.
template <class R>
struct CountingStarted {
    static constexpr std::string_view name = "counting-started";
    static constexpr Stage begins = Stage::counting;
    static constexpr auto fields() { return std::tuple{}; }
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::None<R> does() const { return {}; }
};

// The counting pass found another consumer of `tensor` (node `consumer` reads it).
template <class R>
struct ConsumerCounted {
    TensorRef<R> tensor = R::kNone;
    TensorRef<R> consumer = R::kNone;
    int children = 0;  // after counting

    static constexpr std::string_view name = "consumer-counted";
    static constexpr auto fields() {
        using E = ConsumerCounted;
        return std::tuple{as::tensor("tensor", &E::tensor), as::tensor("consumer", &E::consumer),
                          as::value("children", &E::children)};
    }
    static constexpr auto touched() { return std::tuple{&ConsumerCounted::tensor, &ConsumerCounted::consumer}; }
    constexpr effect::CountsUses<R> does() const { return {tensor, children, std::nullopt}; }
};

// The counting pass found another view of `tensor`.
template <class R>
struct ViewCounted {
    TensorRef<R> tensor = R::kNone;
    TensorRef<R> view = R::kNone;
    int views = 0;  // after counting

    static constexpr std::string_view name = "view-counted";
    static constexpr auto fields() {
        using E = ViewCounted;
        return std::tuple{as::tensor("tensor", &E::tensor), as::tensor("view", &E::view), as::value("views", &E::views)};
    }
    static constexpr auto touched() { return std::tuple{&ViewCounted::tensor, &ViewCounted::view}; }
    constexpr effect::CountsUses<R> does() const { return {tensor, std::nullopt, views}; }
};

// The node loop reaches graph.nodes[index]: its parents, then the node itself, get memory,
// then its parents are released.
template <class R>
struct NodeStarted {
    TensorRef<R> node = R::kNone;
    std::size_t index = 0;

    static constexpr std::string_view name = "node-started";
    static constexpr Stage begins = Stage::nodes;
    static constexpr auto fields() {
        return std::tuple{as::node(&NodeStarted::node), as::value("node_index", &NodeStarted::index)};
    }
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

    static constexpr std::string_view name = "chunk-created";
    static constexpr auto fields() {
        using E = ChunkCreated;
        return std::tuple{as::value("buffer", &E::buffer_id), as::value("chunk", &E::chunk),
                          as::value("size", &E::size),        as::tensor("tensor", &E::tensor),
                          as::value("request", &E::request),
                          as::unwritten(&E::why_this_size)};  // worded by the explanation, not written
    }
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

    // One kind per phase, in AllocationPhase's order, each listed where a run first meets it.
    static constexpr std::array kinds{
        KindName{"leaf-allocated", "plan-started"},      KindName{"input-allocated", "view-counted"},
        KindName{"parent-allocated", "chunk-created"},   KindName{"node-allocated", "parent-allocated"},
    };
    constexpr std::size_t kind() const { return static_cast<std::size_t>(phase); }
    static constexpr auto fields() {
        using E = TensorAllocated;
        return std::tuple{as::tensor("tensor", &E::tensor), as::value("buffer", &E::buffer_id),
                          as::value("phase", &E::phase), as::value("alloc_size", &E::alloc_size), as::taken(&E::taken)};
    }
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

    static constexpr std::string_view name = "in-place-rejected";
    static constexpr auto fields() {
        using E = InPlaceRejected;
        return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent), as::value("reason", &E::reason),
                          as::value("parent_children", &E::parent_children),
                          as::value("parent_views", &E::parent_views)};
    }
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

    static constexpr std::string_view name = "in-place-reused";
    static constexpr auto fields() {
        using E = InPlaceReused;
        return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent),
                          as::tensor("view_source", &E::view_source), as::value("buffer", &E::buffer_id),
                          as::address(&E::address), as::value("alloc_size", &E::alloc_size)};
    }
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

    static constexpr std::string_view name = "placed-again";
    static constexpr auto fields() {
        using E = TensorPlacedAgain;
        return std::tuple{as::tensor("tensor", &E::tensor), as::value("phase", &E::phase),
                          as::value("previous_buffer", &E::previous_buffer),
                          as::value("previous_chunk", &E::previous_chunk),
                          as::value("previous_offset", &E::previous_offset)};
    }
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

    static constexpr std::string_view name = "extra-space-freed";
    static constexpr auto fields() {
        using E = ExtraSpaceFreed;
        return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent), as::value("buffer", &E::buffer_id),
                          as::freed("free", &E::freed)};
    }
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

    static constexpr std::string_view name = "parent-released";
    static constexpr auto fields() {
        using E = ParentReleased;
        return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent),
                          as::value("children_left", &E::children_left), as::value("views_left", &E::views_left),
                          as::value("still_owned", &E::still_owned)};
    }
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

    static constexpr std::string_view name = "view-released";
    static constexpr auto fields() {
        using E = ViewReleased;
        return std::tuple{as::tensor("view", &E::view), as::tensor("view_source", &E::view_source),
                          as::value("source_children", &E::source_children),
                          as::value("source_views_left", &E::source_views_left)};
    }
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

    static constexpr std::string_view name = "tensor-freed";
    static constexpr auto fields() {
        using E = TensorFreed;
        return std::tuple{as::tensor("tensor", &E::tensor), as::value("buffer", &E::buffer_id),
                          as::value("reason", &E::reason), as::value("alloc_size", &E::alloc_size),
                          as::freed("free", &E::freed)};
    }
    static constexpr auto touched() { return std::tuple{&TensorFreed::tensor}; }
    constexpr effect::Frees<R> does() const { return {tensor, buffer_id, freed}; }
};

// An output would have been freed here but outputs are never freed.
template <class R>
struct OutputKept {
    TensorRef<R> tensor = R::kNone;
    FreeReason reason = FreeReason::last_consumer;

    static constexpr std::string_view name = "output-kept";
    static constexpr auto fields() {
        return std::tuple{as::tensor("tensor", &OutputKept::tensor), as::value("reason", &OutputKept::reason)};
    }
    static constexpr auto touched() { return std::tuple{&OutputKept::tensor}; }
    constexpr effect::KeepsOutput<R> does() const { return {tensor}; }
};

template <class R>
struct PlanFinished {
    bool ok = false;

    static constexpr std::string_view name = "plan-finished";
    static constexpr Stage begins = Stage::buffers;
    static constexpr auto fields() { return std::tuple{as::value("ok", &PlanFinished::ok)}; }
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

    static constexpr std::string_view name = "buffer-allocated";
    static constexpr Stage begins = Stage::buffers;
    static constexpr auto fields() {
        using E = BufferAllocated;
        return std::tuple{as::value("buffer", &E::buffer_id), as::sizes("chunk_sizes", &E::chunk_sizes),
                          as::value("previous_size", &E::previous_size), as::value("reallocated", &E::reallocated),
                          as::value("ok", &E::ok)};
    }
    static constexpr auto touched() { return std::tuple{}; }
    constexpr effect::SetsBuffer<R> does() const { return {buffer_id, chunk_sizes, reallocated, ok}; }
};

template <class R>
struct TensorInitialised {
    TensorRef<R> tensor = R::kNone;
    int buffer_id = -1;  // -1 for a view (it takes its source's buffer)
    BufferAddress address = kInvalidAddress;
    typename R::Data data{};  // chunk base + offset

    static constexpr std::string_view name = "tensor-initialised";
    static constexpr Stage begins = Stage::addresses;
    static constexpr auto fields() {
        using E = TensorInitialised;
        return std::tuple{as::tensor("tensor", &E::tensor), as::buffer("buffer", &E::buffer_id), as::address(&E::address),
                          as::value("address", &E::data)};
    }
    static constexpr auto touched() { return std::tuple{&TensorInitialised::tensor}; }
    constexpr effect::Places<R> does() const { return {tensor, buffer_id, address, data}; }
};

// Every kind, in the order a run can report them (the order kinds are listed in, but for
// those that say where they are listed: KindName).
template <class R>
using Any = std::variant<PlanStarted<R>, CountingStarted<R>, ConsumerCounted<R>, ViewCounted<R>, NodeStarted<R>,
                         ChunkCreated<R>, TensorAllocated<R>, InPlaceRejected<R>, InPlaceReused<R>,
                         TensorPlacedAgain<R>, ExtraSpaceFreed<R>, ParentReleased<R>, ViewReleased<R>, TensorFreed<R>, OutputKept<R>,
                         PlanFinished<R>, BufferAllocated<R>, TensorInitialised<R>>;

// The names of a kind (one, or one per sub-kind), with where each is listed.
template <class Kind>
constexpr auto kind_names() {
    if constexpr (requires { Kind::kinds; }) {
        return Kind::kinds;
    } else {
        return std::array{KindName{Kind::name, {}}};
    }
}

// Which of its kind_names() an event is.
template <class Kind>
constexpr std::size_t sub_kind(const Kind& e) {
    if constexpr (requires { e.kind(); }) {
        return e.kind();
    } else {
        return 0;
    }
}

// Calls f(field) for each of a kind's fields, in order.
template <class Kind, class F>
constexpr void for_each_field(F&& f) {
    std::apply([&](const auto&... field) { (f(field), ...); }, Kind::fields());
}

// How a field is written (as::Value, as::Tensor, ...).
template <class Field>
using how_of = typename std::remove_cvref_t<Field>::how;

// The node an event is about (its as::node field), or `otherwise` for a kind with none.
template <class Kind, class Otherwise>
constexpr Otherwise node_of(const Kind& e, Otherwise otherwise) {
    for_each_field<Kind>([&](const auto& field) {
        if constexpr (std::is_same_v<how_of<decltype(field)>, as::Node>) {
            otherwise = e.*field.member;
        }
    });
    return otherwise;
}

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

// Every field of a kind is in its fields(): a copy made from that list misses none.
template <class Kind>
constexpr bool lists_every_field() {
    return detail::field_count<Kind>() == std::tuple_size_v<decltype(Kind::fields())>;
}

// Each field is written as what it is: a reference as what it refers to, a value as a value
// (checked on the allocator's references, whose types tell them apart).
template <class How, class T>
constexpr bool written_as_what_it_is() {
    using R = ObservedRefs;
    if constexpr (std::is_same_v<How, as::Tensor> || std::is_same_v<How, as::Node>) {
        return std::is_same_v<T, R::TensorRef>;
    } else if constexpr (std::is_same_v<How, as::Taken>) {
        return std::is_same_v<T, R::Taken>;
    } else if constexpr (std::is_same_v<How, as::Freed>) {
        return std::is_same_v<T, R::Freed>;
    } else if constexpr (std::is_same_v<How, as::Sizes>) {
        return std::is_same_v<T, R::ChunkSizes>;
    } else if constexpr (std::is_same_v<How, as::Buffer>) {
        return std::is_same_v<T, int>;
    } else if constexpr (std::is_same_v<How, as::Address>) {
        return std::is_same_v<T, BufferAddress>;
    } else if constexpr (std::is_same_v<How, as::Value>) {
        return std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, R::Data>;
    } else {
        return std::is_same_v<How, as::Unwritten>;
    }
}

// Each field listed once, as what it is, and every field listed.
template <class Kind>
constexpr bool fields_are_declared() {
    bool ok = lists_every_field<Kind>();
    for_each_field<Kind>([&]<class How, class T>(const as::Field<How, Kind, T>& field) {
        ok = ok && written_as_what_it_is<How, T>();
        int listed = 0;
        for_each_field<Kind>([&](const auto& other) {
            if constexpr (std::is_same_v<decltype(other.member), T Kind::*>) {
                listed += other.member == field.member ? 1 : 0;
            }
        });
        ok = ok && listed == 1;
    });
    return ok;
}

// The same event with another kind of references: each field, in fields() order, passes
// through `ref`, which turns references into the other kind's and gives values back as they are.
template <class To, template <class> class Kind, class From, class Ref>
constexpr Kind<To> refer(const Kind<From>& e, Ref&& ref) {
    constexpr auto from = Kind<From>::fields();
    constexpr auto to = Kind<To>::fields();
    Kind<To> out;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((out.*(std::get<I>(to).member) = ref(e.*(std::get<I>(from).member))), ...);
    }(std::make_index_sequence<std::tuple_size_v<decltype(from)>>{});
    return out;
}

} // namespace event

// An event as the allocator reports it: Observed<event::TensorAllocated>.
template <template <class> class Kind>
using Observed = Kind<ObservedRefs>;
using ObservedEvent = event::Any<ObservedRefs>;

// Events are built and dropped for every step of a traced plan: nothing in them owns
// memory (lists are views of the allocator's own, for the length of the call).
static_assert(std::is_trivially_copyable_v<ObservedEvent> && std::is_trivially_destructible_v<ObservedEvent>);

// Every kind lists all its fields (a trace copies events field by field), each written as
// what it is.
template <class... Kinds>
constexpr bool declares_every_field(const std::variant<Kinds...>*) {
    return (event::fields_are_declared<Kinds>() && ...);
}
static_assert(declares_every_field(static_cast<const ObservedEvent*>(nullptr)),
              "each event's fields() lists every field, with an as:: that fits its type");

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
