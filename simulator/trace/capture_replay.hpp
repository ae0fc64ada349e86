#pragma once
// Replays a captured session call by call on one GraphAllocator, exactly as the program
// made the calls (reserve/reserve_n -> reserve_n, reserve_n_size, alloc_graph; an alloc_graph
// after a reserve keeps the reserved plan unless needs_realloc says otherwise), and compares
// every observed value: what each call returned, whether alloc_graph re-planned, the sizes
// reserve_n_size wrote, every chunk and buffer size, and where every tensor went.

#include "reference/graph_allocator.hpp"
#include "reference/profile.hpp"
#include "reference/version_map.hpp"
#include "simulator/model/capture_session.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

// The allocator a session's calls run on, with buffer types built from the session header.
struct SessionAllocator {
    std::vector<std::unique_ptr<ConfigurableBufferType>> types;
    std::unique_ptr<GraphAllocator> allocator;
};
// What the session's program said about its ggml, for the version map.
ProgramGgml program_ggml(const CaptureSession& session);
// The allocator version the session's program ran, by the version map: its profile, whether
// the evidence allows no other, and the one-line note when it is inferred; no profile when
// the program said nothing the map can use.
VersionMatch session_profile(const CaptureSession& session);
// The one place a session's allocator is made.
SessionAllocator make_session_allocator(const CaptureSession& session, const AllocatorProfile& profile);

enum class CallOutcome {
    passed,        // every observed value reproduced
    failed,        // a value differs, or the call's graph could not be loaded
    not_replayed,  // a call before it could not be replayed, or its alloc-size rule is unknown
};

struct CallReplay {
    std::size_t index = 0;  // into session.calls
    CallOutcome outcome = CallOutcome::passed;
    std::vector<std::string> differences;  // one line each, as compare_plans writes them
    std::string error;                     // the allocator's error, or why the call was not replayed
    bool replanned = false;                // the call planned (every reserve; alloc_graph when needs_realloc said so)
    std::size_t plan_call = 0;             // the call whose plan this call used (itself when it planned)
};

// Steps through a session's calls on one allocator. Each call's graph is loaded and copied
// into a working graph, kept until the next call is done: the allocator keeps pointers to the
// last planned graph's tensors (its planning records) between calls.
class SessionReplayer {
public:
    SessionReplayer(const CaptureSession& session, const AllocatorProfile& profile);

    bool done() const { return next_ >= session_->calls.size() || stopped_; }
    // A call could not be replayed (its graph, or its alloc-size rule): the rest cannot be either.
    bool stopped() const { return stopped_; }
    std::size_t next_call() const { return next_; }
    // Replays the next call and compares what it observed. `graph`: run the call on this
    // working copy of a graph instead of loading the call's own (the caller keeps it alive
    // until the next call is done); `observer` sees the call's events. After a call that
    // cannot be replayed, done() is true.
    CallReplay replay_next(AllocationObserver* observer = nullptr, WorkingGraph* graph = nullptr);
    // Marks the calls not yet replayed (after a stop) as not replayed, with the reason.
    std::vector<CallReplay> remaining() const;

    const GraphAllocator& allocator() const { return *allocator_.allocator; }

private:
    CallReplay run(const CapturedCall& call, WorkingGraph& graph, AllocationObserver* observer);

    const CaptureSession* session_;
    SessionAllocator allocator_;
    std::size_t next_ = 0;
    bool stopped_ = false;
    std::string stop_reason_;
    std::size_t plan_call_ = 0;
    std::optional<WorkingGraph> previous_graph_;  // alive until the next call is done
};

// Replays every call of the session in order.
std::vector<CallReplay> replay_session(const CaptureSession& session, const AllocatorProfile& profile);

// One call as the program saw it, recorded for stepping, always on the call's own graph:
// the calls before it replayed untraced. An alloc_graph that kept the plan of an earlier
// call on the same graph file gets that planning call recorded too, then its placement; one
// that kept a plan made on another graph file (a reserved worst case) gets its placement
// alone (the tensors at the places the plan holds for their positions: the trace has no
// plan, see timeline.hpp), and the note names the call that planned.
struct CallTrace {
    GraphFile file;  // the call's graph, which the trace shows (as loaded: the run works on a copy)
    Trace trace;
    std::size_t plan_call = 0;  // the call whose plan this call used (itself when it planned)
    std::string note;           // "alloc_graph reused the plan of call 2 (reserve_n)", ...
};
// Throws GraphFileError when the call cannot be reached (a call before it cannot be replayed).
CallTrace trace_call(const CaptureSession& session, std::size_t index, const AllocatorProfile& profile);

} // namespace gallocsim
