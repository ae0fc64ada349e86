#include "fuzz/property_support.hpp"

namespace gallocsim::fuzz {

Generated generate(RecipeLimits limits) {
    Generated g{build_graph(*recipes(limits)), {}};
    g.json = graph_file_to_json(g.file);
    return g;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) {
        out += "\n  " + line;
    }
    return out;
}

bool has_empty_chunk(const GraphAllocator& allocator) {
    for (int id = 0; id < allocator.buffer_count(); ++id) {
        for (const Chunk& chunk : allocator.allocator(id).chunks()) {
            if (chunk.high_water == 0) {
                return true;
            }
        }
    }
    return false;
}

bool planned(const PlanRun& run) {
    RC_ASSERT(run.plan.reserve);
    if (!run.plan.alloc_graph) {
        RC_ASSERT(has_empty_chunk(*run.allocator));
        return false;
    }
    return true;
}

std::vector<BufferType*> buffer_ids(const GraphFile& file, const std::vector<std::unique_ptr<ConfigurableBufferType>>& types) {
    std::vector<BufferType*> ids;
    for (int type : file.buffers) {
        ids.push_back(types[static_cast<std::size_t>(type)].get());
    }
    return ids;
}

} // namespace gallocsim::fuzz
