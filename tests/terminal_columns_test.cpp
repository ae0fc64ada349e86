// Text tables in terminal columns (model/visible_text.hpp through the whole command line):
// names with emoji keep the columns after them aligned, and names longer than a column are
// shortened with an ellipsis unless --full-names asks for them whole.
#include "simulator/cli/command_line.hpp"
#include "simulator/cli/errors.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Outcome {
    int code = 0;
    std::string out;
    std::string err;
};

Outcome run(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), "gallocsim");
    std::vector<const char*> argv;
    for (const std::string& arg : args) {
        argv.push_back(arg.c_str());
    }
    std::istringstream in(stdin_text);
    std::streambuf* const saved = std::cin.rdbuf(in.rdbuf());  // "-" reads the process's standard input
    std::ostringstream out, err;
    const int code = run_command_line(static_cast<int>(argv.size()), argv.data(), {in, out, err});
    std::cin.rdbuf(saved);
    return {code, out.str(), err.str()};
}

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
    EXPECT_THAT(table.out, StartsWith("tensor" + std::string(4 + 2, ' ') + "kind"));  // 6 columns + 4 of padding + 2
    EXPECT_THAT(table.out, HasSubstr("\n" + rocket + "launch" + check + "  leaf"));   // 10 columns + 2
    EXPECT_THAT(table.out, HasSubstr("\n" + bolt + std::string(8 + 2, ' ') + "node"));  // 2 columns + 8 + 2
    EXPECT_THAT(table.out, HasSubstr("\nx" + std::string(9 + 2, ' ') + "node"));        // 1 column + 9 + 2
}

} // namespace
} // namespace gallocsim::cli
