#include "simulator/trace/trace_json.hpp"

#include <nlohmann/json.hpp>

namespace gallocsim {
namespace {

using json = nlohmann::ordered_json;

std::string_view phase_name(AllocationPhase phase) {
    switch (phase) {
    case AllocationPhase::leaf: return "leaf";
    case AllocationPhase::graph_input: return "graph-input";
    case AllocationPhase::parent: return "parent";
    case AllocationPhase::node: return "node";
    }
    return "?";
}

std::string_view choice_name(BlockChoice choice) {
    switch (choice) {
    case BlockChoice::best_fit: return "best-fit";
    case BlockChoice::tail: return "tail";
    case BlockChoice::new_chunk: return "new-chunk";
    }
    return "?";
}

std::string_view merge_name(MergeKind merge) {
    switch (merge) {
    case MergeKind::none: return "none";
    case MergeKind::previous: return "previous";
    case MergeKind::next: return "next";
    case MergeKind::both: return "both";
    }
    return "?";
}

std::string_view rejection_name(InPlaceRejection reason) {
    switch (reason) {
    case InPlaceRejection::not_owned: return "not-owned";
    case InPlaceRejection::output: return "output";
    case InPlaceRejection::different_layout: return "different-layout";
    case InPlaceRejection::other_consumers: return "other-consumers";
    case InPlaceRejection::view_source_busy: return "view-source-busy";
    }
    return "?";
}

std::string_view free_reason_name(FreeReason reason) {
    return reason == FreeReason::last_consumer ? "last-consumer" : "last-view";
}

json block_json(const FreeBlock& block) {
    return {{"offset", block.offset}, {"size", block.size}};
}

json free_json(const FreeDecision& decision) {
    return {{"chunk", decision.address.chunk}, {"offset", decision.address.offset}, {"size", decision.size},
            {"merge", merge_name(decision.merge)}, {"block", decision.block}, {"result", block_json(decision.result)}};
}

// The fields of each event, tensors by name.
class Fields {
public:
    explicit Fields(const Trace& trace) : trace_(trace) {}

    json operator()(const Recorded<event::PlanStarted>& e) const { return {{"measure_only", e.measure_only}}; }
    json operator()(const Recorded<event::CountingStarted>&) const { return json::object(); }
    json operator()(const Recorded<event::NodeStarted>& e) const { return {{"node_index", e.index}}; }
    json operator()(const Recorded<event::ConsumerCounted>& e) const {
        return {{"tensor", name(e.tensor)}, {"consumer", name(e.consumer)}, {"children", e.children}};
    }
    json operator()(const Recorded<event::ViewCounted>& e) const {
        return {{"tensor", name(e.tensor)}, {"view", name(e.view)}, {"views", e.views}};
    }
    json operator()(const Recorded<event::ChunkCreated>& e) const {
        return {{"buffer", e.buffer_id}, {"chunk", e.chunk},       {"size", e.size},
                {"tensor", name(e.tensor)}, {"request", e.request}};
    }
    json operator()(const Recorded<event::TensorAllocated>& e) const {
        json candidates = json::array();
        for (const BlockCandidate& c : trace_.candidates(e)) {
            candidates.push_back({{"chunk", c.chunk}, {"block", c.block}, {"offset", c.free_block.offset},
                                  {"size", c.free_block.size}, {"tail", c.is_tail}, {"fits", c.fits},
                                  {"reuse_factor", c.reuse_factor}});
        }
        const BlockTaken& t = trace_.taken(e);
        return {{"tensor", name(e.tensor)},
                {"buffer", e.buffer_id},
                {"phase", phase_name(e.phase)},
                {"alloc_size", e.alloc_size},
                {"size", t.size},
                {"chunk", t.address.chunk},
                {"offset", t.address.offset},
                {"choice", choice_name(t.choice)},
                {"block", t.block},
                {"block_before", block_json(t.block_before)},
                {"block_consumed", t.block_consumed},
                {"reuse_factor", t.reuse_factor},
                {"high_water_before", t.high_water_before},
                {"high_water_after", t.high_water_after},
                {"candidates", std::move(candidates)}};
    }
    json operator()(const Recorded<event::InPlaceRejected>& e) const {
        return {{"node", name(e.node)}, {"parent", name(e.parent)}, {"reason", rejection_name(e.reason)},
                {"parent_children", e.parent_children}, {"parent_views", e.parent_views}};
    }
    json operator()(const Recorded<event::InPlaceReused>& e) const {
        return {{"node", name(e.node)},         {"parent", name(e.parent)}, {"view_source", name(e.view_source)},
                {"buffer", e.buffer_id},        {"chunk", e.address.chunk}, {"offset", e.address.offset},
                {"alloc_size", e.alloc_size}};
    }
    json operator()(const Recorded<event::ExtraSpaceFreed>& e) const {
        return {{"node", name(e.node)}, {"parent", name(e.parent)}, {"buffer", e.buffer_id}, {"free", free_json(trace_.freed(e))}};
    }
    json operator()(const Recorded<event::ParentReleased>& e) const {
        return {{"node", name(e.node)},           {"parent", name(e.parent)},   {"children_left", e.children_left},
                {"views_left", e.views_left},     {"still_owned", e.still_owned}};
    }
    json operator()(const Recorded<event::ViewReleased>& e) const {
        return {{"view", name(e.view)}, {"view_source", name(e.view_source)}, {"source_children", e.source_children},
                {"source_views_left", e.source_views_left}};
    }
    json operator()(const Recorded<event::TensorFreed>& e) const {
        return {{"tensor", name(e.tensor)}, {"buffer", e.buffer_id}, {"reason", free_reason_name(e.reason)},
                {"alloc_size", e.alloc_size}, {"free", free_json(trace_.freed(e))}};
    }
    json operator()(const Recorded<event::OutputKept>& e) const {
        return {{"tensor", name(e.tensor)}, {"reason", free_reason_name(e.reason)}};
    }
    json operator()(const Recorded<event::PlanFinished>& e) const { return {{"ok", e.ok}}; }
    json operator()(const Recorded<event::BufferAllocated>& e) const {
        const auto sizes = trace_.chunk_sizes(e);
        return {{"buffer", e.buffer_id}, {"chunk_sizes", std::vector<std::size_t>(sizes.begin(), sizes.end())},
                {"previous_size", e.previous_size},
                {"reallocated", e.reallocated}, {"ok", e.ok}};
    }
    json operator()(const Recorded<event::TensorInitialised>& e) const {
        json fields = {{"tensor", name(e.tensor)}, {"buffer", nullptr}, {"chunk", nullptr}, {"offset", nullptr},
                       {"address", e.data}};
        if (e.buffer_id >= 0) {
            fields["buffer"] = e.buffer_id;
        }
        if (e.address != kInvalidAddress) {
            fields["chunk"] = e.address.chunk;
            fields["offset"] = e.address.offset;
        }
        return fields;
    }

private:
    json name(TensorId id) const { return id == kNoTensor ? json(nullptr) : json(trace_.tensor(id).name); }

    const Trace& trace_;
};

} // namespace

std::string event_to_json(const Trace& trace, std::size_t index, const std::string& explanation) {
    const TraceEvent& event = trace.events.at(index);
    json tensors = json::array();
    for (TensorId id : touched_tensors(event)) {
        tensors.push_back(trace.tensor(id).name);
    }
    json out = {{"step", index + 1},
                {"kind", kind_name(kind_of(event))},
                {"stage", stage_name(event.stage)},
                {"node", event.node == kNoTensor ? json(nullptr) : json(trace.tensor(event.node).name)},
                {"tensors", std::move(tensors)},
                {"explanation", explanation}};
    out.update(std::visit(Fields(trace), event.data));
    return out.dump();
}

std::string trace_header_json(const Trace& trace) {
    json buffers = json::array();
    for (std::size_t id = 0; id < trace.buffers.size(); ++id) {
        const TraceBuffer& buffer = trace.buffers[id];
        buffers.push_back({{"id", id},
                           {"type", buffer.type_name},
                           {"alignment", buffer.alignment},
                           {"max_size", buffer.max_size},
                           {"shares_buffer_of", buffer.canonical_id}});
    }
    json out = {{"format", "gallocsim-trace/1"},
                {"graph", trace.graph_name},
                {"steps", trace.size()},
                {"tensors", trace.tensors.size()},
                {"leafs", trace.leaf_count},
                {"nodes", trace.node_count},
                {"buffers", std::move(buffers)},
                {"error", trace.error.empty() ? json(nullptr) : json(trace.error)}};
    return out.dump();
}

} // namespace gallocsim
