#pragma once
// Reading a JSON document with validation that says where: every error names the source
// (a file, or a file and line), the JSON path, the tensor where there is one, and the
// problem. Graph files, capture sessions and policy files share it.
//
// simdjson reads (a 44 MB graph of 122,884 nodes in a tenth of a second, where nlohmann's DOM
// took more than one); nlohmann, which names the line and column where a text stops being
// JSON, words the refusals (json_reader.cpp). Writing JSON stays with nlohmann.

#include "simulator/model/graph_file.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace gallocsim::json_input {

using Value = simdjson::dom::element;
using Array = simdjson::dom::array;
using Object = simdjson::dom::object;

inline std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// A JSON path such as $.tensors[3].ne[0], made into text only when an error names it: each
// level refers to the level it extends, so reading a valid file builds no strings (on a
// 123k-node graph the eager strings were a fifth of the reading). A level must not outlive
// the one it extends: levels are extended only from named objects (extending a temporary is
// deleted), and a key's text must outlive the level too.
class Path {
public:
    Path(const char* root) : key_(root) {}        // NOLINT(google-explicit-constructor): "$.format" is a path
    Path(std::string_view root) : key_(root) {}   // NOLINT(google-explicit-constructor)

    friend Path dot(const Path& parent, std::string_view key) { return Path(&parent, key, kNoIndex); }
    friend Path at(const Path& parent, std::size_t index) { return Path(&parent, {}, index); }
    friend Path at(const Path& parent, std::string_view key, std::size_t index) { return Path(&parent, key, index); }
    // A root with an index ($.nodes[4]) needs no level above it.
    friend Path at(const char* root, std::size_t index) { return Path(nullptr, root, index); }

    std::string text() const {
        std::string out = parent_ != nullptr ? parent_->text() : std::string();
        if (!key_.empty()) {
            out += (parent_ != nullptr ? "." : "") + std::string(key_);
        }
        if (index_ != kNoIndex) {
            out += "[" + std::to_string(index_) + "]";
        }
        return out;
    }

private:
    static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
    Path(const Path* parent, std::string_view key, std::size_t index) : parent_(parent), key_(key), index_(index) {}

    const Path* parent_ = nullptr;
    std::string_view key_;
    std::size_t index_ = kNoIndex;
};
Path at(const char* root, std::size_t index);
Path dot(Path&& parent, std::string_view key) = delete;
Path at(Path&& parent, std::size_t index) = delete;
Path at(Path&& parent, std::string_view key, std::size_t index) = delete;

// Where a document sits: its source (a file, or a file and line) and the JSON path of the
// document in it: "$" for a file that is the document, "$.graph" for a graph inside a GUI
// session. Errors name the place as one path from the source's root: "sess.json:
// $.graph.tensors[0].ne", never two glued ("sess.json: $.graph: $.tensors[0].ne").
struct Origin {
    Origin(std::string_view source_, std::string_view root_ = "$") : source(source_), root(root_) {}  // NOLINT: a source is an origin

    std::string_view source;
    std::string_view root;

    // `path` (which starts at the document's "$") as a path from the source's root.
    std::string where(std::string_view path) const {
        std::string text(path);
        if (root != "$" && text.starts_with('$')) {
            text.replace(0, 1, root);
        }
        return text;
    }
    // "FILE: $.path", the start of every message about the place.
    std::string place(std::string_view path) const { return std::string(source) + ": " + where(path); }
};

// Parses JSON texts, one at a time: a document's values stay readable until the next parse
// with the same parser (a capture session parses its lines one after another with one).
class DocumentParser {
public:
    // The document's root, or nullopt when the text is no JSON (refusal_text says why).
    // Throws std::bad_alloc when the document does not fit in memory.
    std::optional<Value> try_parse(std::string_view text);

    // The document's root. Throws GraphFileError naming `origin` and where the text stops
    // being JSON, and std::bad_alloc when the document does not fit in memory.
    Value parse(std::string_view text, const Origin& origin);

    // simdjson's words for the last refusal: what refusal_text says where nlohmann takes the
    // text (a document nested deeper than simdjson's 1024 levels).
    std::string_view last_refusal() const { return simdjson::error_message(last_error_); }

private:
    simdjson::dom::parser parser_;
    simdjson::error_code last_error_ = simdjson::SUCCESS;
};

// Why `text` is no JSON, in nlohmann's words without its "[json.exception.parse_error.101] "
// prefix, keeping the place it names ("parse error at line 3, column 7: syntax error while
// parsing value - ..."). With `one_line`, the text is one line of a JSON-lines file whose line
// the caller names, so only the column is said ("parse error at column 7: ..."). `fallback` is
// said where nlohmann takes the text.
std::string refusal_text(std::string_view text, std::string_view fallback, bool one_line = false);

// Reads one document, remembering where it is so every error can say so.
class Reader {
public:
    explicit Reader(std::string_view source) : origin_(source) {}
    explicit Reader(const Origin& origin) : origin_(origin) {}

    [[noreturn]] void fail(const Path& path, const std::string& problem, std::string_view tensor = {}) const {
        std::string message = origin_.place(path.text());
        if (!tensor.empty()) {
            message += " (tensor " + in_quotes(tensor) + ")";
        }
        throw GraphFileError(message + ": " + problem);
    }

    // A field of an object, if it is there (null included).
    static std::optional<Value> find(Object object, std::string_view key) {
        Value value;
        if (object.at_key(key).get(value) != simdjson::SUCCESS) {
            return std::nullopt;
        }
        return value;
    }
    // A field of an object that is there and not null.
    static std::optional<Value> find_set(Object object, std::string_view key) {
        auto value = find(object, key);
        return value && !value->is_null() ? value : std::nullopt;
    }

    Value member(Object object, const Path& path, const char* key, std::string_view tensor = {}) const {
        auto value = find(object, key);
        if (!value) {
            fail(path, std::string("missing required field \"") + key + "\"", tensor);
        }
        return *value;
    }

    std::string string(Value value, const Path& path, std::string_view tensor = {}) const {
        return std::string(text(value, path, tensor));
    }

    // The string's characters, valid while the document is.
    std::string_view text(Value value, const Path& path, std::string_view tensor = {}) const {
        std::string_view chars;
        if (value.get_string().get(chars) != simdjson::SUCCESS) {
            fail(path, "must be a string, got " + describe(value), tensor);
        }
        return chars;
    }

    bool boolean(Value value, const Path& path, std::string_view tensor = {}) const {
        bool flag = false;
        if (value.get_bool().get(flag) != simdjson::SUCCESS) {
            fail(path, "must be true or false, got " + describe(value), tensor);
        }
        return flag;
    }

    Array array(Value value, const Path& path, std::string_view tensor = {}) const {
        Array list;
        if (value.get_array().get(list) != simdjson::SUCCESS) {
            fail(path, "must be an array, got " + describe(value), tensor);
        }
        return list;
    }

    Object object(Value value, const Path& path, std::string_view tensor = {}) const {
        Object members;
        if (value.get_object().get(members) != simdjson::SUCCESS) {
            fail(path, "must be an object, got " + describe(value), tensor);
        }
        return members;
    }

    std::uint64_t unsigned_integer(Value value, const Path& path, std::string_view tensor = {}) const {
        switch (value.type()) {
        case simdjson::dom::element_type::UINT64: return value.get_uint64().value_unsafe();
        case simdjson::dom::element_type::INT64: {
            const std::int64_t number = value.get_int64().value_unsafe();
            if (number < 0) {
                fail(path, "must not be negative, got " + std::to_string(number), tensor);
            }
            return static_cast<std::uint64_t>(number);
        }
        default:
            if (whole_beyond_64_bits(value)) {
                fail(path, value.get_double().value_unsafe() > 0
                               ? "must be at most 2^64 - 1 (18446744073709551615), got a number above it"
                               : "must not be negative, got a number below -2^63",
                     tensor);
            }
            fail(path, "must be a non-negative integer, got " + describe(value), tensor);
        }
    }

    std::int64_t signed_integer(Value value, const Path& path, std::string_view tensor = {}) const {
        switch (value.type()) {
        case simdjson::dom::element_type::INT64: return value.get_int64().value_unsafe();
        case simdjson::dom::element_type::UINT64:  // simdjson keeps only numbers past 2^63 - 1 unsigned
            fail(path, "is too large: " + std::to_string(value.get_uint64().value_unsafe()), tensor);
        default:
            if (whole_beyond_64_bits(value)) {
                fail(path, value.get_double().value_unsafe() > 0 ? "is too large: a number above 2^64 - 1"
                                                                 : "is too small: a number below -2^63",
                     tensor);
            }
            fail(path, "must be an integer, got " + describe(value), tensor);
        }
    }

    int index(Value value, const Path& path, int count, const char* what) const {
        const std::uint64_t id = unsigned_integer(value, path);
        if (id >= static_cast<std::uint64_t>(count)) {
            fail(path, std::string(what) + " " + std::to_string(id) + " does not exist (there are " +
                           std::to_string(count) + ")");
        }
        return static_cast<int>(id);
    }

    // Every field is one of `keys`, and none is given twice (JSON leaves a repeated field's
    // meaning open; which of the two a reader took would be a guess).
    void only_keys(Object object, const Path& path, std::initializer_list<std::string_view> keys,
                   std::string_view tensor = {}) const {
        std::uint64_t seen = 0;  // bit i: keys[i] was read
        for (const auto field : object) {
            const auto known = std::ranges::find(keys, field.key);
            if (known == keys.end()) {
                fail(path, "unknown field \"" + std::string(field.key) + "\"", tensor);
            }
            const std::uint64_t bit = std::uint64_t{1} << (known - keys.begin());
            if ((seen & bit) != 0) {
                fail(path, "field \"" + std::string(field.key) + "\" given twice", tensor);
            }
            seen |= bit;
        }
    }

    // An array's length. simdjson's count stops at 2^24 - 1; a longer array (a hostile file
    // can hold one) is counted one by one.
    static std::size_t count(Array list) {
        constexpr std::size_t kSaturated = 0xFFFFFF;
        std::size_t size = list.size();
        if (size >= kSaturated) {
            size = 0;
            for ([[maybe_unused]] const Value item : list) {
                ++size;
            }
        }
        return size;
    }

    // An integer written past 64 bits (18446744073709551616, 2^64) is read as the nearest
    // double (1.8446744073709552e+19): it is a whole number, only too large (or too small)
    // for the field, and must not be called "not an integer" nor echoed as that double.
    static bool whole_beyond_64_bits(Value value) {
        double number = 0;
        if (value.type() != simdjson::dom::element_type::DOUBLE || value.get_double().get(number) != simdjson::SUCCESS) {
            return false;
        }
        constexpr double k2To63 = 9223372036854775808.0;
        return std::isfinite(number) && number == std::floor(number) && (number >= 2 * k2To63 || number <= -k2To63);
    }

    static std::string describe(Value value);

private:
    Origin origin_;
};

} // namespace gallocsim::json_input
