#pragma once
// What `gallocsim watch` and the GUI's live capture say of a call as the program makes it:
// who made it, what ggml reported after it, and whether gallocsim's own plan of the call
// reproduces it (conform's verdict, made on the spot); and the tally, in conform's form.

#include "simulator/model/capture_session.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <string>

namespace gallocsim {

// "allocator 0 call 3: alloc_graph, 1158 nodes, CPU 308.01 MiB: pass", or ": FAIL: <the first
// difference> (and 2 more)", or ": not replayed: <why>".
std::string watched_call_line(const CaptureSession& session, const CallReplay& replay);
// "allocator 1 (session-1.jsonl, ggml_gallocr_new_n): buffer types CPU, CUDA0".
std::string watched_session_line(const CaptureSession& session);

struct WatchTally {
    int passed = 0;
    int failed = 0;
    int skipped = 0;
    void add(const CallReplay& replay);
    std::string line() const;  // "12 passed, 0 failed" (", 2 skipped" when any were)
};

} // namespace gallocsim
