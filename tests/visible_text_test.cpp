// visible_text (model/visible_text.hpp): names from other people's files shown without
// letting their control characters act. Every expected string is written out by hand from
// the rule: C0/DEL/C1 as \xNN, bidi controls and the BOM as \uXXXX, bad UTF-8 bytes as \xNN.
#include "simulator/model/visible_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gallocsim {
namespace {

TEST(VisibleText, PrintableTextIsLeftAlone) {
    for (const std::string text : {"", "Kcur-0 (rope)", "tab\tand\nnewline", "ünïcödé 漢字 🙂"}) {
        EXPECT_TRUE(is_visible_text(text)) << text;
        EXPECT_EQ(visible_text(text), text);
    }
}

TEST(VisibleText, ControlCharactersBecomeHexEscapes) {
    EXPECT_EQ(visible_text("a\x07" "b"), "a\\x07b");       // BEL
    EXPECT_EQ(visible_text("\x1b[31mred"), "\\x1b[31mred");  // ESC starts a terminal colour
    EXPECT_EQ(visible_text("cr\r"), "cr\\x0d");
    EXPECT_EQ(visible_text("del\x7f"), "del\\x7f");
    EXPECT_EQ(visible_text("c1\xc2\x9b"), "c1\\x9b");  // U+009B, the one-byte CSI, as UTF-8
    EXPECT_FALSE(is_visible_text("a\x07"));
}

TEST(VisibleText, BidiControlsAndTheBomBecomeUnicodeEscapes) {
    EXPECT_EQ(visible_text("abc\xe2\x80\xae" "def"), "abc\\u202Edef");  // RIGHT-TO-LEFT OVERRIDE
    EXPECT_EQ(visible_text("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");  // LRI ... PDI
    EXPECT_EQ(visible_text("\xe2\x80\x8f"), "\\u200F");  // RIGHT-TO-LEFT MARK
    EXPECT_EQ(visible_text("\xef\xbb\xbfname"), "\\uFEFFname");
}

TEST(VisibleText, BytesThatAreNoUtf8BecomeHexEscapesOneByOne) {
    EXPECT_EQ(visible_text("a\xff" "b"), "a\\xffb");
    EXPECT_EQ(visible_text("\xc3"), "\\xc3");                  // a sequence cut short
    EXPECT_EQ(visible_text("\xc0\xaf"), "\\xc0\\xaf");         // overlong '/'
    EXPECT_EQ(visible_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate
    EXPECT_EQ(visible_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

// A name wider than the limit keeps limit - 1 columns and ends in "…" (U+2026, one column);
// a wide character that would cross the limit is left out whole, never split.
TEST(VisibleText, ShortenedCutsAtColumnsWithAnEllipsis) {
    EXPECT_EQ(shortened("abcdef", 6), "abcdef");
    EXPECT_EQ(shortened("abcdefg", 6), "abcde\xe2\x80\xa6");
    EXPECT_EQ(display_width(shortened(std::string(100000, 'x'), 48)), 48u);
    // 日本語 takes 6 columns: at 4, one wide character (2) and the ellipsis (1) fit, not two.
    EXPECT_EQ(shortened("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4), "\xe6\x97\xa5\xe2\x80\xa6");
    // Escapes count as what they show: "\x07" is four columns.
    EXPECT_EQ(shortened("a\x07" "bcdef", 6), "a\\x07\xe2\x80\xa6");
}

} // namespace
} // namespace gallocsim

namespace gallocsim {
namespace {

// Terminal columns, by hand: ASCII one each; "é" (U+00E9) one; CJK ideographs two each; a
// combining acute accent none; a bell shown as the four characters "\x07".
TEST(DisplayWidth, CountsTerminalColumnsNotBytes) {
    EXPECT_EQ(display_width("abc"), 3u);
    EXPECT_EQ(display_width("\xc3\xa9"), 1u);                  // é, 2 bytes
    EXPECT_EQ(display_width("\xe6\x97\xa5\xe6\x9c\xac"), 4u);  // 日本, 6 bytes
    EXPECT_EQ(display_width("e\xcc\x81"), 1u);                 // e + U+0301
    EXPECT_EQ(display_width("\x07"), 4u);                      // shown as \x07
    EXPECT_EQ(padded("\xe6\x97\xa5", 4), "\xe6\x97\xa5  ");    // 日 + 2 spaces
    EXPECT_EQ(padded("toolong", 3), "toolong");                // never cut
}

} // namespace
} // namespace gallocsim
