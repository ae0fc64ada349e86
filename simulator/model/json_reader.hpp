#pragma once
// Reading a JSON document with validation that says where: every error names the source
// (a file, or a file and line), the JSON path, the tensor where there is one, and the
// problem. Graph files and capture sessions share it.

#include "simulator/model/graph_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

namespace gallocsim::json_input {

using nlohmann::json;

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

// nlohmann's message for a text it refused, worded for a user: without its
// "[json.exception.parse_error.101] " prefix, keeping the place it names ("parse error at line
// 3, column 7: syntax error while parsing value - ..."). The errors parsing throws are a
// syntax error (parse_error) or a number too large for a double (out_of_range 406). With
// `one_line`, the text is one line of a JSON-lines file whose line the caller names, so only
// the column is said ("parse error at column 7: ..."), not nlohmann's "line 1".
inline std::string json_error_text(const json::exception& error, bool one_line = false) {
    std::string what = error.what();
    if (const auto prefix_end = what.find("] "); what.starts_with("[json.exception.") && prefix_end != std::string::npos) {
        what.erase(0, prefix_end + 2);
    }
    if (constexpr std::string_view first_line = "at line 1, column "; one_line) {
        if (const auto at = what.find(first_line); at != std::string::npos) {
            what.replace(at, first_line.size(), "at column ");
        }
    }
    return what;
}

// Parses one whole document. Throws GraphFileError naming `origin` and where the text stops
// being JSON.
inline json parse_document(std::string_view text, const Origin& origin) {
    const std::string source = origin.root == "$" ? std::string(origin.source) : origin.place("$");
    // A NUL byte is no JSON anywhere; nlohmann reads it as the end of the text and would say
    // "unexpected end of input" at the place of the NUL, which misleads about a file of zeros.
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        throw GraphFileError(std::string(source) + ": a NUL byte at offset " + std::to_string(nul) +
                             ": not a JSON text (a binary file?)");
    }
    try {
        return json::parse(text);
    } catch (const json::exception& error) {
        throw GraphFileError(source + ": invalid JSON: " + json_error_text(error));
    }
}

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

    const json& member(const json& object, const Path& path, const char* key, std::string_view tensor = {}) const {
        auto it = object.find(key);
        if (it == object.end()) {
            fail(path, std::string("missing required field \"") + key + "\"", tensor);
        }
        return *it;
    }

    std::string string(const json& value, const Path& path, std::string_view tensor = {}) const {
        if (!value.is_string()) {
            fail(path, "must be a string, got " + describe(value), tensor);
        }
        return value.get<std::string>();
    }

    bool boolean(const json& value, const Path& path, std::string_view tensor = {}) const {
        if (!value.is_boolean()) {
            fail(path, "must be true or false, got " + describe(value), tensor);
        }
        return value.get<bool>();
    }

    const json& array(const json& value, const Path& path, std::string_view tensor = {}) const {
        if (!value.is_array()) {
            fail(path, "must be an array, got " + describe(value), tensor);
        }
        return value;
    }

    const json& object(const json& value, const Path& path, std::string_view tensor = {}) const {
        if (!value.is_object()) {
            fail(path, "must be an object, got " + describe(value), tensor);
        }
        return value;
    }

    std::uint64_t unsigned_integer(const json& value, const Path& path, std::string_view tensor = {}) const {
        if (value.is_number_unsigned()) {
            return value.get<std::uint64_t>();
        }
        if (value.is_number_integer()) {
            fail(path, "must not be negative, got " + value.dump(), tensor);
        }
        if (whole_beyond_64_bits(value)) {
            fail(path, value.get<double>() > 0 ? "must be at most 2^64 - 1 (18446744073709551615), got a number above it"
                                               : "must not be negative, got a number below -2^63",
                 tensor);
        }
        fail(path, "must be a non-negative integer, got " + describe(value), tensor);
    }

    std::int64_t signed_integer(const json& value, const Path& path, std::string_view tensor = {}) const {
        if (value.is_number_unsigned()) {
            if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                fail(path, "is too large: " + value.dump(), tensor);
            }
            return static_cast<std::int64_t>(value.get<std::uint64_t>());
        }
        if (value.is_number_integer()) {
            return value.get<std::int64_t>();
        }
        if (whole_beyond_64_bits(value)) {
            fail(path, value.get<double>() > 0 ? "is too large: a number above 2^64 - 1" : "is too small: a number below -2^63",
                 tensor);
        }
        fail(path, "must be an integer, got " + describe(value), tensor);
    }

    int index(const json& value, const Path& path, int count, const char* what) const {
        const std::uint64_t id = unsigned_integer(value, path);
        if (id >= static_cast<std::uint64_t>(count)) {
            fail(path, std::string(what) + " " + std::to_string(id) + " does not exist (there are " +
                           std::to_string(count) + ")");
        }
        return static_cast<int>(id);
    }

    void only_keys(const json& object, const Path& path, std::initializer_list<std::string_view> keys,
                   std::string_view tensor = {}) const {
        for (const auto& [key, value] : object.items()) {
            if (std::ranges::find(keys, key) == keys.end()) {
                fail(path, "unknown field \"" + key + "\"", tensor);
            }
        }
    }

    // An integer written past 64 bits (18446744073709551616, 2^64) is read by nlohmann as the
    // nearest double (1.8446744073709552e+19): it is a whole number, only too large (or too
    // small) for the field, and must not be called "not an integer" nor echoed as that double.
    static bool whole_beyond_64_bits(const json& value) {
        if (!value.is_number_float()) {
            return false;
        }
        const double number = value.get<double>();
        constexpr double k2To63 = 9223372036854775808.0;
        return std::isfinite(number) && number == std::floor(number) && (number >= 2 * k2To63 || number <= -k2To63);
    }

    static std::string describe(const json& value) {
        switch (value.type()) {
        case json::value_t::null: return "null";
        case json::value_t::boolean: return "a boolean";
        case json::value_t::string: return "the string " + value.dump();
        case json::value_t::array: return "an array";
        case json::value_t::object: return "an object";
        case json::value_t::number_float: return "the number " + value.dump();
        default: return "the number " + value.dump();
        }
    }

private:
    Origin origin_;
};


} // namespace gallocsim::json_input
