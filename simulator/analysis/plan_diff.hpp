#pragma once
// What moved between two plans of one graph: buffer and chunk sizes, and each tensor whose place
// differs (`diff`, and the rule effects' words).
#include "simulator/model/plan.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

// A tensor by its id in plan A's graph and in plan B's (kNoTensor where that graph lacks it).
struct TensorMove {
    TensorId before_tensor = kNoTensor;
    TensorId after_tensor = kNoTensor;
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

// Two plans of one graph: a tensor is the same tensor in both by its id.
PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after);
// Plans of two graph files (two versions of one graph, or two graphs): a tensor of A is B's
// tensor with its name, matched once here; after that, ids.
PlanDiff diff_plans(const GraphFile& before_file, const PlanRecord& before, const GraphFile& after_file,
                    const PlanRecord& after);

// The name a move is shown under: A's tensor's, or B's where A's graph lacks the tensor.
const std::string& moved_tensor_name(const TensorMove& move, const GraphFile& before_file, const GraphFile& after_file);

} // namespace gallocsim
