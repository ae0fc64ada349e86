#pragma once
// The capture library's end of a live watcher (`gallocsim watch`, `gallocsim-gui --run`).
// When $GALLOCSIM_LIVE names a Unix socket, the capture tells the watcher of every session
// and call as the program makes it, and, when the watcher asks, waits before ggml plans a
// call (or after a call failed) until the watcher lets it go. The protocol, JSON Lines both
// ways, is in docs/architecture.md ("Live: the capture and its watcher").
//
// The program never hangs on a watcher that is gone: one that does not answer the greeting
// within kGreetingTimeout, or whose end of the socket closes (it quit or crashed), is let
// go of, and the program goes on unwatched, still captured to the folder. Without the
// variable nothing here runs.

#include <chrono>
#include <optional>
#include <string>

namespace gallocsim::capture {

// A planning call about to be made, as the watcher is told of it.
struct PlanningCall {
    std::string session;   // session-N.jsonl
    int call = 0;          // the number the call's line will have
    std::string function;  // ggml_gallocr_alloc_graph, ...
    std::string graph;     // the call's graph as it stands before ggml plans it (relative to the folder)
    int nodes = 0;
    int leafs = 0;
};

class LiveLink {
public:
    // Long enough for a watcher that is starting up or busy replaying; short enough that a
    // program whose watcher is stuck goes on soon.
    static constexpr std::chrono::milliseconds kGreetingTimeout{10000};

    LiveLink() = default;
    LiveLink(const LiveLink&) = delete;
    LiveLink& operator=(const LiveLink&) = delete;
    ~LiveLink();

    // Connects to $GALLOCSIM_LIVE once, the first time it is called; no variable, no link.
    void connect_once(const std::string& capture_folder);
    bool connected() const { return fd_ >= 0; }

    void session_opened(const std::string& session, int allocator);
    // Whether the watcher wants each call shown before ggml plans it (what it sent meanwhile counts).
    bool stops_before_calls();
    // Tells the watcher ggml is about to plan the call; returns when the watcher lets it go.
    void before_call(const PlanningCall& call);
    // Tells the watcher the call's line is in its session file; after a call that failed,
    // waits for the watcher when it stops at failures. `returned`: none for reserve_n_size.
    void after_call(const std::string& session, int call, std::optional<bool> returned);

private:
    void send(const std::string& line);
    // Reads the watcher's lines: waits up to `timeout` (none: for ever) for the first;
    // returns whether one came. `until_go`: returns only at a "go".
    bool receive(std::optional<std::chrono::milliseconds> timeout, bool until_go);
    bool apply(const std::string& line);  // true for a "go"
    void let_go(const char* why);

    int fd_ = -1;
    bool tried_ = false;
    bool stop_before_ = false;
    bool stop_after_failure_ = false;
    std::string pending_;  // a line read in part
};

} // namespace gallocsim::capture
