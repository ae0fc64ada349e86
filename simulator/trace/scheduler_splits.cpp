#include "simulator/trace/scheduler_splits.hpp"

#include "reference/ops.hpp"

#include <algorithm>
#include <utility>

namespace gallocsim {

bool is_split_input(const TraceTensor& node) {
    if (node.op != Op::NONE || node.role != TensorRole::node) {
        return false;
    }
    const bool has_source = std::ranges::any_of(node.src, [](TensorId src) { return src != kNoTensor; });
    return node.is_view() ? node.src[0] != kNoTensor : !has_source;
}

std::optional<int> SchedulerSplits::split_of(const TraceTensor& tensor) const {
    if (tensor.role != TensorRole::node || tensor.position < 0 ||
        static_cast<std::size_t>(tensor.position) >= split_of_position.size()) {
        return std::nullopt;
    }
    return split_of_position[static_cast<std::size_t>(tensor.position)];
}

SchedulerSplits scheduler_splits(const Trace& trace) {
    std::vector<const TraceTensor*> nodes;
    for (TensorId id : trace.tensors.nodes()) {
        nodes.push_back(id == kNoTensor ? nullptr : &trace.tensor(id));
    }
    const auto input_at = [&](std::size_t i) { return nodes[i] != nullptr && is_split_input(*nodes[i]); };
    SchedulerSplits result;
    bool any_input = false;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const bool input = input_at(i);
        any_input = any_input || input;
        if (i == 0 || (input && !input_at(i - 1))) {
            if (!result.splits.empty()) {
                result.splits.back().end_node = i;
            }
            result.splits.push_back({.first_node = i, .end_node = nodes.size(), .inputs = 0, .buffer_id = std::nullopt});
        }
        SchedulerSplit& split = result.splits.back();
        // Each input is a view and a copy: count the copies, which run on the split's backend.
        if (input && !nodes[i]->is_view()) {
            ++split.inputs;
        }
        // The scheduler assigns views a backend too, but only what computes tells the split's.
        if (!input && nodes[i] != nullptr && !op_is_empty(nodes[i]->op) && !split.buffer_id) {
            split.buffer_id = nodes[i]->buffer_id;
        }
        result.split_of_position.push_back(static_cast<int>(result.splits.size()) - 1);
    }
    if (!any_input) {
        return {};
    }
    return result;
}

std::string splits_summary(const Trace& trace, const SchedulerSplits& splits) {
    std::vector<std::pair<std::string, std::size_t>> per_type;
    for (const SchedulerSplit& split : splits.splits) {
        const std::string type = split.buffer_id ? trace.buffer(*split.buffer_id).type_name : "nothing computed";
        auto it = std::ranges::find(per_type, type, &std::pair<std::string, std::size_t>::first);
        if (it == per_type.end()) {
            per_type.emplace_back(type, 1);
        } else {
            ++it->second;
        }
    }
    std::string text = std::to_string(splits.splits.size()) + (splits.splits.size() == 1 ? " scheduler split (" : " scheduler splits (");
    for (std::size_t i = 0; i < per_type.size(); ++i) {
        text += (i > 0 ? ", " : "") + per_type[i].first + ": " + std::to_string(per_type[i].second);
    }
    return text + ")";
}

} // namespace gallocsim
