#pragma once
// What moved between two plans of one graph: buffer and chunk sizes, and each tensor whose place
// differs (`diff`, and the rule effects' words).
#include "simulator/model/plan.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

struct TensorMove {
    std::string name;
    std::optional<Placement> before;  // absent: no memory in plan A
    std::optional<Placement> after;   // absent: no memory in plan B
};

struct PlanDiff {
    std::vector<std::size_t> sizes_before;  // per buffer id
    std::vector<std::size_t> sizes_after;
    std::vector<std::vector<std::size_t>> chunks_before;
    std::vector<std::vector<std::size_t>> chunks_after;
    std::vector<TensorMove> moved;  // tensors whose place differs, in plan A's order then B's
    std::size_t unchanged = 0;      // tensors at the same place in both
};

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after);

} // namespace gallocsim
