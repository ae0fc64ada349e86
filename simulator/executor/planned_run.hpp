#pragma once
// Plan, run, compare: a graph planned by gallocr or by the oracle, executed on a backend,
// with every tensor's memory put back afterwards so the same graph can be planned again.
// The property the executor exists for:
//   plan_and_run(g, Planner::gallocr, e).result.outputs == plan_and_run(g, Planner::oracle, e).result.outputs
// bit for bit, on the same backend (compare_values with no tolerance).

#include "reference/buffer.hpp"
#include "simulator/executor/executor.hpp"
#include "simulator/model/graph_file.hpp"

#include <span>
#include <string_view>

namespace gallocsim {

enum class Planner { gallocr, oracle };

struct PlannedRun {
    ExecutionResult result;          // result.error also says why planning failed
    std::size_t planned_bytes = 0;   // the bytes of the buffers the plan allocated
};

// Plans in buffers of `types`, one per buffer id as GraphAllocator takes them, with the
// buffer ids reserve_n takes (empty: all 0). The oracle puts everything in types[0].
PlannedRun plan_and_run(Graph& graph, std::span<BufferType* const> types, std::span<const int> node_buffer_ids,
                        std::span<const int> leaf_buffer_ids, Planner planner, Executor& executor,
                        const ExecutionOptions& options = {});

// One buffer of the executor's backend memory (make_buffer_type).
PlannedRun plan_and_run(Graph& graph, Planner planner, Executor& executor, const ExecutionOptions& options = {});

// A graph file with its buffer types and ids, planned and run on a working copy of its
// tensors (the file is not touched). On the CPU each buffer type becomes real host memory
// with the type's alignment, max size and alloc-size rule, so gallocr's plan is the one the
// file describes; on CUDA each becomes a CudaBufferType.
PlannedRun plan_and_run(const GraphFile& file, Planner planner, Executor& executor, const ExecutionOptions& options = {});

} // namespace gallocsim
