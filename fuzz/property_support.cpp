#include "fuzz/property_support.hpp"

#include "simulator/model/capture_session.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <set>

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

std::filesystem::path golden_corpus() {
    return std::filesystem::path(GALLOCSIM_SHARED_DIR) / "golden";
}

void for_each_golden_graph(const CorpusVisit& visit) {
    for (const auto& entry : std::filesystem::directory_iterator(golden_corpus())) {
        if (entry.path().extension() == ".json") {
            const GraphFile file = load_graph_file(entry.path());
            const AllocatorProfile* profile = file.expected ? profile_for_source(file.expected->source) : nullptr;
            visit(entry.path().filename().string(), file, profile ? *profile : newest_profile());
        }
    }
}

void for_each_captured_graph(const CorpusVisit& visit) {
    for (const auto& folder : std::filesystem::directory_iterator(GALLOCSIM_CAPTURES_DIR)) {
        if (!folder.is_directory()) {
            continue;
        }
        const Capture capture = load_capture(folder.path());
        for (const CaptureSession& session : capture.sessions) {
            const VersionMatch match = session_profile(session);
            std::set<std::string> seen;
            for (const CapturedCall& call : session.calls) {
                if (seen.insert(call.graph).second) {
                    visit((folder.path().filename() / call.graph).string(), load_call_graph(session, call),
                          match.profile ? *match.profile : newest_profile());
                }
            }
        }
    }
}

} // namespace gallocsim::fuzz
