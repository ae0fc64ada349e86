// The planner table compare prints and the Statistics panel shows, built once from a comparison.
#include "simulator/analysis/planner_table.hpp"
#include "simulator/model/examples.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gallocsim {
namespace {

// The seed graph (docs/tutorial.md): a and b are f32 [1] (4 bytes, 32 once aligned on the CPU
// buffer type), mul = a * b runs in place of a. So, worked out by hand:
//   ggml: a+mul share 32 bytes, b has 32 of its own              -> 64, one chunk, no note
//   lower bound: a and b are live from node step 0 (start: leafs and inputs), and a+mul and b
//                at step 1 (mul); the first step at the most is the one reported     -> 64 at 0
//   bound without in-place: a, b and mul live at once             -> 96
//   no reuse: three tensors of 32                                 -> 96
//   exact search: two blocks, meets the bound                     -> 64, "optimal"
//
//   offset  0      32     64
//           |a=mul |b     |      ggml and every planner
TEST(PlannerTable, SaysWhatCompareSaysAboutTheSeed) {
    const GraphFile file = make_example("seed");
    const PlannerTable table = planner_table(file, compare_planners(file, run_ggml_plan(file)));

    std::vector<std::string> keys;
    for (const PlannerRow& row : table.rows) {
        keys.push_back(row.key);
        ASSERT_EQ(row.cells.size(), 1u) << row.key;  // one buffer type
        EXPECT_FALSE(row.meaning.empty()) << row.key;
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"ggml", "greedy", "first-fit", "exact", "lower_bound",
                                              "bound_without_in_place", "no_reuse"}));

    const PlannerRow& ggml = table.row("ggml");
    EXPECT_EQ(ggml.label, "ggml (gallocr)");
    EXPECT_EQ(ggml.cells[0].bytes, 64u);
    EXPECT_EQ(ggml.note_text(ggml.cells[0]), "");  // one chunk: nothing to say

    const PlannerRow& exact = table.row("exact");
    EXPECT_EQ(exact.cells[0].bytes, 64u);
    EXPECT_TRUE(exact.cells[0].note.starts_with("optimal")) << exact.cells[0].note;

    const PlannerRow& bound = table.row("lower_bound");
    EXPECT_EQ(bound.cells[0].bytes, 64u);
    EXPECT_EQ(bound.cells[0].where, "at node step 0 (start)");
    EXPECT_EQ(bound.note_text(bound.cells[0]), "in-place-aware: peak of live blocks, at node step 0 (start)");

    EXPECT_EQ(table.row("bound_without_in_place").cells[0].bytes, 96u);
    EXPECT_EQ(table.row("no_reuse").cells[0].bytes, 96u);
    EXPECT_EQ(table.row("no_reuse").total(), 96u);
}

// A row's total adds its buffer types; the note joins what is given, in the order compare prints.
TEST(PlannerTable, TotalsAndNotesJoinWhatIsGiven) {
    const PlannerRow row{"lower_bound", "lower bound", "kind", "meaning",
                         {{100, "", "at node step 1 (x)"}, {28, "a note", ""}, {0, "", ""}}};
    EXPECT_EQ(row.total(), 128u);
    EXPECT_EQ(row.note_text(row.cells[0]), "kind, at node step 1 (x)");
    EXPECT_EQ(row.note_text(row.cells[1]), "kind, a note");
    EXPECT_EQ(row.note_text(row.cells[2]), "kind");
    const PlannerRow plain{"ggml", "ggml", "", "", {{1, "in 2 chunks", ""}}};
    EXPECT_EQ(plain.note_text(plain.cells[0]), "in 2 chunks");
}

TEST(PlannerTable, AnUnknownRowIsAnError) {
    const PlannerTable table;
    EXPECT_THROW((void)table.row("ggml"), std::out_of_range);
}

} // namespace
} // namespace gallocsim
