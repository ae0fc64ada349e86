#pragma once
// Runs the reference allocator on a graph file exactly as the golden corpus was made
// (new_n, reserve_n with the file's buffer ids, alloc_graph) and reports the plan in the
// shape of the file's `expected` section; compares two such plans field by field.

#include "reference/graph_allocator.hpp"
#include "simulator/graph_file.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gallocsim {

// One buffer type per spec of the file; fake base addresses, so no memory is touched.
std::vector<std::unique_ptr<TestBufferType>> make_buffer_types(const GraphFile& file);

struct PlanRun {
    std::vector<std::unique_ptr<TestBufferType>> types;
    std::unique_ptr<GraphAllocator> allocator;
    PlanRecord plan;
    std::string error;  // why reserve or alloc_graph failed, if one did
};

// Clears any memory from a previous run first, so a file can be planned repeatedly.
PlanRun run_plan(GraphFile& file, AllocationObserver* observer = nullptr);

// Builds the record of where alloc_graph put things, from the allocator's state.
PlanRecord record_plan(const GraphFile& file, const GraphAllocator& allocator, bool reserved, bool allocated);

// One line per difference: "tensor 'x': offset expected 32, got 64".
std::vector<std::string> compare_plans(const PlanRecord& expected, const PlanRecord& actual);

} // namespace gallocsim
