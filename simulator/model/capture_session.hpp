#pragma once
// Captures (docs/graph-format.md, "Captures: a folder of sessions"): a folder with one
// ggml-session/1 JSON Lines file per allocator and the graph files its calls planned.
// Loading validates like graph files (every error names the file, the line, the JSON path
// and the problem). A capture cut short (the program killed mid-write) is not an error: the
// calls read before the cut stay usable and the session says what is missing.

#include "simulator/model/graph_file.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim {

enum class CapturedFunction { reserve, reserve_n, reserve_n_size, alloc_graph };
std::string_view captured_function_name(CapturedFunction function);  // "ggml_gallocr_reserve_n", ...

// What a buffer type's get_alloc_size did on one call's tensors: a rule the format names;
// "recorded", a rule it cannot name whose sizes the call's graph file holds tensor by
// tensor; or "unknown", written by captures before sizes were recorded (such a call cannot be
// replayed).
struct ObservedAllocSize {
    std::optional<AllocSizeRule> rule;  // nullopt: recorded or unknown
    bool recorded = false;
    std::string example;                // for unknown: the tensor, its nbytes and the size given
};

// One line after the header: one call the program made, and what it observed.
struct CapturedCall {
    int line = 0;    // in the session file, from 1
    int number = 0;  // `call`
    CapturedFunction function = CapturedFunction::reserve_n;
    std::string graph;  // relative to the capture folder
    std::size_t nodes = 0;
    std::size_t leafs = 0;
    std::optional<bool> returned;   // null for reserve_n_size
    std::optional<bool> replanned;  // alloc_graph only
    std::optional<std::vector<std::size_t>> sizes;  // reserve_n_size only
    std::vector<ObservedAllocSize> alloc_size;      // per buffer type
    std::vector<std::size_t> buffer_sizes;          // per buffer id, after the call
    std::vector<std::vector<std::size_t>> chunk_sizes;
    // Per buffer type, the bytes its buffers reported beyond what was asked (absent: none).
    std::optional<std::vector<std::size_t>> buffer_extra;
    std::optional<std::vector<NamedPlacement>> tensors;  // alloc_graph that returned true; by name, as read

    bool is_reserve() const { return function != CapturedFunction::alloc_graph; }
    // The first buffer type whose rule is unknown on this call, if any.
    std::optional<std::size_t> unknown_alloc_size() const;
};

// One allocator of the program (ggml_gallocr_new / _new_n) and its calls in order.
struct CaptureSession {
    std::filesystem::path file;  // the session file
    std::filesystem::path folder;  // the capture folder (graphs are relative to it)
    int allocator = 0;
    std::string created_by;
    std::optional<std::string> ggml_version;
    std::optional<std::string> ggml_commit;
    std::string ggml_library;  // empty in captures made before it was recorded
    // Which of the version map's marker functions the program's ggml exports (empty in
    // captures made before they were recorded).
    std::map<std::string, bool> ggml_functions;
    std::vector<BufferTypeSpec> buffer_types;  // alloc_size: the rule learnt from the calls
    std::vector<int> buffers;                  // buffer id -> index into buffer_types
    std::vector<CapturedCall> calls;
    // Set when the file ends in a line that is not complete JSON (the program stopped while
    // writing it): what is missing. The calls before it are complete.
    std::string truncated;

    std::string label() const { return file.filename().string(); }
};

// A line of the capture's capture-log.jsonl: what a process of the program did that the
// capture could not record, and what each process had when it ended.
struct CaptureLogEntry {
    enum class Kind { partial, unsupported, exit };
    Kind kind = Kind::exit;
    long long pid = 0;
    std::string what;          // partial, unsupported: one sentence
    std::string ggml_library;  // exit: the ggml the process had loaded (empty: none)
    // exit, with no ggml_library: a loaded object holding ggml's allocator with nothing
    // exported (ggml linked statically, symbols hidden), which no preload can interpose
    std::string hidden_ggml_library;
    int allocators = 0;        // exit: graph allocators the process created
    int calls = 0;             // exit: calls recorded
};

struct Capture {
    std::filesystem::path folder;
    std::vector<CaptureSession> sessions;  // by allocator number
    std::vector<std::string> errors;       // sessions that could not be read, one message each
    std::vector<CaptureLogEntry> log;      // capture-log.jsonl, in order

    // Why the capture is not all the program did: one sentence per partial or unsupported
    // entry of the log (empty for a whole capture).
    std::vector<std::string> gaps() const;
};

// Why a capture is not all the program did: one sentence per partial or unsupported entry of
// its log (Capture::gaps gives them for a loaded capture).
std::vector<std::string> gaps_in(const std::vector<CaptureLogEntry>& log);
// The folder's capture-log.jsonl alone (none: an empty list), for a caller that follows the
// sessions itself; throws GraphFileError for a malformed line.
std::vector<CaptureLogEntry> load_capture_log(const std::filesystem::path& folder);
// Where a process loaded ggml inside an object that exports none of the allocator's functions
// (ggml linked in statically, its symbols hidden): one sentence naming the object and what
// works instead, for capture and watch alike; empty when no process did.
std::string hidden_ggml_sentence(const std::vector<CaptureLogEntry>& log);

// A folder holding at least one session-*.jsonl file, or the capture's log.
bool is_capture_dir(const std::filesystem::path& path);
// When `file` is one session (or the log) of a capture, that capture's folder: a session
// reads its graphs from beside it, so commands take the folder.
std::optional<std::filesystem::path> capture_holding(const std::filesystem::path& file);

// Throws GraphFileError ("DIR/session-0.jsonl: line 3: $.buffer_sizes[0]: problem") for
// malformed content; a cut last line is recorded in `truncated`, not thrown.
CaptureSession parse_capture_session(std::string_view text, const std::filesystem::path& file,
                                     const std::filesystem::path& folder);
CaptureSession load_capture_session(const std::filesystem::path& file, const std::filesystem::path& folder);
// Reads further lines of a session whose file is still being written (a live capture):
// `text` holds whole call lines, the first of them line `first_line` of the file; the calls
// are appended, numbered on from those read before. Throws GraphFileError like
// parse_capture_session; the calls before the bad line are kept.
void parse_more_calls(CaptureSession& session, std::string_view text, int first_line);
// Every session of the folder; one that cannot be read goes to `errors`, the others stay
// usable. Throws GraphFileError when the folder cannot be read.
Capture load_capture(const std::filesystem::path& folder);

// Loads the graph file a call planned and checks it against the call: missing, cut or
// malformed files and counts that differ are errors naming the session file, the line,
// `$.graph` or `$.nodes`/`$.leafs`, and what is wrong. Each call gets its own GraphFile,
// with fresh tensors (as a program builds its graph afresh for every call).
GraphFile load_call_graph(const CaptureSession& session, const CapturedCall& call);

} // namespace gallocsim
