// libFuzzer harness (e): every explanation of a graph file's trace against the plan. Any bytes
// that load as a graph are planned by the newest rules, traced and explained; each sentence's
// stated facts are held against the replayed arena and the allocator's final places
// (fuzz/sentence_checks.hpp). A contradiction is a finding.
#include "fuzz/harness.hpp"
#include "fuzz/sentence_checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace gallocsim;
using namespace gallocsim::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    GraphFile file;
    try {
        file = parse_graph_file(text, "input");
    } catch (const GraphFileError&) {
        return 0;  // the loader's own harness (graph_file) checks its errors
    }
    require_none(check_sentences(file, newest_profile()).contradictions, "sentences that contradict the plan");
    return 0;
}
