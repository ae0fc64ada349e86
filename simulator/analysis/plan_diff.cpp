#include "simulator/analysis/plan_diff.hpp"

#include <map>
#include <string>
#include <utility>

namespace gallocsim {

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after) {
    PlanDiff diff;
    diff.sizes_before = before.buffer_sizes;
    diff.sizes_after = after.buffer_sizes;
    diff.chunks_before = before.chunk_sizes;
    diff.chunks_after = after.chunk_sizes;
    std::map<std::string, Placement> later(after.tensors.begin(), after.tensors.end());
    for (const auto& [name, place] : before.tensors) {
        auto it = later.find(name);
        if (it == later.end()) {
            diff.moved.push_back({name, place, std::nullopt});
            continue;
        }
        if (it->second == place) {
            ++diff.unchanged;
        } else {
            diff.moved.push_back({name, place, it->second});
        }
        later.erase(it);
    }
    for (const auto& [name, place] : after.tensors) {
        if (later.contains(name)) {
            diff.moved.push_back({name, std::nullopt, place});
        }
    }
    return diff;
}

} // namespace gallocsim
