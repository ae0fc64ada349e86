// libFuzzer harness (d): the capture session reader (docs/graph-format.md, sessions). Any
// bytes as a session-*.jsonl file give either a session or a GraphFileError that names the
// file and the line; never a crash, a leak or another exception. A session that reads has
// its calls numbered in order on increasing lines, one size per buffer id in each, and its
// calls' graphs (looked up in the seed capture of tests/data/captures) load or are refused
// with an error naming the session file.
#include "fuzz/harness.hpp"
#include "simulator/model/capture_session.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace gallocsim;
using namespace gallocsim::fuzz;

namespace {

const std::filesystem::path kFile = "input/session-0.jsonl";

void check_session(const CaptureSession& session) {
    int line = 1;
    for (std::size_t i = 0; i < session.calls.size(); ++i) {
        const CapturedCall& call = session.calls[i];
        require(call.number == static_cast<int>(i), "calls out of order");
        require(call.line > line, "calls on lines out of order");
        line = call.line;
        require(call.buffer_sizes.size() == session.buffers.size(), "a call without one size per buffer id");
        require(call.chunk_sizes.size() == session.buffers.size(), "a call without one chunk list per buffer id");
        require(call.alloc_size.size() == session.buffer_types.size(), "a call without one alloc_size per buffer type");
        try {
            const GraphFile graph = load_call_graph(session, call);
            require(graph.graph.nodes.size() == call.nodes && graph.graph.leafs.size() == call.leafs,
                    "a call's graph loaded with other counts than the call's");
        } catch (const GraphFileError& error) {
            require(std::string_view(error.what()).starts_with(kFile.string()), "a call's graph error that does not name the session");
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        check_session(parse_capture_session(text, kFile, GALLOCSIM_SEED_CAPTURE));
    } catch (const GraphFileError& error) {
        require(std::string_view(error.what()).starts_with(kFile.string() + ": "), "a reader error that does not name the file");
    }
    return 0;
}
