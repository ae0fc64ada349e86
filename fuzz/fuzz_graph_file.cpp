// libFuzzer harness (a): the graph-file loader. Any bytes give either a graph or a
// GraphFileError; never a crash, a leak or another exception. A graph that loads must
// save and load back to the same text, and plan with every address in bounds and the
// free lists well formed.
#include "fuzz/free_list.hpp"
#include "fuzz/harness.hpp"
#include "fuzz/independent_checks.hpp"
#include "simulator/model/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace gallocsim;
using namespace gallocsim::fuzz;

namespace {

// Planning a loaded graph the way `gallocsim plan` does, with the free-list checker watching.
void plan_loaded(const GraphFile& file) {
    WorkingGraph planned = working_copy(file);
    const auto types = make_buffer_types(file);
    std::vector<BufferType*> ids;
    for (int type : file.buffers) {
        ids.push_back(types[static_cast<std::size_t>(type)].get());
    }
    GraphAllocator allocator(ids);
    FreeListChecker checker(allocator);
    allocator.set_observer(&checker);
    const bool reserved = allocator.reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids);
    require_none(checker.problems(), "free lists after reserve_n");
    require(reserved || !allocator.last_error().empty(), "reserve_n failed without saying why");
    if (reserved && allocator.alloc_graph(planned.graph)) {
        require_none(bounds_violations(file, planned.graph, allocator), "addresses after alloc_graph");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    GraphFile file;
    try {
        file = parse_graph_file(text, "input");
    } catch (const GraphFileError& error) {
        require(std::string_view(error.what()).starts_with("input: "), "a loader error that does not name the file");
        return 0;
    }
    const std::string saved = graph_file_to_json(file);
    try {
        require(graph_file_to_json(parse_graph_file(saved, "saved")) == saved, "save, load, save changed the text");
    } catch (const GraphFileError& error) {
        finding(std::string("a loaded graph saved as a file the loader rejects: ") + error.what());
    }
    plan_loaded(file);
    return 0;
}
