#include "simulator/analysis/planner_table.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace gallocsim {

namespace {

std::string bound_where(const GraphFile& file, const PeakUsage& bound) {
    return "at node step " + std::to_string(bound.step) + " (" + step_label(file, bound.step) + ")";
}

PlannerRow ggml_row(const Comparison& comparison) {
    PlannerRow row{PlannerRowKind::ggml, nullptr, "ggml (gallocr)", "", "the bytes ggml's allocator asks for (all chunks)", {}};
    for (const ArenaComparison& arena : comparison.arenas) {
        row.cells.push_back({arena.ggml_size, arena.ggml_chunks > 1 ? "in " + std::to_string(arena.ggml_chunks) + " chunks" : "", ""});
    }
    return row;
}

PlannerRow planner_row(const Comparison& comparison, std::size_t index) {
    const Planner& planner = planners()[index];
    PlannerRow row{PlannerRowKind::planner, &planner, std::string(planner.title), "",
                   std::string(planner.description) + " (on ggml's blocks: in-place chains joined, one arena without chunks)",
                   {}};
    for (const ArenaComparison& arena : comparison.arenas) {
        const PlannerOutcome& outcome = arena.alternatives.at(index).outcome;
        row.cells.push_back({outcome.plan.size, outcome.note, ""});
    }
    return row;
}

} // namespace

std::size_t PlannerRow::total() const {
    return std::accumulate(cells.begin(), cells.end(), std::size_t{0},
                           [](std::size_t sum, const PlannerCell& cell) { return sum + cell.bytes; });
}

std::string PlannerRow::note_text(const PlannerCell& cell) const {
    std::string text;
    for (const std::string* part : {&qualifier, &cell.where, &cell.note}) {
        if (!part->empty()) {
            text += (text.empty() ? "" : ", ") + *part;
        }
    }
    return text;
}

const PlannerRow& PlannerTable::row(PlannerRowKind kind) const {
    const auto found = std::ranges::find(rows, kind, &PlannerRow::kind);
    if (kind == PlannerRowKind::planner || found == rows.end()) {
        throw std::out_of_range("the planner table has no row of kind " + std::to_string(static_cast<int>(kind)));
    }
    return *found;
}

const PlannerRow& PlannerTable::row(PlannerKind planner) const {
    const auto found = std::ranges::find_if(rows, [&](const PlannerRow& r) { return r.planner != nullptr && r.planner->kind == planner; });
    if (found == rows.end()) {
        throw std::out_of_range("the planner table has no row for planner " + std::to_string(static_cast<int>(planner)));
    }
    return *found;
}

const PlannerRow& PlannerTable::best_alternative() const {
    const PlannerRow* best = nullptr;
    auto rank = [](const PlannerRow& r) { return std::pair(r.total(), r.planner->kind != PlannerKind::exact); };
    for (const PlannerRow& candidate : rows) {
        if (candidate.kind == PlannerRowKind::planner && (best == nullptr || rank(candidate) < rank(*best))) {
            best = &candidate;
        }
    }
    if (best == nullptr) {
        throw std::out_of_range("the planner table has no planner rows");
    }
    return *best;
}

PlannerTable planner_table(const GraphFile& file, const Comparison& comparison) {
    PlannerTable table;
    table.rows.push_back(ggml_row(comparison));
    for (std::size_t i = 0; i < planners().size(); ++i) {
        table.rows.push_back(planner_row(comparison, i));
    }
    PlannerRow bound{PlannerRowKind::lower_bound, nullptr, "lower bound", "in-place-aware: peak of live blocks",
                     "the most bytes live at one node step, with ggml's in-place chains as one block each: no plan "
                     "that makes ggml's in-place decisions can do with less",
                     {}};
    PlannerRow without{PlannerRowKind::bound_without_in_place, nullptr, "bound without in-place", "every tensor its own block",
                       "the same without in-place reuse (every tensor its own block): the difference is what in-place "
                       "reuse saves",
                       {}};
    PlannerRow no_reuse{PlannerRowKind::no_reuse, nullptr, "no reuse", "", "every tensor in bytes of its own", {}};
    for (const ArenaComparison& arena : comparison.arenas) {
        bound.cells.push_back({arena.lower_bound.bytes, "", bound_where(file, arena.lower_bound)});
        without.cells.push_back({arena.bound_without_in_place.bytes, "", bound_where(file, arena.bound_without_in_place)});
        no_reuse.cells.push_back({arena.no_reuse, "", ""});
    }
    table.rows.push_back(std::move(bound));
    table.rows.push_back(std::move(without));
    table.rows.push_back(std::move(no_reuse));
    return table;
}

} // namespace gallocsim
