#pragma once
// Which call of a capture a command plans when it is given the capture folder instead of a
// graph file (plan, why, stats, compare, render, trace, walk): by default the call that set the
// largest buffer, the one a user asking "why is my compute buffer this big" means; `--call
// SESSION:CALL` names another. Errors name the capture and the calls it has.

#include "simulator/model/capture_session.hpp"

#include <string>
#include <string_view>

namespace gallocsim {

struct PickedCall {
    const CaptureSession* session = nullptr;
    const CapturedCall* call = nullptr;
    bool by_default = true;  // the call that set the largest buffer; false: named by --call
};

// The first call, over every session in allocator order, after which one of its buffers was as
// large as the largest any call left (a buffer only grows, so that call planned it). Throws
// GraphFileError when no readable session has a call that allocated a buffer.
PickedCall call_that_set_the_largest_buffer(const Capture& capture);

// "SESSION:CALL": the allocator number of a session (session-0.jsonl is 0) and the `call`
// number in it. Throws GraphFileError for text of another shape or a call the capture lacks.
PickedCall call_named(const Capture& capture, std::string_view session_colon_call);

// "session 0, call 3 (ggml_gallocr_reserve_n), which set the largest buffer: 308.01 MiB"
std::string picked_call_text(const PickedCall& picked);

// The buffer sizes a call left, in words: "buffer 0: 308.01 MiB", "buffers 0: 1.00 MiB, 1: 2.00 KiB".
std::string call_buffer_sizes_text(const CapturedCall& call);

} // namespace gallocsim
