#pragma once
// Names come from other people's files and programs: a tensor name may hold a bell, an
// escape sequence, a right-to-left override (U+202E) or bytes that are no UTF-8. Shown as
// they are they ring the terminal, recolour it, reverse the rest of a line or break the XML
// of an SVG. visible_text() shows each such character as an escape instead, and leaves
// everything else (any printable UTF-8, tabs and newlines) as it is.

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace gallocsim {

// C0 controls but tab and newline, DEL and C1 controls as "\x07"; bidi controls (embeddings,
// overrides, isolates, marks: U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) and the
// byte-order mark as "\u202E"; a byte that does not begin or continue valid UTF-8 as "\xff".
std::string visible_text(std::string_view text);

// True when visible_text would change nothing (the common case: nothing to copy).
bool is_visible_text(std::string_view text);

// True when every byte is printable ASCII (0x20 to 0x7E), as nearly every tensor name is: such a
// text takes one column a byte and needs no escape, here or in JSON but for '"' and '\\'.
// Checked a word at a time.
bool is_printable_ascii(std::string_view text);

// The terminal columns visible_text(text) takes, as wcwidth counts them from Unicode's data
// (ICU): one per character, two for East Asian Wide and Fullwidth ones (CJK, emoji), none for
// combining marks, joiners and variation selectors, so that a column of names stays aligned
// whatever the names hold (std::setw counts bytes).
std::size_t display_width(std::string_view text);

// The text made visible, padded with spaces to `width` columns (never cut).
std::string padded(std::string_view text, std::size_t width);

// The text made visible and, when it takes more than `max_columns` columns, cut to that
// many with "…" as the last: a 100,000-character name does not widen every row of a table.
// (visible_text leaves its own escapes as they are, so the result can be padded again.)
std::string shortened(std::string_view text, std::size_t max_columns);

// The most columns a name gets in a table; --json writes every name whole.
inline constexpr std::size_t kNameColumns = 48;

// The columns a table gives its names: kNameColumns, or no limit when whole names are asked
// for (--full-names), so that shortened(name, name_columns(true)) is the name made visible.
inline constexpr std::size_t name_columns(bool full_names) {
    return full_names ? std::numeric_limits<std::size_t>::max() : kNameColumns;
}

} // namespace gallocsim
