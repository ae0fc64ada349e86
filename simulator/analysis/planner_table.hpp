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

struct PlannerRow {
    std::string key;        // "ggml", a planner's key, "lower_bound", "bound_without_in_place", "no_reuse"
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
    const PlannerRow& row(std::string_view key) const;  // throws std::out_of_range for an unknown key
};

PlannerTable planner_table(const GraphFile& file, const Comparison& comparison);

// What every planner table means, said once under it.
inline constexpr std::string_view kPlannerTableFootnote =
    "The alternatives place the blocks ggml places once its in-place decisions are made (a chain of\n"
    "tensors that share memory is one block) in one arena without chunks. No plan that makes those\n"
    "decisions needs less than the lower bound; the bound without in-place reuse less the lower\n"
    "bound is what in-place reuse saves. A chunked ggml buffer counts all its chunks.\n";

} // namespace gallocsim
