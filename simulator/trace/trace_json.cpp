#include "simulator/trace/trace_json.hpp"

#include "simulator/model/visible_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <concepts>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace gallocsim {
namespace {

using json = nlohmann::ordered_json;

// The values of the events' enumerations as written: a written trace names them, not their numbers.
std::string_view value_name(AllocationPhase phase) {
    switch (phase) {
    case AllocationPhase::leaf: return "leaf";
    case AllocationPhase::graph_input: return "graph-input";
    case AllocationPhase::parent: return "parent";
    case AllocationPhase::node: return "node";
    }
    return "?";
}

std::string_view value_name(InPlaceRejection reason) {
    switch (reason) {
    case InPlaceRejection::not_owned: return "not-owned";
    case InPlaceRejection::output: return "output";
    case InPlaceRejection::different_layout: return "different-layout";
    case InPlaceRejection::other_consumers: return "other-consumers";
    case InPlaceRejection::view_source_busy: return "view-source-busy";
    }
    return "?";
}

std::string_view value_name(FreeReason reason) {
    return reason == FreeReason::last_consumer ? "last-consumer" : "last-view";
}

std::string_view value_name(BlockChoice choice) {
    switch (choice) {
    case BlockChoice::best_fit: return "best-fit";
    case BlockChoice::tail: return "tail";
    case BlockChoice::new_chunk: return "new-chunk";
    }
    return "?";
}

std::string_view value_name(MergeKind merge) {
    switch (merge) {
    case MergeKind::none: return "none";
    case MergeKind::previous: return "previous";
    case MergeKind::next: return "next";
    case MergeKind::both: return "both";
    }
    return "?";
}

// How each kind is written: its fields in the order a written trace lists them, each under
// its key and written as what it is (as::). Every field is listed, those written elsewhere
// too (as::Node, as::Unwritten), so that a field added to an event cannot go unwritten
// unnoticed (fields_are_laid_out, below). Each layout is a template over the references: it
// is checked on the allocator's, whose types tell a tensor from a number, and written from
// the trace's.
namespace as {
struct Value {};      // a number, a flag, or an enumerator by its value_name, under `key`
struct Tensor {};     // a tensor, by name (null for none)
struct Node {};       // the node the event is about (event::node_of): written with the fields every event has
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

template <class Kind>
using Of = std::type_identity<Kind>;

template <class R>
constexpr auto layout(Of<event::PlanStarted<R>>) {
    using E = event::PlanStarted<R>;
    return std::tuple{as::value("measure_only", &E::measure_only)};
}

template <class R>
constexpr auto layout(Of<event::CountingStarted<R>>) {
    return std::tuple{};
}

template <class R>
constexpr auto layout(Of<event::ConsumerCounted<R>>) {
    using E = event::ConsumerCounted<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::tensor("consumer", &E::consumer),
                      as::value("children", &E::children)};
}

template <class R>
constexpr auto layout(Of<event::ViewCounted<R>>) {
    using E = event::ViewCounted<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::tensor("view", &E::view), as::value("views", &E::views)};
}

template <class R>
constexpr auto layout(Of<event::NodeStarted<R>>) {
    using E = event::NodeStarted<R>;
    return std::tuple{as::node(&E::node), as::value("node_index", &E::index)};
}

template <class R>
constexpr auto layout(Of<event::ChunkCreated<R>>) {
    using E = event::ChunkCreated<R>;
    return std::tuple{as::value("buffer", &E::buffer_id), as::value("chunk", &E::chunk),
                      as::value("size", &E::size),        as::tensor("tensor", &E::tensor),
                      as::value("request", &E::request),
                      as::unwritten(&E::why_this_size)};  // worded by the explanation, not written
}

template <class R>
constexpr auto layout(Of<event::TensorAllocated<R>>) {
    using E = event::TensorAllocated<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::value("buffer", &E::buffer_id),
                      as::value("phase", &E::phase), as::value("alloc_size", &E::alloc_size), as::taken(&E::taken)};
}

template <class R>
constexpr auto layout(Of<event::InPlaceRejected<R>>) {
    using E = event::InPlaceRejected<R>;
    return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent), as::value("reason", &E::reason),
                      as::value("parent_children", &E::parent_children), as::value("parent_views", &E::parent_views)};
}

template <class R>
constexpr auto layout(Of<event::InPlaceReused<R>>) {
    using E = event::InPlaceReused<R>;
    return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent),
                      as::tensor("view_source", &E::view_source), as::value("buffer", &E::buffer_id),
                      as::address(&E::address), as::value("alloc_size", &E::alloc_size)};
}

template <class R>
constexpr auto layout(Of<event::TensorPlacedAgain<R>>) {
    using E = event::TensorPlacedAgain<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::value("phase", &E::phase),
                      as::value("previous_buffer", &E::previous_buffer), as::value("previous_chunk", &E::previous_chunk),
                      as::value("previous_offset", &E::previous_offset)};
}

template <class R>
constexpr auto layout(Of<event::ExtraSpaceFreed<R>>) {
    using E = event::ExtraSpaceFreed<R>;
    return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent), as::value("buffer", &E::buffer_id),
                      as::freed("free", &E::freed)};
}

template <class R>
constexpr auto layout(Of<event::ParentReleased<R>>) {
    using E = event::ParentReleased<R>;
    return std::tuple{as::node(&E::node), as::tensor("parent", &E::parent),
                      as::value("children_left", &E::children_left), as::value("views_left", &E::views_left),
                      as::value("still_owned", &E::still_owned)};
}

template <class R>
constexpr auto layout(Of<event::ViewReleased<R>>) {
    using E = event::ViewReleased<R>;
    return std::tuple{as::tensor("view", &E::view), as::tensor("view_source", &E::view_source),
                      as::value("source_children", &E::source_children),
                      as::value("source_views_left", &E::source_views_left)};
}

template <class R>
constexpr auto layout(Of<event::TensorFreed<R>>) {
    using E = event::TensorFreed<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::value("buffer", &E::buffer_id),
                      as::value("reason", &E::reason), as::value("alloc_size", &E::alloc_size),
                      as::freed("free", &E::freed)};
}

template <class R>
constexpr auto layout(Of<event::OutputKept<R>>) {
    using E = event::OutputKept<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::value("reason", &E::reason)};
}

template <class R>
constexpr auto layout(Of<event::PlanFinished<R>>) {
    using E = event::PlanFinished<R>;
    return std::tuple{as::value("ok", &E::ok)};
}

template <class R>
constexpr auto layout(Of<event::BufferAllocated<R>>) {
    using E = event::BufferAllocated<R>;
    return std::tuple{as::value("buffer", &E::buffer_id), as::sizes("chunk_sizes", &E::chunk_sizes),
                      as::value("previous_size", &E::previous_size), as::value("reallocated", &E::reallocated),
                      as::value("ok", &E::ok)};
}

template <class R>
constexpr auto layout(Of<event::TensorInitialised<R>>) {
    using E = event::TensorInitialised<R>;
    return std::tuple{as::tensor("tensor", &E::tensor), as::buffer("buffer", &E::buffer_id), as::address(&E::address),
                      as::value("address", &E::data)};
}

// Each field is written as what it is: a reference as what it refers to, a value as a value
// (checked on the allocator's references, whose types tell them apart); the node is the
// event's `node`.
template <class Kind, class How, class T>
constexpr bool written_as_what_it_is(const as::Field<How, Kind, T>& field) {
    using R = ObservedRefs;
    if constexpr (std::is_same_v<How, as::Node>) {
        if constexpr (requires { &Kind::node; }) {
            return field.member == &Kind::node;
        } else {
            return false;
        }
    } else if constexpr (std::is_same_v<How, as::Tensor>) {
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

// Every field of a kind laid out, each once and as what it is.
template <class Kind>
constexpr bool fields_are_laid_out() {
    constexpr auto fields = layout(Of<Kind>{});
    auto same = [](const auto& field, const auto& other) {
        if constexpr (std::is_same_v<decltype(field.member), decltype(other.member)>) {
            return field.member == other.member ? 1 : 0;
        } else {
            return 0;
        }
    };
    auto times_listed = [&](const auto& field) {
        return std::apply([&](const auto&... other) { return (same(field, other) + ... + 0); }, fields);
    };
    return std::tuple_size_v<decltype(fields)> == detail::field_count<Kind>() &&
           std::apply([&](const auto&... field) { return ((written_as_what_it_is(field) && times_listed(field) == 1) && ... && true); },
                      fields);
}
template <class... Kinds>
constexpr bool lays_out_every_kind(const std::variant<Kinds...>*) {
    return (fields_are_laid_out<Kinds>() && ...);
}
static_assert(lays_out_every_kind(static_cast<const ObservedEvent*>(nullptr)),
              "each event's layout() lists every field once, with an as:: that fits its type");

// One JSON object written straight into a string, field by field. The events of a
// 123k-node trace are 860,000 objects: building each as a nlohmann document first, then
// dumping it, took two thirds of `trace --json`.
class ObjectWriter {
public:
    explicit ObjectWriter(std::string& out) : out_(out) { out_ += '{'; }
    ObjectWriter(const ObjectWriter&) = delete;
    ObjectWriter& operator=(const ObjectWriter&) = delete;
    ~ObjectWriter() { out_ += '}'; }

    template <typename Value>
    ObjectWriter& operator()(std::string_view key, const Value& value) {
        write_key(key);
        write(out_, value);
        return *this;
    }
    // A nested object or array: `fill` writes its contents.
    template <typename Fill>
    ObjectWriter& object(std::string_view key, Fill fill) {
        write_key(key);
        ObjectWriter inner(out_);
        fill(inner);
        return *this;
    }
    template <typename Range, typename WriteOne>
    ObjectWriter& array(std::string_view key, const Range& items, WriteOne write_one) {
        write_key(key);
        out_ += '[';
        bool first = true;
        for (const auto& item : items) {
            if (!std::exchange(first, false)) {
                out_ += ',';
            }
            write_one(out_, item);
        }
        out_ += ']';
        return *this;
    }

    // ASCII only, as every --json output is: what is not printable ASCII is a \\u escape
    // (nlohmann's, with ensure_ascii), so the text passes the terminal's escaping unchanged and
    // parses back to the exact name. Most strings need no escape at all and are copied as
    // they are.
    static void write(std::string& out, std::string_view text) {
        const bool plain = is_printable_ascii(text) && text.find('"') == std::string_view::npos &&
                           text.find('\\') == std::string_view::npos;
        if (plain) {
            out += '"';
            out += text;
            out += '"';
        } else {
            // Bytes that are not UTF-8 (a name made from a file's name) become U+FFFD, as in
            // every --json report (cli/json_output.hpp), rather than an exception.
            out += nlohmann::json(text).dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
        }
    }
    static void write(std::string& out, const std::string& text) { write(out, std::string_view(text)); }
    static void write(std::string& out, const char* text) { write(out, std::string_view(text)); }
    static void write(std::string& out, bool value) { out += value ? "true" : "false"; }
    static void write(std::string& out, std::nullptr_t) { out += "null"; }
    template <std::integral Number>
    static void write(std::string& out, Number value) {
        std::array<char, 24> digits{};
        const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
        out.append(digits.data(), end);
    }

private:
    void write_key(std::string_view key) {
        if (!std::exchange(first_, false)) {
            out_ += ',';
        }
        write(out_, key);
        out_ += ':';
    }

    std::string& out_;
    bool first_ = true;
};

void block_fields(ObjectWriter& w, const FreeBlock& block) { w("offset", block.offset)("size", block.size); }

void free_fields(ObjectWriter& w, const FreeDecision& decision) {
    w("chunk", decision.address.chunk)("offset", decision.address.offset)("size", decision.size)
        ("merge", value_name(decision.merge))("block", decision.block)
        .object("result", [&](ObjectWriter& result) { block_fields(result, decision.result); });
}

// The fields of each event, in the order its layout lists them, each written as it says (as::);
// tensors by name. The node an event is about is written once, with the fields every event
// has.
class Fields {
public:
    Fields(const Trace& trace, ObjectWriter& w) : trace_(trace), w_(w) {}

    template <class Kind>
    void operator()(const Kind& e) const {
        std::apply([&](const auto&... field) { (write(field, e.*field.member), ...); }, layout(Of<Kind>{}));
    }

private:
    template <class Field, class Value>
    void write(const Field& field, const Value& value) const {
        using How = typename Field::how;
        if constexpr (std::is_same_v<How, as::Value>) {
            if constexpr (std::is_enum_v<Value>) {
                w_(field.key, value_name(value));
            } else {
                w_(field.key, value);
            }
        } else if constexpr (std::is_same_v<How, as::Tensor>) {
            name(field.key, value);
        } else if constexpr (std::is_same_v<How, as::Buffer>) {
            value >= 0 ? w_(field.key, value) : w_(field.key, nullptr);
        } else if constexpr (std::is_same_v<How, as::Address>) {
            address(value);
        } else if constexpr (std::is_same_v<How, as::Taken>) {
            taken(trace_.blocks_taken.at(value));
        } else if constexpr (std::is_same_v<How, as::Freed>) {
            w_.object(field.key, [&](ObjectWriter& free) { free_fields(free, trace_.blocks_freed.at(value)); });
        } else if constexpr (std::is_same_v<How, as::Sizes>) {
            w_.array(field.key, std::span(trace_.chunk_size_pool).subspan(value.first, value.count),
                     [](std::string& out, std::size_t size) { ObjectWriter::write(out, size); });
        } else {
            static_assert(std::is_same_v<How, as::Node> || std::is_same_v<How, as::Unwritten>, "a way of writing a field");
        }
    }

    void name(std::string_view key, TensorId id) const {
        id == kNoTensor ? w_(key, nullptr) : w_(key, trace_.tensor(id).name);
    }

    void address(BufferAddress address) const {
        const bool placed = address != kInvalidAddress;
        (placed ? w_("chunk", address.chunk) : w_("chunk", nullptr));
        (placed ? w_("offset", address.offset) : w_("offset", nullptr));
    }

    // The allocation decision's fields, inline, and the candidate blocks it looked at.
    void taken(const BlockTaken& t) const {
        const auto candidates = std::span(trace_.candidate_pool).subspan(t.candidates.first, t.candidates.count);
        w_("size", t.size)("chunk", t.address.chunk)("offset", t.address.offset)("choice", value_name(t.choice))("block", t.block)
            .object("block_before", [&](ObjectWriter& block) { block_fields(block, t.block_before); })
            ("block_consumed", t.block_consumed)("reuse_factor", t.reuse_factor)
            ("high_water_before", t.high_water_before)("high_water_after", t.high_water_after)
            .array("candidates", candidates, [](std::string& out, const BlockCandidate& c) {
                ObjectWriter candidate(out);
                candidate("chunk", c.chunk)("block", c.block)("offset", c.free_block.offset)("size", c.free_block.size)
                    ("tail", c.is_tail)("fits", c.fits)("reuse_factor", c.reuse_factor);
            });
    }

    const Trace& trace_;
    ObjectWriter& w_;
};

// The node written with the fields every event has: the event's own node where its kind
// names one (an in-place rejection met while counting names its node, though the event
// belongs to no node's step yet), else the node whose step the event is in.
TensorId node_named(const TraceEvent& event) {
    return std::visit([&](const auto& e) { return event::node_of(e, event.node); }, event.data);
}

} // namespace

std::string event_to_json(const Trace& trace, std::size_t index, const std::string& explanation) {
    const TraceEvent& event = trace.events.at(index);
    std::string out;
    out.reserve(256 + explanation.size());
    {
        ObjectWriter w(out);
        w("event", index + 1)("kind", kind_name(kind_of(event)))("stage", stage_name(event.stage));
        const TensorId node = node_named(event);
        node == kNoTensor ? w("node", nullptr) : w("node", trace.tensor(node).name);
        w.array("tensors", touched_tensors(event),
                [&](std::string& text, TensorId id) { ObjectWriter::write(text, trace.tensor(id).name); });
        w("explanation", explanation);
        std::visit(Fields(trace, w), event.data);
    }
    return out;
}

std::string trace_header_json(const Trace& trace) {
    json buffers = json::array();
    for (std::size_t id = 0; id < trace.buffers.size(); ++id) {
        const TraceBuffer& buffer = trace.buffers[id];
        buffers.push_back({{"id", id},
                           {"type", buffer.type_name},
                           {"alignment", buffer.alignment},
                           {"max_size", buffer.max_size == kSizeMax ? json(nullptr) : json(buffer.max_size)},
                           {"shares_buffer_of", buffer.canonical_id}});
    }
    json out = {{"format", "gallocsim-trace/2"},
                {"graph", trace.graph_name},
                {"events", trace.size()},
                {"tensors", trace.tensors.size()},
                {"leafs", trace.leaf_count},
                {"nodes", trace.node_count},
                {"buffers", std::move(buffers)},
                {"error", trace.error.empty() ? json(nullptr) : json(trace.error)}};
    return out.dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
}

} // namespace gallocsim
