#include "simulator/analysis/plan_check.hpp"

#include "simulator/model/buffer_settings.hpp"

#include <string>
#include <utility>

namespace gallocsim {

PlanToCheck ggml_plan_to_check(const GraphFile& file, const GgmlPlan& plan) {
    PlanToCheck check;
    // The tensors checked are those with a lifetime, in the lifetimes' order; by tensor id, each
    // one's index among them.
    std::vector<std::size_t> checked(file.context.size(), kNoCheckedTensor);
    for (const TensorLifetime& lifetime : plan.lifetimes.tensors) {
        checked.at(static_cast<std::size_t>(lifetime.tensor)) = check.tensors.size();
        check.tensors.push_back({plan.trace.tensor(lifetime.tensor).name, lifetime.first, lifetime.last, lifetime.size, 0});
    }
    for (const auto& [id, place] : plan.run.plan.tensors) {
        if (file.context.tensors().at(static_cast<std::size_t>(id)).is_view()) {
            continue;  // a view lives in its root's bytes and has no lifetime of its own
        }
        check.placements.push_back({checked[static_cast<std::size_t>(id)], place.buffer_id, place.chunk, place.offset});
    }
    for (int id = 0; id < file.buffer_count(); ++id) {
        const TraceBuffer& traced = plan.trace.buffer(id);
        CheckedBuffer buffer;
        buffer.name = traced.type_name;
        buffer.alignment = traced.alignment;
        buffer.max_size = traced.max_size;  // as planning used it
        if (static_cast<std::size_t>(id) < plan.run.plan.chunk_sizes.size()) {
            buffer.chunk_sizes = plan.run.plan.chunk_sizes[static_cast<std::size_t>(id)];
        }
        check.buffers.push_back(std::move(buffer));
    }
    // A node may share its parent's bytes because it overwrites them only when it runs, as
    // the parent's last consumer. Should the parent outlive that step, the pair is checked
    // like any other.
    for (const InPlacePair& pair : plan.in_place) {
        const TraceTensor& node = plan.trace.tensor(pair.node);
        const TensorLifetime* parent = plan.lifetimes.find(pair.parent);
        const std::size_t node_index = checked.at(static_cast<std::size_t>(pair.node));
        if (node.role == TensorRole::node && node_index != kNoCheckedTensor && parent != nullptr &&
            parent->last <= node.position + 1) {
            check.may_share.emplace_back(node_index, checked[static_cast<std::size_t>(pair.parent)]);
        }
    }
    return check;
}

} // namespace gallocsim
