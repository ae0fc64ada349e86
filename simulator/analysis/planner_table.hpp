#pragma once
// The planner table: for each buffer type, ggml's size beside the alternative planners, the
// two bounds and no reuse, with what each row means and a note per cell. Built once here from
// a Comparison; `gallocsim compare` prints it and the GUI's Statistics panel shows it, so both
// name and order the rows the same way.

#include "simulator/analysis/comparison.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

struct PlannerCell {
    std::size_t bytes = 0;
    std::string note;   // the planner's or ggml's word on this figure: "in 2 chunks", "optimal"; may be empty
    std::string where;  // for a bound, where it is reached: "at node step 24 (kq-0)"; else empty
};

// What a row of the table is.
enum class PlannerRowKind {
    ggml,                    // ggml's allocator
    planner,                 // one of the registry's planners (PlannerRow::planner)
    lower_bound,             // the in-place-aware bound
    bound_without_in_place,  // the bound with every tensor a block of its own
    no_reuse,                // every tensor in bytes of its own
};

struct PlannerRow {
    PlannerRowKind kind = PlannerRowKind::ggml;
    const Planner* planner = nullptr;  // the planner of a `planner` row; else null
    std::string label;      // "ggml (gallocr)", "greedy by size", "lower bound"
    std::string qualifier;  // what kind of figure it is, said before a bound's position; may be empty
    std::string meaning;    // one sentence, for tooltips
    std::vector<PlannerCell> cells;  // one per buffer type, in the comparison's order

    std::size_t total() const;  // over the buffer types
    // The note `compare` prints after the figure: qualifier, where and note, as far as given.
    std::string note_text(const PlannerCell& cell) const;
};

struct PlannerTable {
    // ggml, then the planners in the registry's order, the in-place-aware bound, the bound
    // without in-place reuse, no reuse.
    std::vector<PlannerRow> rows;
    // The row of a kind the table has one row of (not `planner`: a planner's row is asked for by
    // the planner's kind); throws std::out_of_range where the table has none.
    const PlannerRow& row(PlannerRowKind kind) const;
    const PlannerRow& row(PlannerKind planner) const;
    // The best alternative to ggml over all buffer types: the planner row with the smallest
    // total; of equals the exact search's, since it says how good its plan is (as
    // ArenaComparison::best_alternative chooses per buffer type). What a view that shows one
    // alternative beside ggml and the bound shows.
    const PlannerRow& best_alternative() const;
};

PlannerTable planner_table(const GraphFile& file, const Comparison& comparison);

// What every planner table means, said once under it.
inline constexpr std::string_view kPlannerTableFootnote =
    "The alternatives place the blocks ggml places once its in-place decisions are made (a chain of\n"
    "tensors that share memory is one block) in one arena without chunks. No plan that makes those\n"
    "decisions needs less than the lower bound; the bound without in-place reuse less the lower\n"
    "bound is what in-place reuse saves. A chunked ggml buffer counts all its chunks.\n";

} // namespace gallocsim
