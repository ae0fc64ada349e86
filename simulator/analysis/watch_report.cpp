#include "simulator/analysis/watch_report.hpp"

#include "simulator/model/amount_text.hpp"

#include <string_view>

namespace gallocsim {

namespace {

std::string short_function(CapturedFunction function) {
    std::string_view name = captured_function_name(function);
    name.remove_prefix(std::string_view("ggml_gallocr_").size());
    return std::string(name);
}

// "CPU 308.01 MiB", "CUDA0 1.00 GiB, CPU 64 B": each buffer id by its type's name.
std::string buffer_sizes_text(const CaptureSession& session, const CapturedCall& call) {
    std::string text;
    for (std::size_t id = 0; id < call.buffer_sizes.size(); ++id) {
        const std::size_t type = id < session.buffers.size() ? static_cast<std::size_t>(session.buffers[id]) : 0;
        const std::string name = type < session.buffer_types.size() ? session.buffer_types[type].name : "buffer";
        text += (id == 0 ? "" : ", ") + name + " " + binary_size(call.buffer_sizes[id]);
    }
    return text.empty() ? "no buffer" : text;
}

std::string verdict_text(const CallReplay& replay) {
    switch (replay.outcome) {
    case CallOutcome::passed: return "pass";
    case CallOutcome::not_replayed: return "not replayed: " + replay.error;
    case CallOutcome::failed: break;
    }
    const std::string first = !replay.error.empty() ? replay.error
                              : !replay.differences.empty() ? replay.differences.front()
                                                            : "differs";
    const std::size_t more = replay.differences.size() - (replay.error.empty() && !replay.differences.empty() ? 1 : 0);
    return "FAIL: " + first + (more > 0 ? " (and " + counted(more, "more difference") + ")" : "");
}

} // namespace

std::string watched_call_line(const CaptureSession& session, const CallReplay& replay) {
    std::string line = "allocator " + std::to_string(session.allocator) + " call " + std::to_string(replay.index) + ": ";
    if (replay.index < session.calls.size()) {
        const CapturedCall& call = session.calls[replay.index];
        line += short_function(call.function) + ", " + counted(call.nodes, "node") + ", " + buffer_sizes_text(session, call) + ": ";
    }
    return line + verdict_text(replay);
}

std::string watched_session_line(const CaptureSession& session) {
    std::string types;
    for (const BufferTypeSpec& type : session.buffer_types) {
        types += (types.empty() ? "" : ", ") + type.name;
    }
    return "allocator " + std::to_string(session.allocator) + " (" + session.label() + ", " + session.created_by +
           "): buffer " + (session.buffer_types.size() == 1 ? "type " : "types ") + types;
}

void WatchTally::add(const CallReplay& replay) {
    switch (replay.outcome) {
    case CallOutcome::passed: ++passed; break;
    case CallOutcome::failed: ++failed; break;
    case CallOutcome::not_replayed: ++skipped; break;
    }
}

std::string WatchTally::line() const {
    return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed" +
           (skipped > 0 ? ", " + std::to_string(skipped) + " skipped" : "");
}

} // namespace gallocsim
