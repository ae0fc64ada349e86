#include "simulator/model/json_reader.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <new>

namespace gallocsim::json_input {

namespace {

bool is_number_start(char c) { return c == '-' || (c >= '0' && c <= '9'); }
bool is_number_char(char c) { return is_number_start(c) || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// Whether a JSON number written without fraction or exponent lies outside every 64-bit integer.
bool integer_past_64_bits(std::string_view token) {
    if (token.find_first_of(".eE") != std::string_view::npos) {
        return false;
    }
    const char* end = token.data() + token.size();
    if (token.starts_with('-')) {
        std::int64_t value = 0;
        return std::from_chars(token.data(), end, value).ec == std::errc::result_out_of_range;
    }
    std::uint64_t value = 0;
    return std::from_chars(token.data(), end, value).ec == std::errc::result_out_of_range;
}

// The text with every integer written past 64 bits made a fraction ("18446744073709551616" ->
// "18446744073709551616.0"), or nullopt if it has none. simdjson refuses such an integer;
// read as the nearest double, the reader can say which field it does not fit, as it says for
// 1.8446744073709552e19 (nlohmann, which read graph files before, did the same).
std::optional<std::string> widen_long_integers(std::string_view text) {
    std::string widened;
    bool changed = false;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (in_string) {
            in_string = c != '"';
            const std::size_t step = c == '\\' ? 2 : 1;  // an escaped quote does not end the string
            widened.append(text.substr(i, step));
            i += step;
            continue;
        }
        if (c == '"' || !is_number_start(c)) {
            in_string = c == '"';
            widened.push_back(c);
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && is_number_char(text[end])) {
            ++end;
        }
        const std::string_view token = text.substr(i, end - i);
        widened.append(token);
        if (integer_past_64_bits(token)) {
            widened.append(".0");
            changed = true;
        }
        i = end;
    }
    return changed ? std::optional(std::move(widened)) : std::nullopt;
}

} // namespace

std::optional<Value> DocumentParser::try_parse(std::string_view text) {
    Value root;
    last_error_ = parser_.parse(text.data(), text.size()).get(root);
    if (last_error_ == simdjson::NUMBER_ERROR) {
        if (const auto widened = widen_long_integers(text)) {
            last_error_ = parser_.parse(*widened).get(root);
        }
    }
    if (last_error_ == simdjson::MEMALLOC) {
        throw std::bad_alloc();
    }
    return last_error_ == simdjson::SUCCESS ? std::optional(root) : std::nullopt;
}

Value DocumentParser::parse(std::string_view text, const Origin& origin) {
    const std::string source = origin.root == "$" ? std::string(origin.source) : origin.place("$");
    // A NUL byte is no JSON anywhere; a parser that reads it as the end of the text would say
    // "unexpected end of input" at the place of the NUL, which misleads about a file of zeros.
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        throw GraphFileError(source + ": a NUL byte at offset " + std::to_string(nul) + ": not a JSON text (a binary file?)");
    }
    // A byte order mark is what some Windows editors put first; JSON has none (RFC 8259, 8.1), and
    // the parser's own words for it are about commas.
    if (text.starts_with("\xEF\xBB\xBF")) {
        throw GraphFileError(source + ": starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not "
                                      "allow: save the file as UTF-8 without it");
    }
    if (auto root = try_parse(text)) {
        return *root;
    }
    throw GraphFileError(source + ": invalid JSON: " + refusal_text(text, last_refusal()));
}

std::string refusal_text(std::string_view text, std::string_view fallback, bool one_line) {
    try {
        [[maybe_unused]] const auto document = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
        // Errors parsing throws are a syntax error (parse_error) or a number too large for a
        // double (out_of_range 406); the prefix names nlohmann's exception, not the problem.
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
    return std::string(fallback);
}

std::string Reader::describe(Value value) {
    switch (value.type()) {
    case simdjson::dom::element_type::NULL_VALUE: return "null";
    case simdjson::dom::element_type::BOOL: return "a boolean";
    case simdjson::dom::element_type::STRING: return "the string " + simdjson::minify(value);
    case simdjson::dom::element_type::ARRAY: return "an array";
    case simdjson::dom::element_type::OBJECT: return "an object";
    default: return "the number " + simdjson::minify(value);
    }
}

} // namespace gallocsim::json_input
