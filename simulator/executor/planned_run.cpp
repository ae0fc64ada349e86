#include "simulator/executor/planned_run.hpp"

#include "reference/graph_allocator.hpp"
#include "simulator/executor/graph_tensors.hpp"
#include "simulator/executor/oracle.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/model/working_graph.hpp"

#include <memory>
#include <vector>

namespace gallocsim {
namespace {

PlannedRun failed(std::string error) {
    PlannedRun run;
    run.result.error = std::move(error);
    return run;
}

} // namespace

PlannedRun plan_and_run(Graph& graph, std::span<BufferType* const> types, std::span<const int> node_buffer_ids,
                        std::span<const int> leaf_buffer_ids, Planner planner, Executor& executor,
                        const ExecutionOptions& options) {
    if (types.empty()) {
        return failed("no buffer type to plan in");
    }
    const std::vector<Tensor*> tensors = graph_tensors(graph);
    const TensorMemoryRestore restore(tensors);  // as the graph was before planning
    PlannedRun run;
    if (planner == Planner::oracle) {
        OracleAllocator oracle(*types[0]);
        if (!oracle.alloc_graph(graph)) {
            return failed("oracle plan: " + oracle.last_error());
        }
        run.planned_bytes = oracle.buffer_size();
        run.result = executor.run(graph, options);
        return run;
    }
    GraphAllocator allocator(types);
    if (!allocator.reserve_n(graph, node_buffer_ids, leaf_buffer_ids) || !allocator.alloc_graph(graph)) {
        return failed("gallocr plan: " + allocator.last_error());
    }
    for (int id = 0; id < allocator.buffer_count(); ++id) {
        run.planned_bytes += allocator.buffer_size(id);
    }
    run.result = executor.run(graph, options);
    return run;
}

PlannedRun plan_and_run(Graph& graph, Planner planner, Executor& executor, const ExecutionOptions& options) {
    const std::unique_ptr<BufferType> type = make_buffer_type(executor.backend());
    if (!type) {
        return failed(backend_unavailable_reason(executor.backend()));
    }
    BufferType* const types[] = {type.get()};
    return plan_and_run(graph, types, {}, {}, planner, executor, options);
}

PlannedRun plan_and_run(const GraphFile& file, Planner planner, Executor& executor, const ExecutionOptions& options) {
    std::vector<std::unique_ptr<BufferType>> owned;
    for (const BufferTypeSpec& spec : file.buffer_types) {
        if (executor.backend() == Backend::cuda) {
            owned.push_back(make_buffer_type(Backend::cuda));
            if (!owned.back()) {
                return failed(backend_unavailable_reason(Backend::cuda));
            }
            continue;
        }
        owned.push_back(std::make_unique<ConfigurableBufferType>(buffer_type_settings(spec, false)));
    }
    std::vector<BufferType*> types;
    for (int index : file.buffers) {
        types.push_back(owned.at(static_cast<std::size_t>(index)).get());
    }
    WorkingGraph copy = working_copy(file);
    return plan_and_run(copy.graph, types, copy.node_buffer_ids, copy.leaf_buffer_ids, planner, executor, options);
}

} // namespace gallocsim
