#include "simulator/model/plan.hpp"
#include "simulator/model/amount_text.hpp"

#include <algorithm>

namespace gallocsim {

BufferTypeSettings buffer_type_settings(const BufferTypeSpec& spec, bool fake_base) {
    BufferTypeSettings settings;
    settings.name = spec.name;
    settings.alignment = spec.alignment;
    settings.max_size = spec.max_size.value_or(kSizeMax);
    settings.alloc_size = spec.alloc_size;
    settings.fake_base = fake_base;
    return settings;
}

std::vector<std::unique_ptr<ConfigurableBufferType>> make_buffer_types(const GraphFile& file) {
    auto types = make_buffer_types(file.buffer_types);
    // Tensor indices are the same in the file and its working copies, so one table serves both.
    for (auto& type : types) {
        BufferTypeSettings settings = type->settings();
        settings.tensor_sizes = file.tensor_sizes();
        type->set_settings(std::move(settings));
    }
    return types;
}

std::vector<std::unique_ptr<ConfigurableBufferType>> make_buffer_types(std::span<const BufferTypeSpec> specs) {
    std::vector<std::unique_ptr<ConfigurableBufferType>> types;
    for (const BufferTypeSpec& spec : specs) {
        types.push_back(std::make_unique<ConfigurableBufferType>(buffer_type_settings(spec, true)));
    }
    return types;
}

std::unique_ptr<GraphAllocator> make_allocator(const GraphFile& file,
                                               std::span<const std::unique_ptr<ConfigurableBufferType>> types,
                                               const AllocatorProfile& profile) {
    std::vector<BufferType*> ids;
    for (int type : file.buffers) {
        ids.push_back(types[static_cast<std::size_t>(type)].get());
    }
    return std::make_unique<GraphAllocator>(ids, profile);
}

namespace {

// needs_realloc's per-tensor question, with the numbers: does the reserved place still hold it?
std::string outgrown(const GraphAllocator& allocator, const Tensor& tensor, const TensorAlloc& alloc) {
    if (tensor.data != nullptr || tensor.view_src != nullptr) {
        return {};
    }
    if (alloc.buffer_id < 0) {
        return tensor.name + " had no place in the reserved plan (it had memory from outside then) and needs one now";
    }
    const std::size_t size = allocator.buffer_type(alloc.buffer_id).alloc_size(tensor);
    if (size <= alloc.size_max) {
        return {};
    }
    return tensor.name + " needs " + std::to_string(size) + " bytes, and the reserved plan holds " +
           std::to_string(alloc.size_max) + " for it";
}


} // namespace

PlanRecord record_plan(const WorkingGraph& planned, const GraphAllocator& allocator, bool reserved, bool allocated) {
    PlanRecord plan;
    plan.source = gallocsim_source(allocator.profile());  // conform reads it back as that profile
    plan.reserve = reserved;
    plan.alloc_graph = allocated;
    for (int id = 0; id < allocator.buffer_count(); ++id) {
        plan.buffer_sizes.push_back(allocator.buffer_size(id));
        plan.chunk_sizes.push_back(allocator.chunk_sizes(id));
    }
    for (const Tensor& tensor : planned.context.tensors()) {
        if (auto place = allocator.locate(tensor)) {
            plan.tensors.push_back({tensor_id(tensor), Placement{place->buffer_id, place->chunk, place->offset}});
        }
    }
    return plan;
}

PlanRun prepare_plan(const GraphFile& file, const AllocatorProfile& profile) {
    PlanRun run;
    run.types = make_buffer_types(file);
    run.planned = working_copy(file);
    run.allocator = make_allocator(file, run.types, profile);
    run.sizes_only = sizes_only_reason(file);
    return run;
}

PlanRun prepare_plan_again(const GraphFile& file, PlanRun earlier, const AllocatorProfile& profile) {
    earlier.allocator.reset();  // its buffers go before the addresses into them are put back
    PlanRun run;
    run.types = make_buffer_types(file);
    run.planned = std::move(earlier.planned);
    run.planned.reset_addresses(file);
    run.allocator = make_allocator(file, run.types, profile);
    run.sizes_only = sizes_only_reason(file);
    return run;
}

void carry_out_plan(PlanRun& run, AllocationObserver* observer) {
    WorkingGraph& planned = run.planned;
    run.allocator->set_observer(observer);
    const bool reserved = run.allocator->reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids);
    if (!reserved) {
        run.error = run.allocator->last_error();
    }
    const bool allocated = reserved && run.sizes_only.empty() && run.allocator->alloc_graph(planned.graph);
    if (reserved && !allocated) {
        run.error = run.sizes_only.empty() ? run.allocator->last_error() : run.sizes_only;
    }
    run.allocator->set_observer(nullptr);
    run.plan = record_plan(planned, *run.allocator, reserved, allocated);
}

PlanRun run_plan(const GraphFile& file, AllocationObserver* observer, const AllocatorProfile& profile) {
    PlanRun run = prepare_plan(file, profile);
    carry_out_plan(run, observer);
    return run;
}


std::string realloc_reason(const GraphAllocator& allocator, const Graph& graph) {
    const auto nodes = allocator.node_allocs();
    const auto leafs = allocator.leaf_allocs();
    if (nodes.size() != graph.nodes.size()) {
        return "the graph has " + counted(graph.nodes.size(), "node") + ", the reserved plan " +
               counted(nodes.size(), "node");
    }
    if (leafs.size() != graph.leafs.size()) {
        return "the graph has " + counted(graph.leafs.size(), "leaf") + ", the reserved plan " +
               counted(leafs.size(), "leaf");
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const Tensor& node = *graph.nodes[i];
        if (std::string why = outgrown(allocator, node, nodes[i].dst); !why.empty()) {
            return "node " + why;
        }
        for (std::size_t j = 0; j < node.src.size(); ++j) {
            if (node.src[j] == nullptr) {
                continue;
            }
            if (std::string why = outgrown(allocator, *node.src[j], allocator.source_alloc(i, static_cast<int>(j))); !why.empty()) {
                return "source " + why + " (as read by " + node.name + ")";
            }
        }
    }
    return {};
}

ReservedPlanRun run_plan_after_reserve(const GraphFile& reserved, const GraphFile& file, const AllocatorProfile& profile) {
    if (reserved.buffer_types != file.buffer_types || reserved.buffers != file.buffers) {
        throw GraphFileError("'" + reserved.name + "' and '" + file.name +
                             "' have different buffer types or buffer ids; one allocator cannot serve both");
    }
    ReservedPlanRun result;
    result.reserved = working_copy(reserved);
    result.run = prepare_plan(file, profile);
    PlanRun& run = result.run;
    const WorkingGraph& first = result.reserved;
    if (!run.allocator->reserve_n(first.graph, first.node_buffer_ids, first.leaf_buffer_ids)) {
        run.error = run.allocator->last_error();
        run.plan = record_plan(run.planned, *run.allocator, false, false);
        return result;
    }
    for (int id = 0; id < run.allocator->buffer_count(); ++id) {
        result.reserved_sizes.push_back(run.allocator->buffer_size(id));
    }
    result.needed_realloc = run.allocator->needs_realloc(run.planned.graph);
    if (result.needed_realloc) {
        result.realloc_reason = realloc_reason(*run.allocator, run.planned.graph);
    }
    const bool allocated = run.allocator->alloc_graph(run.planned.graph);
    if (!allocated) {
        run.error = run.allocator->last_error();
    }
    run.plan = record_plan(run.planned, *run.allocator, true, allocated);
    return result;
}

std::string sizes_only_reason(const GraphFile& file) {
    for (const Tensor& tensor : file.context.tensors()) {
        if (file.is_on_external_buffer(tensor)) {
            return "tensor " + tensor.name + " is in a buffer without data (data: \"buffer\": a no_alloc load, as "
                   "llama.cpp's fit pass makes), so ggml only sizes this graph (ggml_gallocr_reserve_n_size): "
                   "alloc_graph would abort on it";
        }
    }
    return {};
}

MeasuredPlan measure_plan(const GraphFile& file, const AllocatorProfile& profile) {
    PlanRun run = prepare_plan(file, profile);
    const WorkingGraph& planned = run.planned;
    MeasuredPlan measured;
    measured.sizes = run.allocator->reserve_n_size(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids);
    if (!measured.sizes) {
        measured.error = run.allocator->last_error();
    }
    for (int id = 0; id < run.allocator->buffer_count(); ++id) {
        measured.canonical_ids.push_back(run.allocator->canonical_buffer_id(id));
    }
    return measured;
}

namespace {

template <typename T>
std::string show(const std::vector<T>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += (i ? ", " : "") + std::to_string(values[i]);
    }
    return out + "]";
}

std::string show(const std::vector<std::vector<std::size_t>>& rows) {
    std::string out = "[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out += (i ? ", " : "") + show(rows[i]);
    }
    return out + "]";
}

} // namespace

std::optional<std::string> compare_values(const std::string& what, bool expected, bool actual) {
    auto yes_no = [](bool b) { return std::string(b ? "true" : "false"); };
    if (expected == actual) {
        return std::nullopt;
    }
    return what + ": expected " + yes_no(expected) + ", got " + yes_no(actual);
}

std::optional<std::string> compare_values(const std::string& what, const std::vector<std::size_t>& expected,
                                          const std::vector<std::size_t>& actual) {
    if (expected == actual) {
        return std::nullopt;
    }
    return what + ": expected " + show(expected) + ", got " + show(actual);
}

namespace {

std::string no_memory_text(const std::string& name, const Placement& want) {
    return "tensor '" + name + "': expected at buffer " + std::to_string(want.buffer_id) + ", chunk " +
           std::to_string(want.chunk) + ", offset " + std::to_string(want.offset) + ", but it got no memory";
}

} // namespace

std::vector<std::string> compare_plans(const PlanRecord& expected, const PlanRecord& actual, const Context& tensors,
                                       std::span<const NamedPlacement> unknown) {
    std::vector<std::string> differences;
    auto differ = [&](const std::string& what, const std::string& want, const std::string& got) {
        differences.push_back(what + ": expected " + want + ", got " + got);
    };
    for (auto difference : {compare_values("reserve", expected.reserve, actual.reserve),
                            compare_values("alloc_graph", expected.alloc_graph, actual.alloc_graph),
                            compare_values("buffer_sizes", expected.buffer_sizes, actual.buffer_sizes)}) {
        if (difference) {
            differences.push_back(std::move(*difference));
        }
    }
    if (expected.chunk_sizes != actual.chunk_sizes) {
        differ("chunk_sizes", show(expected.chunk_sizes), show(actual.chunk_sizes));
    }
    // By id: where `actual` placed each tensor; an entry is cleared once compared.
    std::vector<const Placement*> got(tensors.size(), nullptr);
    for (const auto& [tensor, have] : actual.tensors) {
        got.at(static_cast<std::size_t>(tensor)) = &have;
    }
    for (const auto& [tensor, want] : expected.tensors) {
        const Placement*& have = got.at(static_cast<std::size_t>(tensor));
        const std::string& name = tensor_name(tensors, tensor);
        if (have == nullptr) {
            differences.push_back(no_memory_text(name, want));
            continue;
        }
        const std::string what = "tensor '" + name + "'";
        if (want.buffer_id != have->buffer_id) {
            differ(what + " buffer", std::to_string(want.buffer_id), std::to_string(have->buffer_id));
        }
        if (want.chunk != have->chunk) {
            differ(what + " chunk", std::to_string(want.chunk), std::to_string(have->chunk));
        }
        if (want.offset != have->offset) {
            differ(what + " offset", std::to_string(want.offset), std::to_string(have->offset));
        }
        have = nullptr;
    }
    for (const auto& [name, want] : unknown) {
        differences.push_back(no_memory_text(name, want));
    }
    // What only `actual` placed, in the order of the names (the order these lines have always had).
    std::vector<TensorId> unexpected;
    for (const auto& placed : actual.tensors) {
        if (got[static_cast<std::size_t>(placed.tensor)] != nullptr) {
            unexpected.push_back(placed.tensor);
        }
    }
    std::ranges::stable_sort(unexpected, {}, [&](TensorId tensor) -> const std::string& { return tensor_name(tensors, tensor); });
    for (const TensorId tensor : unexpected) {
        const Placement& have = *got[static_cast<std::size_t>(tensor)];
        differences.push_back("tensor '" + tensor_name(tensors, tensor) + "': expected no memory, got buffer " +
                              std::to_string(have.buffer_id) + ", chunk " + std::to_string(have.chunk) + ", offset " +
                              std::to_string(have.offset));
    }
    return differences;
}

} // namespace gallocsim
