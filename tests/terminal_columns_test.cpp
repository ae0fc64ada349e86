// Text tables in terminal columns (model/visible_text.hpp through the whole command line):
// names with emoji keep the columns after them aligned, and names longer than a column are
// shortened with an ellipsis unless --full-names asks for them whole.
#include "simulator/cli/command_line.hpp"
#include "simulator/cli/errors.hpp"
#include "tests/command_line_runner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using testing_support::Outcome;
using testing_support::run;

// "🚀launch✅" is 2 + 6 + 2 = 10 columns (U+1F680 and U+2705 are East_Asian_Width W), "⚡"
// (U+26A1, W) 2, "x" 1: the name column is 10 wide and "kind" starts 2 columns after it on
// every line. Counted with the old table (🚀, ✅ and ⚡ one column each), the column was 8
// wide and the emoji rows stuck out by one or two.
TEST(TerminalColumns, PlanColumnsStayAlignedWithEmojiNames) {
    const std::string rocket = "\xf0\x9f\x9a\x80", check = "\xe2\x9c\x85", bolt = "\xe2\x9a\xa1";
    const std::string file = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
      "tensors": [{"name": ")" + rocket + "launch" + check + R"(", "type": "f32", "ne": [4], "flags": ["input"]},
                  {"name": ")" + bolt + R"(", "type": "f32", "ne": [4], "op": "SCALE", "src": [")" + rocket + "launch" + check + R"("]},
                  {"name": "x", "type": "f32", "ne": [4], "op": "SCALE", "src": [")" + bolt + R"("], "flags": ["output"]}],
      "leafs": [")" + rocket + "launch" + check + R"("], "nodes": [")" + bolt + R"(", "x"]})";
    const Outcome table = run({"plan", "-"}, file);
    ASSERT_EQ(table.code, kDone) << table.err;
    EXPECT_THAT(table.out, HasSubstr("\ntensor" + std::string(4 + 2, ' ') + "kind"));  // 6 columns + 4 of padding + 2
    EXPECT_THAT(table.out, HasSubstr("\n" + rocket + "launch" + check + "  leaf"));   // 10 columns + 2
    EXPECT_THAT(table.out, HasSubstr("\n" + bolt + std::string(8 + 2, ' ') + "node"));  // 2 columns + 8 + 2
    EXPECT_THAT(table.out, HasSubstr("\nx" + std::string(9 + 2, ' ') + "node"));        // 1 column + 9 + 2
}

// A graph whose first leaf has a 70-character name: "b" (4 bytes of f32 at alignment 32) at
// offset 0 and the long one at 32, each 32 bytes, in one 64-byte buffer.
const std::string kLongName = "blk.0.attn_output.weight-" + std::string(45, 'x');  // 25 + 45 = 70 columns

std::string write_long_named_graph(const std::string& file_name) {
    const auto path = std::filesystem::path(::testing::TempDir()) / file_name;
    std::ofstream(path) << R"({"format": "ggml-graph/1", "name": "long", "buffer_types": [{"name": "CPU", "alignment": 32}],
        "tensors": [{"name": "b", "ne": [1]}, {"name": ")" << kLongName << R"(", "ne": [1]}],
        "leafs": ["b", ")" << kLongName << R"("], "nodes": []})";
    return path.string();
}

// The line of `text` that holds `needle`, or "" when none does.
std::string line_with(const std::string& text, const std::string& needle) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.find(needle) != std::string::npos) {
            return line;
        }
    }
    return "";
}

// Without --full-names the 70-column name is cut to 48: its first 47 characters and "…"
// (U+2026). With it, the name is whole and the column is 70 wide: "tensor" gets 64 spaces,
// "b" 69, before the two that separate the columns.
TEST(TerminalColumns, PlanWritesWholeNamesOnRequest) {
    const std::string file = write_long_named_graph("long-plan.json");
    const Outcome cut = run({"plan", file});
    ASSERT_EQ(cut.code, kDone) << cut.err;
    EXPECT_THAT(cut.out, HasSubstr("\n" + kLongName.substr(0, 47) + "\xe2\x80\xa6  leaf"));
    EXPECT_THAT(cut.out, Not(HasSubstr(kLongName)));

    const Outcome whole = run({"plan", file, "--full-names"});
    ASSERT_EQ(whole.code, kDone) << whole.err;
    EXPECT_THAT(whole.out, HasSubstr("\ntensor" + std::string(64 + 2, ' ') + "kind"));
    EXPECT_THAT(whole.out, HasSubstr("\nb" + std::string(69 + 2, ' ') + "leaf"));
    EXPECT_THAT(whole.out, HasSubstr("\n" + kLongName + "  leaf"));
    EXPECT_THAT(whole.out, Not(HasSubstr("\xe2\x80\xa6")));
    // --json has every name whole with or without the flag.
    EXPECT_THAT(run({"plan", file, "--json"}).out, HasSubstr(kLongName));
    EXPECT_THAT(run({"plan", file, "--json", "--full-names"}).out, HasSubstr(kLongName));
}

// why lists the tensors live at the high-water mark (here both leafs, 64 bytes), indented by
// 4, each name padded to the column, then its op ("leaf").
TEST(TerminalColumns, WhyWritesWholeNamesOnRequest) {
    const std::string file = write_long_named_graph("long-why.json");
    const Outcome cut = run({"why", file});
    ASSERT_EQ(cut.code, kDone) << cut.err;
    EXPECT_THAT(cut.out, HasSubstr("\n    " + kLongName.substr(0, 47) + "\xe2\x80\xa6  leaf"));
    const Outcome whole = run({"why", file, "--full-names"});
    ASSERT_EQ(whole.code, kDone) << whole.err;
    EXPECT_THAT(whole.out, HasSubstr("\n    " + kLongName + "  leaf"));
    EXPECT_THAT(whole.out, HasSubstr("\n    b" + std::string(69 + 2, ' ') + "leaf"));
}

// diff with --alignment 64: "b" stays at 0, the long-named leaf moves from 32 to 64 and is
// the one row of the table of moved tensors.
TEST(TerminalColumns, DiffWritesWholeNamesOnRequest) {
    const std::string file = write_long_named_graph("long-diff.json");
    const Outcome cut = run({"diff", file, "--alignment", "64"});
    ASSERT_EQ(cut.code, kDone) << cut.err;
    EXPECT_THAT(line_with(cut.out, "blk.0"), StartsWith(kLongName.substr(0, 47) + "\xe2\x80\xa6  "));
    const Outcome whole = run({"diff", file, "--alignment", "64", "--full-names"});
    ASSERT_EQ(whole.code, kDone) << whole.err;
    EXPECT_THAT(line_with(whole.out, "blk.0"), StartsWith(kLongName + "  "));
    EXPECT_THAT(whole.out, HasSubstr("\ntensor" + std::string(64 + 2, ' ') + "A buffer:chunk:offset"));
}

// policy compare names each graph by its file: a path over 48 columns is cut, whole on request.
TEST(TerminalColumns, PolicyCompareWritesWholeGraphNamesOnRequest) {
    const std::string file = write_long_named_graph("a-graph-file-whose-name-is-longer-than-the-column-" + std::string(20, 'y') + ".json");
    ASSERT_GT(file.size(), 48u);
    const Outcome cut = run({"policy", "compare", file, "--policy", "ggml-f54604ef"});
    ASSERT_EQ(cut.code, kDone) << cut.err;
    EXPECT_THAT(cut.out, HasSubstr("\n" + file.substr(0, 47) + "\xe2\x80\xa6"));
    EXPECT_THAT(cut.out, Not(HasSubstr(file)));
    const Outcome whole = run({"policy", "compare", file, "--policy", "ggml-f54604ef", "--full-names"});
    ASSERT_EQ(whole.code, kDone) << whole.err;
    EXPECT_THAT(whole.out, HasSubstr("\n" + file + "  "));  // then the right-aligned nodes column (8 wide, 0 nodes)
}

} // namespace
} // namespace gallocsim::cli
