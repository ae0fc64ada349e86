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
// is_visible_text tests plain ASCII eight bytes at a time: every byte value, at every position of
// a 24-byte text otherwise plain, must count exactly as it does alone. Alone a byte is visible when
// it is printable ASCII (0x20 to 0x7E), a tab or a newline; any other byte below 0x80 is a
// control character and any byte from 0x80 on is no UTF-8 by itself.
TEST(VisibleText, EveryByteAtEveryPlaceOfAWordIsJudgedAsAlone) {
    for (int value = 0; value < 256; ++value) {
        const bool visible = (value >= 0x20 && value < 0x7F) || value == '\t' || value == '\n';
        for (std::size_t at = 0; at < 24; ++at) {
            std::string text(24, 'a');
            text[at] = static_cast<char>(value);
            ASSERT_EQ(is_visible_text(text), visible) << "byte " << value << " at " << at;
        }
    }
}

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

// Emoji by East_Asian_Width (EastAsianWidth.txt): since Unicode 9.0 every character with
// Emoji_Presentation=Yes is W, two columns, wherever its block is. Before, only U+1F300-1F64F
// and U+1F900-1F9FF were wide, so most of these took one column and `plan` misaligned.
TEST(DisplayWidth, EmojiAreTwoColumnsWhereverTheirBlock) {
    EXPECT_EQ(display_width("\xf0\x9f\x9a\x80"), 2u);  // 🚀 U+1F680 ROCKET: 1F680..1F6C5;W
    EXPECT_EQ(display_width("\xe2\x9c\x85"), 2u);      // ✅ U+2705 WHITE HEAVY CHECK MARK: 2705;W
    EXPECT_EQ(display_width("\xe2\x9a\xa1"), 2u);      // ⚡ U+26A1 HIGH VOLTAGE SIGN: 26A1;W
    EXPECT_EQ(display_width("\xe2\x8c\x9a"), 2u);      // ⌚ U+231A WATCH: 231A..231B;W
    EXPECT_EQ(display_width("\xf0\x9f\x99\x82"), 2u);  // 🙂 U+1F642, wide before too
    EXPECT_EQ(display_width("\xf0\x9f\xa5\xb0"), 2u);  // 🥰 U+1F970: 1F90C..1F9FF;W
    EXPECT_EQ(display_width("\xf0\x9f\xab\x80"), 2u);  // 🫀 U+1FAC0 ANATOMICAL HEART (Unicode 13): W
    // "go🚀✅": 1 + 1 + 2 + 2 columns.
    EXPECT_EQ(display_width("go\xf0\x9f\x9a\x80\xe2\x9c\x85"), 6u);
    // A character whose default presentation is text stays one column (2764;N), and the
    // variation selector after it takes none, as wcwidth counts it.
    EXPECT_EQ(display_width("\xe2\x9d\xa4\xef\xb8\x8f"), 1u);  // ❤ U+2764 + VS16 U+FE0F
}

// East Asian Wide and Fullwidth (W and F) are two columns, Ambiguous (A) one: the tables
// are for terminals that are not set to a CJK legacy width.
TEST(DisplayWidth, WideAndFullwidthAreTwoColumnsAmbiguousOne) {
    EXPECT_EQ(display_width("\xed\x95\x9c\xea\xb8\x80"), 4u);  // 한글 U+D55C U+AE00: AC00..D7A3;W
    EXPECT_EQ(display_width("\xe3\x81\x8b\xe3\x82\xab"), 4u);  // かカ U+304B U+30AB: W
    EXPECT_EQ(display_width("\xef\xbc\xa1"), 2u);              // Ａ U+FF21 FULLWIDTH A: F
    EXPECT_EQ(display_width("\xe3\x80\x80"), 2u);              // U+3000 IDEOGRAPHIC SPACE: F
    EXPECT_EQ(display_width("\xf0\xa0\x80\x80"), 2u);          // 𠀀 U+20000 (CJK Extension B): W
    EXPECT_EQ(display_width("\xc2\xb1\xce\xb1"), 2u);          // ± U+00B1 and α U+03B1: A, one each
    EXPECT_EQ(display_width("\xe2\x82\xac"), 1u);              // € U+20AC: A
}

// Characters drawn on the one before them take no column: nonspacing and enclosing marks
// (General_Category Mn, Me), format characters (Cf: zero-width space, joiners) and the
// medial vowels and final consonants of conjoining Hangul (Hangul_Syllable_Type V, T).
TEST(DisplayWidth, MarksJoinersAndSelectorsTakeNoColumn) {
    EXPECT_EQ(display_width("e\xcc\x81\xcc\xa3"), 1u);         // e + U+0301 + U+0323 (Mn)
    EXPECT_EQ(display_width("1\xe2\x83\xa3"), 1u);             // 1 + U+20E3 COMBINING ENCLOSING KEYCAP (Me)
    EXPECT_EQ(display_width("\xe0\xa4\x95\xe0\xa5\x8d"), 1u);  // U+0915 DEVANAGARI KA + U+094D VIRAMA (Mn)
    EXPECT_EQ(display_width("a\xe2\x80\x8b" "b"), 2u);         // U+200B ZERO WIDTH SPACE (Cf)
    EXPECT_EQ(display_width("a\xe2\x80\x8d" "b"), 2u);         // U+200D ZERO WIDTH JOINER (Cf)
    EXPECT_EQ(display_width("a\xef\xb8\x8e"), 1u);             // U+FE0E VARIATION SELECTOR-15 (Mn)
    EXPECT_EQ(display_width("a\xf3\xa0\x84\x80"), 1u);         // U+E0100 VARIATION SELECTOR-17 (Mn)
    // 👍 + U+1F3FD (a skin-tone modifier, itself W): two wide characters, as wcwidth counts them.
    EXPECT_EQ(display_width("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd"), 4u);
    // U+1100 (W, a leading consonant) + U+1161 (a medial vowel, V): one syllable, two columns.
    EXPECT_EQ(display_width("\xe1\x84\x80\xe1\x85\xa1"), 2u);
    // The soft hyphen U+00AD is Cf but shown as a hyphen by terminals: one column (as wcwidth).
    EXPECT_EQ(display_width("\xc2\xad"), 1u);
}

// padded and shortened count emoji as the terminal does: "🚀x" padded to 5 gets two spaces;
// three rockets (6 columns) cut at 4 keep one rocket (2) and the ellipsis (1), never half of one.
TEST(DisplayWidth, PaddingAndShorteningCountEmojiAsTwo) {
    EXPECT_EQ(padded("\xf0\x9f\x9a\x80x", 5), "\xf0\x9f\x9a\x80x  ");
    EXPECT_EQ(shortened("\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80", 4), "\xf0\x9f\x9a\x80\xe2\x80\xa6");
    EXPECT_EQ(shortened("\xe2\x9c\x85\xe2\x9c\x85", 4), "\xe2\x9c\x85\xe2\x9c\x85");  // ✅✅ is 4: whole
}

} // namespace
} // namespace gallocsim
