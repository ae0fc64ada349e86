#include "simulator/trace/trace_json.hpp"

#include "simulator/model/visible_text.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <concepts>
#include <algorithm>
#include <span>
#include <type_traits>
#include <string_view>
#include <utility>

namespace gallocsim {
namespace {

using json = nlohmann::ordered_json;

std::string_view choice_name(BlockChoice choice) {
    switch (choice) {
    case BlockChoice::best_fit: return "best-fit";
    case BlockChoice::tail: return "tail";
    case BlockChoice::new_chunk: return "new-chunk";
    }
    return "?";
}

std::string_view merge_name(MergeKind merge) {
    switch (merge) {
    case MergeKind::none: return "none";
    case MergeKind::previous: return "previous";
    case MergeKind::next: return "next";
    case MergeKind::both: return "both";
    }
    return "?";
}

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
        ("merge", merge_name(decision.merge))("block", decision.block)
        .object("result", [&](ObjectWriter& result) { block_fields(result, decision.result); });
}

// The fields of each event, in the order it lists them, each written as it says (as::);
// tensors by name. The node an event is about is written once, with the fields every event
// has.
class Fields {
public:
    Fields(const Trace& trace, ObjectWriter& w) : trace_(trace), w_(w) {}

    template <class Kind>
    void operator()(const Kind& e) const {
        event::for_each_field<Kind>([&](const auto& field) { write(field, e.*field.member); });
    }

private:
    template <class Field, class Value>
    void write(const Field& field, const Value& value) const {
        using How = event::how_of<Field>;
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
        w_("size", t.size)("chunk", t.address.chunk)("offset", t.address.offset)("choice", choice_name(t.choice))("block", t.block)
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
