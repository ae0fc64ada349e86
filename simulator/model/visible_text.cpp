#include "simulator/model/visible_text.hpp"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace gallocsim {

namespace {

// One UTF-8 sequence: its code point and length, or length 0 when the bytes are no valid
// UTF-8 (overlong forms, surrogates and code points past U+10FFFF included).
struct Decoded {
    char32_t code_point = 0;
    std::size_t length = 0;
};

Decoded decode(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[at + i]); };
    const std::uint8_t first = byte(0);
    std::size_t length = 0;
    char32_t code_point = 0;
    char32_t minimum = 0;
    if (first < 0x80) {
        return {first, 1};
    } else if ((first & 0xE0) == 0xC0) {
        length = 2, code_point = first & 0x1Fu, minimum = 0x80;
    } else if ((first & 0xF0) == 0xE0) {
        length = 3, code_point = first & 0x0Fu, minimum = 0x800;
    } else if ((first & 0xF8) == 0xF0) {
        length = 4, code_point = first & 0x07u, minimum = 0x10000;
    } else {
        return {};
    }
    if (at + length > text.size()) {
        return {};
    }
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0) != 0x80) {
            return {};
        }
        code_point = (code_point << 6) | (byte(i) & 0x3Fu);
    }
    if (code_point < minimum || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
        return {};
    }
    return {code_point, length};
}

bool is_control(char32_t c) {
    return (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7F && c <= 0x9F);
}

bool is_bidi_or_bom(char32_t c) {
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0xFEFF;
}

std::string hex(const char* format, unsigned value) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

constexpr bool is_printable_byte(char c) {
    return c >= 0x20 && c < 0x7F;
}

// Printable, or the tab and newline visible_text leaves as they are.
constexpr bool is_plain_ascii(char c) {
    return is_printable_byte(c) || c == '\n' || c == '\t';
}

// Whether the 8 bytes from `at` are all printable ASCII (0x20 to 0x7E), tested as one word with
// the bit tricks of "Bit Twiddling Hacks" (hasless, haszero): nearly every byte a command prints
// is, and testing byte by byte was a seventh of `trace --json`. Tab and newline fail the test
// and are passed one byte at a time below.
constexpr std::size_t kWord = sizeof(std::uint64_t);
bool is_printable_ascii_word(const char* at) {
    std::uint64_t word = 0;
    std::memcpy(&word, at, kWord);
    constexpr std::uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    const std::uint64_t non_ascii = word & high;
    const std::uint64_t below_space = (word - ones * 0x20) & ~word & high;  // exact while no byte has its high bit
    const std::uint64_t del = word ^ (ones * 0x7F);
    const std::uint64_t is_del = (del - ones) & ~del & high;
    return (non_ascii | below_space | is_del) == 0;
}

} // namespace

bool is_printable_ascii(std::string_view text) {
    std::size_t at = 0;
    for (; at + kWord <= text.size(); at += kWord) {
        if (!is_printable_ascii_word(text.data() + at)) {
            return false;
        }
    }
    return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(at), text.end(), is_printable_byte);
}

bool is_visible_text(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        if (at + kWord <= text.size() && is_printable_ascii_word(text.data() + at)) {
            at += kWord;
            continue;
        }
        // Printable ASCII, tab and newline are passed without decoding.
        if (is_plain_ascii(text[at])) {
            ++at;
            continue;
        }
        const Decoded d = decode(text, at);
        if (d.length == 0 || is_control(d.code_point) || is_bidi_or_bom(d.code_point)) {
            return false;
        }
        at += d.length;
    }
    return true;
}

std::string visible_text(std::string_view text) {
    if (is_visible_text(text)) {
        return std::string(text);
    }
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t at = 0; at < text.size();) {
        const Decoded d = decode(text, at);
        if (d.length == 0) {
            out += hex("\\x%02x", static_cast<std::uint8_t>(text[at]));
            at += 1;
            continue;
        }
        if (is_control(d.code_point)) {
            out += hex("\\x%02x", static_cast<unsigned>(d.code_point));
        } else if (is_bidi_or_bom(d.code_point)) {
            out += hex("\\u%04X", static_cast<unsigned>(d.code_point));
        } else {
            out += text.substr(at, d.length);
        }
        at += d.length;
    }
    return out;
}

namespace {

// Decodes the code point starting at text[i] (visible_text's output is valid UTF-8) and
// moves i past it.
char32_t next_code_point(std::string_view text, std::size_t& i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const int length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    char32_t point = length == 1 ? byte : byte & (0x3F >> (length - 1));
    for (int k = 1; k < length && i + static_cast<std::size_t>(k) < text.size(); ++k) {
        point = (point << 6) | (static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]) & 0x3F);
    }
    i += static_cast<std::size_t>(length);
    return point;
}

// Columns by the Unicode Character Database as ICU carries it (ICU 72, Unicode 15.0, in
// Debian 12), the way wcwidth counts: East_Asian_Width W or F (CJK, Hangul syllables,
// fullwidth forms, and since Unicode 9.0 every emoji with Emoji_Presentation) take two;
// what is drawn on the character before takes none (nonspacing and enclosing marks, format
// characters such as zero-width spaces and joiners, variation selectors, conjoining Hangul
// vowels and final consonants); the rest, Ambiguous (A) included, one. A sequence counts
// as the sum of its characters (an emoji ZWJ sequence as each emoji), as wcwidth does.
int columns_of(char32_t point) {
    const auto c = static_cast<UChar32>(point);
    if (c == 0x00AD) {
        return 1;  // SOFT HYPHEN: Cf, but terminals show a hyphen
    }
    const auto category = static_cast<UCharCategory>(u_charType(c));
    const auto hangul = static_cast<UHangulSyllableType>(u_getIntPropertyValue(c, UCHAR_HANGUL_SYLLABLE_TYPE));
    if (category == U_NON_SPACING_MARK || category == U_ENCLOSING_MARK || category == U_FORMAT_CHAR ||
        hangul == U_HST_VOWEL_JAMO || hangul == U_HST_TRAILING_JAMO) {
        return 0;
    }
    const auto width = static_cast<UEastAsianWidth>(u_getIntPropertyValue(c, UCHAR_EAST_ASIAN_WIDTH));
    return width == U_EA_WIDE || width == U_EA_FULLWIDTH ? 2 : 1;
}

} // namespace

std::size_t display_width(std::string_view text) {
    if (is_printable_ascii(text)) {
        return text.size();
    }
    const std::string visible = visible_text(text);
    std::size_t width = 0;
    for (std::size_t i = 0; i < visible.size();) {
        width += static_cast<std::size_t>(columns_of(next_code_point(visible, i)));
    }
    return width;
}

std::string shortened(std::string_view text, std::size_t max_columns) {
    if (is_printable_ascii(text)) {
        return text.size() <= max_columns || max_columns == 0 ? std::string(text)
                                                              : std::string(text.substr(0, max_columns - 1)) + "\u2026";
    }
    std::string visible = visible_text(text);
    if (display_width(visible) <= max_columns || max_columns == 0) {
        return visible;
    }
    std::string cut;
    std::size_t width = 0;
    for (std::size_t i = 0; i < visible.size();) {
        const std::size_t start = i;
        const auto columns = static_cast<std::size_t>(columns_of(next_code_point(visible, i)));
        if (width + columns > max_columns - 1) {
            break;  // one column left for the ellipsis
        }
        width += columns;
        cut.append(visible, start, i - start);
    }
    return cut + "\u2026";
}

std::string padded(std::string_view text, std::size_t width) {
    std::string visible = visible_text(text);
    const std::size_t columns = display_width(text);
    if (columns < width) {
        visible.append(width - columns, ' ');
    }
    return visible;
}

} // namespace gallocsim
