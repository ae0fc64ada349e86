#include "simulator/analysis/plan_diff.hpp"

#include <algorithm>
#include <utility>

namespace gallocsim {

namespace {

// `after_of_before`: for each tensor of A's graph, the same tensor in B's graph, or kNoTensor.
// `after_tensors`: how many tensors B's graph has.
PlanDiff diff_by_id(const PlanRecord& before, const PlanRecord& after, const std::vector<TensorId>& after_of_before,
                    std::size_t after_tensors) {
    PlanDiff diff;
    diff.sizes_before = before.buffer_sizes;
    diff.sizes_after = after.buffer_sizes;
    diff.chunks_before = before.chunk_sizes;
    diff.chunks_after = after.chunk_sizes;
    // B's places by B's id; an entry is cleared once A's tensor has met it.
    std::vector<const Placement*> later(after_tensors, nullptr);
    for (const auto& [tensor, place] : after.tensors) {
        later.at(static_cast<std::size_t>(tensor)) = &place;
    }
    for (const auto& [tensor, place] : before.tensors) {
        const TensorId same = after_of_before.at(static_cast<std::size_t>(tensor));
        const Placement** found = same == kNoTensor ? nullptr : &later[static_cast<std::size_t>(same)];
        if (found == nullptr || *found == nullptr) {
            diff.moved.push_back({tensor, same, place, std::nullopt});
            continue;
        }
        if (**found == place) {
            ++diff.unchanged;
        } else {
            diff.moved.push_back({tensor, same, place, **found});
        }
        *found = nullptr;
    }
    for (const auto& [tensor, place] : after.tensors) {
        if (later[static_cast<std::size_t>(tensor)] != nullptr) {
            diff.moved.push_back({kNoTensor, tensor, std::nullopt, place});
        }
    }
    return diff;
}

// The highest id a plan places, plus one: how many tensors its graph has at least.
std::size_t ids_in(const PlanRecord& plan) {
    std::size_t ids = 0;
    for (const PlacedTensor& placed : plan.tensors) {
        ids = std::max(ids, static_cast<std::size_t>(placed.tensor) + 1);
    }
    return ids;
}

} // namespace

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after) {
    const std::size_t ids = std::max(ids_in(before), ids_in(after));
    std::vector<TensorId> same(ids);
    for (std::size_t id = 0; id < ids; ++id) {
        same[id] = static_cast<TensorId>(id);
    }
    return diff_by_id(before, after, same, ids);
}

PlanDiff diff_plans(const GraphFile& before_file, const PlanRecord& before, const GraphFile& after_file,
                    const PlanRecord& after) {
    const TensorsByName after_by_name = tensors_by_name(after_file.context);
    std::vector<TensorId> same;
    same.reserve(before_file.context.size());
    for (const Tensor& tensor : before_file.context.tensors()) {
        const auto found = after_by_name.find(tensor.name);
        same.push_back(found == after_by_name.end() ? kNoTensor : found->second);
    }
    return diff_by_id(before, after, same, after_file.context.size());
}

const std::string& moved_tensor_name(const TensorMove& move, const GraphFile& before_file, const GraphFile& after_file) {
    return move.before_tensor != kNoTensor ? tensor_name(before_file.context, move.before_tensor)
                                           : tensor_name(after_file.context, move.after_tensor);
}

} // namespace gallocsim
