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

    std::vector<std::string> labels;
    std::vector<PlannerRowKind> kinds;
    for (const PlannerRow& row : table.rows) {
        labels.push_back(row.label);
        kinds.push_back(row.kind);
        ASSERT_EQ(row.cells.size(), 1u) << row.label;  // one buffer type
        EXPECT_FALSE(row.meaning.empty()) << row.label;
        EXPECT_EQ(row.planner != nullptr, row.kind == PlannerRowKind::planner) << row.label;
    }
    EXPECT_EQ(labels, (std::vector<std::string>{"ggml (gallocr)", "greedy by size", "first fit, execution order",
                                                "exact search", "lower bound", "bound without in-place", "no reuse"}));
    EXPECT_EQ(kinds, (std::vector{PlannerRowKind::ggml, PlannerRowKind::planner, PlannerRowKind::planner,
                                  PlannerRowKind::planner, PlannerRowKind::lower_bound,
                                  PlannerRowKind::bound_without_in_place, PlannerRowKind::no_reuse}));

    const PlannerRow& ggml = table.row(PlannerRowKind::ggml);
    EXPECT_EQ(ggml.label, "ggml (gallocr)");
    EXPECT_EQ(ggml.cells[0].bytes, 64u);
    EXPECT_EQ(ggml.note_text(ggml.cells[0]), "");  // one chunk: nothing to say

    const PlannerRow& exact = table.row(PlannerKind::exact);
    EXPECT_EQ(exact.label, "exact search");
    EXPECT_EQ(exact.cells[0].bytes, 64u);
    EXPECT_TRUE(exact.cells[0].note.starts_with("optimal")) << exact.cells[0].note;
    EXPECT_EQ(table.row(PlannerKind::greedy_by_size).label, "greedy by size");
    // Every planner meets the bound here: of equals, the exact search's row is the best, as it
    // says that 64 is optimal.
    EXPECT_EQ(&table.best_alternative(), &exact);

    const PlannerRow& bound = table.row(PlannerRowKind::lower_bound);
    EXPECT_EQ(bound.cells[0].bytes, 64u);
    EXPECT_EQ(bound.cells[0].where, "at node step 0 (start)");
    EXPECT_EQ(bound.note_text(bound.cells[0]), "in-place-aware: peak of live blocks, at node step 0 (start)");

    EXPECT_EQ(table.row(PlannerRowKind::bound_without_in_place).cells[0].bytes, 96u);
    EXPECT_EQ(table.row(PlannerRowKind::no_reuse).cells[0].bytes, 96u);
    EXPECT_EQ(table.row(PlannerRowKind::no_reuse).total(), 96u);
}

// A row's total adds its buffer types; the note joins what is given, in the order compare prints.
TEST(PlannerTable, TotalsAndNotesJoinWhatIsGiven) {
    const PlannerRow row{PlannerRowKind::lower_bound, nullptr, "lower bound", "kind", "meaning",
                         {{100, "", "at node step 1 (x)"}, {28, "a note", ""}, {0, "", ""}}};
    EXPECT_EQ(row.total(), 128u);
    EXPECT_EQ(row.note_text(row.cells[0]), "kind, at node step 1 (x)");
    EXPECT_EQ(row.note_text(row.cells[1]), "kind, a note");
    EXPECT_EQ(row.note_text(row.cells[2]), "kind");
    const PlannerRow plain{PlannerRowKind::ggml, nullptr, "ggml", "", "", {{1, "in 2 chunks", ""}}};
    EXPECT_EQ(plain.note_text(plain.cells[0]), "in 2 chunks");
}

TEST(PlannerTable, AnUnknownRowIsAnError) {
    const PlannerTable table;
    EXPECT_THROW((void)table.row(PlannerRowKind::ggml), std::out_of_range);
    EXPECT_THROW((void)table.row(PlannerKind::exact), std::out_of_range);
    EXPECT_THROW((void)table.best_alternative(), std::out_of_range);
}

// The best alternative is the planner row with the smallest total over the buffer types;
// of equals, the exact search's. A kind that stands for many rows is no row.
TEST(PlannerTable, TheBestAlternativeIsTheSmallestPlannerRow) {
    PlannerTable table;
    table.rows.push_back({PlannerRowKind::ggml, nullptr, "ggml", "", "", {{10, "", ""}}});
    table.rows.push_back({PlannerRowKind::planner, &planner(PlannerKind::greedy_by_size), "greedy", "", "", {{40, "", ""}, {40, "", ""}}});
    table.rows.push_back({PlannerRowKind::planner, &planner(PlannerKind::first_fit), "first fit", "", "", {{30, "", ""}, {60, "", ""}}});
    table.rows.push_back({PlannerRowKind::planner, &planner(PlannerKind::exact), "exact", "", "", {{50, "", ""}, {40, "", ""}}});
    EXPECT_EQ(table.best_alternative().label, "greedy");  // 80 against 90 and 90
    table.rows[3].cells[0].bytes = 40;
    EXPECT_EQ(table.best_alternative().label, "exact");  // 80 too: the exact search's
    EXPECT_THROW((void)table.row(PlannerRowKind::planner), std::out_of_range);
}

} // namespace
} // namespace gallocsim
