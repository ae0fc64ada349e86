#include "simulator/live/live_capture.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <system_error>

namespace gallocsim::live {

namespace fs = std::filesystem;

namespace {

// The bytes of `file` from `offset` on, as far as it holds them now.
std::string read_from(const fs::path& file, std::size_t offset) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        return {};
    }
    in.seekg(static_cast<std::streamoff>(offset));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Session files in the order their number says (session-10 after session-9).
std::vector<fs::path> session_files(const fs::path& folder) {
    std::vector<std::pair<long, fs::path>> numbered;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("session-") && entry.path().extension() == ".jsonl") {
            numbered.emplace_back(std::strtol(name.c_str() + 8, nullptr, 10), entry.path());
        }
    }
    std::ranges::sort(numbered);
    std::vector<fs::path> files;
    for (auto& [number, path] : numbered) {
        files.push_back(std::move(path));
    }
    return files;
}

} // namespace

LiveCapture::LiveCapture(fs::path folder, const AllocatorProfile* forced) : folder_(std::move(folder)), forced_(forced) {}

std::optional<std::size_t> LiveCapture::index_of(const std::string& file_name) const {
    const auto found = std::ranges::find_if(sessions_, [&](const auto& s) { return s->session.label() == file_name; });
    return found != sessions_.end() ? std::optional(static_cast<std::size_t>(found - sessions_.begin())) : std::nullopt;
}

const FollowedSession* LiveCapture::find(const std::string& file_name) const {
    const auto index = index_of(file_name);
    return index ? sessions_[*index].get() : nullptr;
}

std::vector<WatchedCall> LiveCapture::catch_up() {
    std::vector<WatchedCall> watched;
    for (const fs::path& file : session_files(folder_)) {
        const std::optional<std::size_t> index = follow(file);
        if (!index || !sessions_[*index]->problem.empty()) {
            continue;
        }
        read_new_lines(*sessions_[*index]);
        replay_new_calls(*index, watched);
    }
    return watched;
}

// The index of the session of `file`, read from its header on the first look (none while the
// header is not whole yet).
std::optional<std::size_t> LiveCapture::follow(const fs::path& file) {
    if (const auto known = index_of(file.filename().string())) {
        return known;
    }
    std::ifstream in(file, std::ios::binary);
    std::string header;
    if (!std::getline(in, header) || in.eof()) {
        return std::nullopt;  // no line ended yet
    }
    auto followed = std::make_unique<FollowedSession>();
    followed->bytes_read = header.size() + 1;
    followed->lines_read = 1;
    try {
        followed->session = parse_capture_session(header, file, folder_);
    } catch (const GraphFileError& error) {
        followed->session.file = file;
        followed->session.folder = folder_;
        followed->problem = error.what();
        sessions_.push_back(std::move(followed));
        return sessions_.size() - 1;
    }
    if (forced_ != nullptr) {
        followed->profile = forced_;
    } else {
        const VersionMatch match = session_profile(followed->session);
        followed->profile = match.profile;
        followed->profile_note = match.profile != nullptr ? match.note : match.note + "; pass --ggml-version";
    }
    if (followed->profile != nullptr) {
        followed->replayer = std::make_unique<SessionReplayer>(followed->session, *followed->profile);
    }
    sessions_.push_back(std::move(followed));
    return sessions_.size() - 1;
}

void LiveCapture::read_new_lines(FollowedSession& followed) {
    const std::string text = read_from(followed.session.file, followed.bytes_read);
    const std::size_t whole = text.rfind('\n');
    if (whole == std::string::npos) {
        return;  // no line finished since the last look
    }
    try {
        parse_more_calls(followed.session, std::string_view(text).substr(0, whole), followed.lines_read + 1);
    } catch (const GraphFileError& error) {
        followed.problem = error.what();
    }
    followed.bytes_read += whole + 1;
    followed.lines_read += static_cast<int>(std::ranges::count(std::string_view(text).substr(0, whole + 1), '\n'));
}

void LiveCapture::replay_new_calls(std::size_t index, std::vector<WatchedCall>& watched) {
    FollowedSession& followed = *sessions_[index];
    if (followed.replayer == nullptr) {
        // No version to replay under: each call is told as not replayed, with the reason.
        for (; followed.calls_told < followed.session.calls.size(); ++followed.calls_told) {
            CallReplay untold;
            untold.index = followed.calls_told;
            untold.outcome = CallOutcome::not_replayed;
            untold.error = followed.profile_note;
            watched.push_back({index, std::move(untold)});
        }
        return;
    }
    SessionReplayer& replayer = *followed.replayer;
    while (!replayer.done()) {
        watched.push_back({index, replayer.replay_next()});
    }
    if (replayer.stopped()) {
        for (CallReplay& rest : replayer.remaining()) {
            watched.push_back({index, std::move(rest)});
        }
    }
}

namespace {

CaptureSession with_pending_call(const CaptureSession& session, const PendingCall& pending) {
    CaptureSession with_it = session;
    CapturedCall call;
    call.number = static_cast<int>(session.calls.size());
    call.function = pending.function;
    call.graph = pending.graph;
    call.nodes = pending.nodes;
    call.leafs = pending.leafs;
    // Sizes by the rule each buffer type followed so far (the graph file holds any sizes no rule gives).
    call.alloc_size.resize(session.buffer_types.size());
    for (std::size_t t = 0; t < session.buffer_types.size(); ++t) {
        call.alloc_size[t].rule = session.buffer_types[t].alloc_size;
    }
    with_it.calls.push_back(std::move(call));
    return with_it;
}

} // namespace

std::optional<CapturedFunction> captured_function_named(std::string_view name) {
    for (const CapturedFunction function : {CapturedFunction::reserve, CapturedFunction::reserve_n,
                                            CapturedFunction::reserve_n_size, CapturedFunction::alloc_graph}) {
        if (captured_function_name(function) == name) {
            return function;
        }
    }
    return std::nullopt;
}

CallTrace trace_pending_call(const CaptureSession& session, const PendingCall& pending, const AllocatorProfile& profile) {
    const CaptureSession with_it = with_pending_call(session, pending);
    return trace_call(with_it, with_it.calls.size() - 1, profile);
}

std::vector<std::size_t> predicted_buffer_sizes(const CaptureSession& session, const PendingCall& pending,
                                                const AllocatorProfile& profile) {
    const CaptureSession with_it = with_pending_call(session, pending);
    SessionReplayer replayer(with_it, profile);
    while (!replayer.done()) {
        const CallReplay replay = replayer.replay_next();
        if (replayer.stopped()) {
            throw GraphFileError(session.label() + ": call " + std::to_string(replay.index) + ": " + replay.error);
        }
    }
    std::vector<std::size_t> sizes;
    for (std::size_t id = 0; id < with_it.buffers.size(); ++id) {
        sizes.push_back(replayer.allocator().buffer_size(static_cast<int>(id)));
    }
    return sizes;
}

} // namespace gallocsim::live
