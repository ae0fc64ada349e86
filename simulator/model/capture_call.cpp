#include "simulator/model/capture_call.hpp"

#include "simulator/model/amount_text.hpp"
#include "simulator/model/graph_file.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

namespace gallocsim {

namespace {

std::size_t largest_buffer(const CapturedCall& call) {
    return call.buffer_sizes.empty() ? 0 : std::ranges::max(call.buffer_sizes);
}

// "0:1, 0:2, 0:5" (at most a dozen, then "…"): what --call may name.
std::string calls_listed(const Capture& capture) {
    std::string text;
    std::size_t listed = 0;
    for (const CaptureSession& session : capture.sessions) {
        for (const CapturedCall& call : session.calls) {
            if (listed++ == 12) {
                return text + ", \u2026";
            }
            text += (text.empty() ? "" : ", ") + std::to_string(session.allocator) + ":" + std::to_string(call.number);
        }
    }
    return text.empty() ? "none" : text;
}

std::optional<int> whole_number(std::string_view text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc{} && end == text.data() + text.size() && !text.empty() && value >= 0 ? std::optional(value)
                                                                                                   : std::nullopt;
}

} // namespace

PickedCall call_that_set_the_largest_buffer(const Capture& capture) {
    PickedCall best;
    std::size_t best_size = 0;
    for (const CaptureSession& session : capture.sessions) {
        for (const CapturedCall& call : session.calls) {
            if (largest_buffer(call) > best_size) {
                best = {&session, &call, true};
                best_size = largest_buffer(call);
            }
        }
    }
    if (best.call == nullptr) {
        throw GraphFileError(capture.folder.string() + ": no call of the capture allocated a buffer, so none set its size; "
                             "--call SESSION:CALL picks one (calls: " + calls_listed(capture) + ")");
    }
    return best;
}

PickedCall call_named(const Capture& capture, std::string_view session_colon_call) {
    const auto colon = session_colon_call.find(':');
    const auto session_number = whole_number(session_colon_call.substr(0, colon));
    const auto call_number = colon == std::string_view::npos ? std::nullopt : whole_number(session_colon_call.substr(colon + 1));
    if (!session_number || !call_number) {
        throw GraphFileError(capture.folder.string() + ": --call " + std::string(session_colon_call) +
                             ": not SESSION:CALL (the allocator number of a session-N.jsonl and a call number in it, as 0:3)");
    }
    for (const CaptureSession& session : capture.sessions) {
        for (const CapturedCall& call : session.calls) {
            if (session.allocator == *session_number && call.number == *call_number) {
                return {&session, &call, false};
            }
        }
    }
    throw GraphFileError(capture.folder.string() + ": --call " + std::string(session_colon_call) +
                         ": the capture has no such call (calls: " + calls_listed(capture) + ")");
}

std::string call_buffer_sizes_text(const CapturedCall& call) {
    if (call.buffer_sizes.empty()) {
        return "no buffer";
    }
    if (call.buffer_sizes.size() == 1) {
        return "buffer 0: " + binary_size(call.buffer_sizes[0]);
    }
    std::string text = "buffers ";
    for (std::size_t id = 0; id < call.buffer_sizes.size(); ++id) {
        text += (id == 0 ? "" : ", ") + std::to_string(id) + ": " + binary_size(call.buffer_sizes[id]);
    }
    return text;
}

std::string picked_call_text(const PickedCall& picked) {
    std::string text = "session " + std::to_string(picked.session->allocator) + ", call " + std::to_string(picked.call->number) +
                       " (" + std::string(captured_function_name(picked.call->function)) + ")";
    if (picked.by_default) {
        return text + ", which set the largest buffer: " + binary_size(largest_buffer(*picked.call));
    }
    return text + ", as --call asks; after it, " + call_buffer_sizes_text(*picked.call);
}

} // namespace gallocsim
