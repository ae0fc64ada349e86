#include "simulator/trace/trace.hpp"

#include "simulator/model/plan.hpp"
#include "simulator/trace/overloaded.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gallocsim {

// Events are copied as plain bytes: a vector of them grows, copies and frees cheaply.
static_assert(std::is_trivially_copyable_v<TraceEvent>);
static_assert(sizeof(TraceEvent) <= 56);

EventKind kind_of(const TraceEvent& event) {
    return std::visit([](const auto& e) { return e.kind(); }, event.data);
}

std::string_view kind_name(EventKind kind) {
    return kEventKindNames.at(static_cast<std::size_t>(kind));
}

std::optional<EventKind> parse_kind(std::string_view name) {
    const auto it = std::ranges::find(kEventKindNames, name);
    if (it == kEventKindNames.end()) {
        return std::nullopt;
    }
    return static_cast<EventKind>(it - kEventKindNames.begin());
}

std::string_view stage_name(Stage stage) {
    switch (stage) {
    case Stage::leafs: return "leafs";
    case Stage::counting: return "counting";
    case Stage::nodes: return "nodes";
    case Stage::buffers: return "buffers";
    case Stage::addresses: return "addresses";
    }
    return "?";
}

std::vector<TensorId> touched_tensors(const TraceEvent& event) {
    std::vector<TensorId> ids;
    auto add = [&](TensorId id) {
        if (id != kNoTensor && std::ranges::find(ids, id) == ids.end()) {
            ids.push_back(id);
        }
    };
    std::visit(
        [&](const auto& e) {
            using Kind = std::remove_cvref_t<decltype(e)>;
            std::apply([&](auto... member) { (add(e.*member), ...); }, Kind::touched());
        },
        event.data);
    return ids;
}

bool touches(const TraceEvent& event, TensorId tensor) {
    const auto ids = touched_tensors(event);
    return std::ranges::find(ids, tensor) != ids.end();
}

std::optional<MemoryRange> touched_memory(const Trace& trace, const TraceEvent& event) {
    static constexpr std::optional<MemoryRange> kNoRange;  // an event that moves no memory
    auto range = [&](int buffer_id, BufferAddress address, std::size_t size) {
        return std::optional(MemoryRange{trace.buffer(buffer_id).canonical_id, address.chunk, address.offset, size});
    };
    // By what the event does: each effect named, so that a new effect must be placed here.
    const auto memory = Overloaded{
        [&](const Recorded<effect::CreatesChunk>& e) { return range(e.buffer_id, {e.chunk, 0}, e.size); },
        [&](const Recorded<effect::Allocates>& e) {
            const BlockTaken& taken = trace.taken(e);
            return range(e.buffer_id, taken.address, taken.size);
        },
        [&](const Recorded<effect::ReusesParent>& e) {
            return range(e.buffer_id, e.address, align_up(e.alloc_size, trace.buffer(e.buffer_id).alignment));
        },
        [&](const Recorded<effect::Frees>& e) {
            const FreeDecision& freed = trace.freed(e);
            return range(e.buffer_id, freed.address, freed.size);
        },
        [](const Recorded<effect::None>&) { return kNoRange; },
        [](const Recorded<effect::StartsPlan>&) { return kNoRange; },
        [](const Recorded<effect::CountsUses>&) { return kNoRange; },
        [](const Recorded<effect::KeepsOutput>&) { return kNoRange; },
        [](const Recorded<effect::SetsBuffer>&) { return kNoRange; },
        [](const Recorded<effect::Places>&) { return kNoRange; },
    };
    return std::visit([&](const auto& e) { return memory(e.does()); }, event.data);
}

std::span<const BlockCandidate> Trace::candidates(const Recorded<event::TensorAllocated>& e) const {
    const PoolRange range = taken(e).candidates;
    return std::span(candidate_pool).subspan(range.first, range.count);
}

std::span<const std::size_t> Trace::chunk_sizes(const Recorded<event::BufferAllocated>& e) const {
    return std::span(chunk_size_pool).subspan(e.chunk_sizes.first, e.chunk_sizes.count);
}

std::vector<int> Trace::allocator_buffer_ids() const {
    std::vector<int> ids(static_cast<std::size_t>(allocator_count), -1);
    for (const TraceBuffer& buffer : buffers) {
        ids[static_cast<std::size_t>(buffer.allocator)] = buffer.canonical_id;
    }
    return ids;
}

std::optional<TensorId> Trace::find(std::string_view name) const {
    const auto it = std::ranges::find(tensors, name, &TraceTensor::name);
    if (it == tensors.end()) {
        return std::nullopt;
    }
    return static_cast<TensorId>(it - tensors.begin());
}

// --- The tensor table ----------------------------------------------------------------

// Every event names tensors, so the recorder's id lookup is on the recording's hot path:
// the error is built out of line to keep the lookup small enough to inline.
[[noreturn]] static void throw_unknown_tensor(const Tensor& tensor) {
    throw std::logic_error("trace: tensor " + tensor.name + " is not one of the graph file's tensors");
}

TraceTensors::TraceTensors(std::vector<TraceTensor> tensors) {
    std::vector<TensorId> nodes;
    for (std::size_t id = 0; id < tensors.size(); ++id) {
        const TraceTensor& tensor = tensors[id];
        source_count_ += static_cast<std::size_t>(std::ranges::count_if(tensor.src, [](TensorId src) { return src != kNoTensor; }));
        if (tensor.role == TensorRole::node && tensor.position >= 0) {
            const auto position = static_cast<std::size_t>(tensor.position);
            nodes.resize(std::max(nodes.size(), position + 1), kNoTensor);
            nodes[position] = static_cast<TensorId>(id);
        }
    }
    tensors_ = std::make_shared<const std::vector<TraceTensor>>(std::move(tensors));
    nodes_ = std::make_shared<const std::vector<TensorId>>(std::move(nodes));
}

const std::vector<TraceTensor>& TraceTensors::all() const {
    static const std::vector<TraceTensor> none;
    return tensors_ ? *tensors_ : none;
}

const std::vector<TensorId>& TraceTensors::nodes() const {
    static const std::vector<TensorId> none;
    return nodes_ ? *nodes_ : none;
}

TensorId TraceTensors::node_at_step(std::int64_t step) const {
    const auto& all_nodes = nodes();
    return step > 0 && static_cast<std::size_t>(step) <= all_nodes.size() ? all_nodes[static_cast<std::size_t>(step - 1)]
                                                                            : kNoTensor;
}

TraceTensors describe_tensors(const GraphFile& file) {
    const auto& context = file.context.tensors();
    // A tensor's id is its position in the graph file's context.
    auto id_of = [&](const Tensor* tensor) {
        if (tensor == nullptr) {
            return kNoTensor;
        }
        if (tensor->index >= context.size() || &context[tensor->index] != tensor) {
            throw_unknown_tensor(*tensor);
        }
        return static_cast<TensorId>(tensor->index);
    };
    // Every field given, so that nothing is written twice.
    auto describe = [&](const Tensor& tensor) -> TraceTensor {
        auto source_ids = [&]<std::size_t... J>(std::index_sequence<J...>) {
            return std::array<TensorId, kMaxSrc>{id_of(tensor.src[J])...};
        };
        return {.name = tensor.name,
                .type = tensor.type,
                .op = tensor.op,
                .ne = tensor.ne,
                .flags = tensor.flags,
                .src = source_ids(std::make_index_sequence<kMaxSrc>{}),
                .view_src = id_of(tensor.view_src),
                .view_offs = tensor.view_offs,
                .external = file.is_external(tensor),
                .on_external_buffer = file.is_on_external_buffer(tensor),
                .bytes = nbytes(tensor),
                .role = TensorRole::other,
                .position = -1,
                .buffer_id = 0};
    };
    std::vector<TraceTensor> tensors;
    tensors.reserve(context.size());
    for (const Tensor& tensor : context) {
        tensors.push_back(describe(tensor));
    }
    auto mark = [&](const std::vector<Tensor*>& list, TensorRole role, const std::vector<int>& buffer_ids) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            TraceTensor& traced = tensors[static_cast<std::size_t>(id_of(list[i]))];
            traced.role = role;
            traced.position = static_cast<int>(i);
            traced.buffer_id = i < buffer_ids.size() ? buffer_ids[i] : 0;
        }
    };
    mark(file.graph.leafs, TensorRole::leaf, file.leaf_buffer_ids);
    mark(file.graph.nodes, TensorRole::node, file.node_buffer_ids);
    return TraceTensors(std::move(tensors));
}

// --- Recording ----------------------------------------------------------------------

void TraceRecorder::unknown_tensor(const Tensor& tensor) {
    throw_unknown_tensor(tensor);
}

TraceRecorder::TraceRecorder(const GraphFile& file, const WorkingGraph& planned, const AllocatorProfile& profile)
    : TraceRecorder(file, planned, describe_tensors(file), profile) {}

TraceRecorder::TraceRecorder(const GraphFile& file, const WorkingGraph& planned, TraceTensors tensors,
                             const AllocatorProfile& profile) {
    if (tensors.size() != file.context.size() || planned.context.size() != file.context.size()) {
        throw std::invalid_argument("trace: the graph file has " + std::to_string(file.context.size()) +
                                    " tensors, the tensor description " + std::to_string(tensors.size()) +
                                    ", the planned copy " + std::to_string(planned.context.size()));
    }
    trace_.graph_name = file.name;
    trace_.profile = &profile;
    trace_.leaf_count = file.graph.leafs.size();
    trace_.node_count = file.graph.nodes.size();
    trace_.tensors = std::move(tensors);

    addresses_.reserve(planned.context.size());
    for (const Tensor& tensor : planned.context.tensors()) {
        addresses_.push_back(&tensor);
    }
    // About as many events as a run gives, so that the trace is not copied as it grows:
    // each leaf is allocated and placed; each node starts, is allocated (or reuses a parent
    // after a rejection or two) and placed, and each source is counted, released and
    // perhaps freed.
    trace_.events.reserve(8 + 2 * file.graph.leafs.size() + 5 * file.graph.nodes.size() + 3 * trace_.tensors.source_count());
    trace_.blocks_taken.reserve(file.graph.nodes.size() + file.graph.leafs.size());
    trace_.blocks_freed.reserve(file.graph.nodes.size() + file.graph.leafs.size());

    // As GraphAllocator: ids naming the same buffer type share one allocator.
    std::vector<int> allocator_of_type(file.buffer_types.size(), -1);
    std::vector<int> first_id_of_type(file.buffer_types.size(), -1);
    for (int id = 0; id < file.buffer_count(); ++id) {
        const auto type = static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(id)]);
        if (allocator_of_type[type] < 0) {
            allocator_of_type[type] = trace_.allocator_count++;
            first_id_of_type[type] = id;
        }
        const BufferTypeSpec& spec = file.buffer_types[type];
        trace_.buffers.push_back(
            {spec.name, spec.alignment, profile.planning_max_size(spec.max_size.value_or(kSizeMax)), allocator_of_type[type],
             first_id_of_type[type]});
    }
}

Trace TraceRecorder::take(std::string error) {
    trace_.error = std::move(error);
    return std::move(trace_);
}

// The decision's candidates go to the candidate pool, the decision to blocks_taken.
std::size_t TraceRecorder::ref(const ObservedRefs::Taken& taken) {
    const auto& [decision, candidates] = taken;
    const PoolRange range{trace_.candidate_pool.size(), candidates.size()};
    trace_.candidate_pool.insert(trace_.candidate_pool.end(), candidates.begin(), candidates.end());
    trace_.blocks_taken.push_back({decision, range});
    return trace_.blocks_taken.size() - 1;
}

std::size_t TraceRecorder::ref(const FreeDecision& freed) {
    trace_.blocks_freed.push_back(freed);
    return trace_.blocks_freed.size() - 1;
}

PoolRange TraceRecorder::ref(std::span<const std::size_t> chunk_sizes) {
    const PoolRange range{trace_.chunk_size_pool.size(), chunk_sizes.size()};
    trace_.chunk_size_pool.insert(trace_.chunk_size_pool.end(), chunk_sizes.begin(), chunk_sizes.end());
    return range;
}

TracedPlan trace_plan(const GraphFile& file, const AllocatorProfile& profile) {
    return trace_plan(file, describe_tensors(file), profile);
}

TracedPlan trace_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile) {
    return trace_plan(file, std::move(tensors), prepare_plan(file, profile));
}

TracedPlan trace_plan(const GraphFile& file, TraceTensors tensors, PlanRun run) {
    TracedPlan traced{std::move(run), {}};
    TraceRecorder recorder(file, traced.run.planned, std::move(tensors), traced.run.allocator->profile());
    carry_out_plan(traced.run, &recorder);
    traced.trace = recorder.take(traced.run.error);
    return traced;
}

Trace record_trace(const GraphFile& file, const AllocatorProfile& profile) {
    return trace_plan(file, describe_tensors(file), profile).trace;
}

Trace record_trace(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile) {
    return trace_plan(file, std::move(tensors), profile).trace;
}

} // namespace gallocsim
