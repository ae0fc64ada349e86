#pragma once
// A capture folder followed while its program writes it: each session file read as it grows
// (only the lines added since the last look) and each new call replayed on the spot by the
// session's own replayer, which has replayed the calls before it; so a call costs one replay,
// and the verdicts are conform's (simulator/trace/capture_replay.hpp).

#include "reference/profile.hpp"
#include "simulator/model/capture_session.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim::live {

// One call read and replayed.
struct WatchedCall {
    std::size_t session = 0;  // index into LiveCapture::sessions()
    CallReplay replay;        // replay.index: the call's index in its session
};

// A session being followed: what was read of it so far and its replayer.
struct FollowedSession {
    CaptureSession session;
    const AllocatorProfile* profile = nullptr;  // none: the version map cannot place its ggml
    std::string profile_note;                   // how the profile was chosen, or why there is none
    std::unique_ptr<SessionReplayer> replayer;
    std::size_t bytes_read = 0;  // of its file, up to the end of its last whole line
    int lines_read = 0;
    std::size_t calls_told = 0;  // without a replayer: calls reported as not replayed
    std::string problem;  // the file could not be read on: nothing more of it is replayed
};

class LiveCapture {
public:
    // `forced`: the allocator version every session is replayed under (else each session's,
    // from the version map).
    LiveCapture(std::filesystem::path folder, const AllocatorProfile* forced);

    // Reads what was added to every session file since the last look and replays the new
    // calls, in session then call order. Unreadable lines stop that session (its problem).
    std::vector<WatchedCall> catch_up();
    const std::vector<std::unique_ptr<FollowedSession>>& sessions() const { return sessions_; }
    // The session of that file name, if it was read, and its index into sessions().
    const FollowedSession* find(const std::string& file_name) const;
    std::optional<std::size_t> index_of(const std::string& file_name) const;
    const std::filesystem::path& folder() const { return folder_; }

private:
    std::optional<std::size_t> follow(const std::filesystem::path& file);
    void read_new_lines(FollowedSession& followed);
    void replay_new_calls(std::size_t index, std::vector<WatchedCall>& watched);

    std::filesystem::path folder_;
    const AllocatorProfile* forced_;
    std::vector<std::unique_ptr<FollowedSession>> sessions_;
};

// A call the program is about to make: its graph as the capture wrote it before ggml planned.
struct PendingCall {
    CapturedFunction function = CapturedFunction::reserve_n;
    std::string graph;  // relative to the capture folder
    std::size_t nodes = 0;
    std::size_t leafs = 0;
};
// The function's name in a "planning" message; none for a name the capture never sends.
std::optional<CapturedFunction> captured_function_named(std::string_view name);

// The plan gallocsim predicts for the pending call: the session so far plus that call, traced
// as `trace_call` traces any call. Throws GraphFileError when it cannot be traced.
CallTrace trace_pending_call(const CaptureSession& session, const PendingCall& pending, const AllocatorProfile& profile);
// Each buffer's size after the pending call, as gallocsim predicts it (the session so far
// replayed, then the call). Throws GraphFileError when a call cannot be replayed.
std::vector<std::size_t> predicted_buffer_sizes(const CaptureSession& session, const PendingCall& pending,
                                                const AllocatorProfile& profile);

} // namespace gallocsim::live
