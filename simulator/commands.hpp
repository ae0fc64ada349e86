#pragma once
// The gallocsim command line's commands, as functions that write to streams and return
// the process exit code (so tests can run them without a process).

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {
struct AllocatorProfile;
struct GraphFile;
}

namespace gallocsim::cli {

// Example parameters as the command line gives them (checked when the example is built).
struct ModelFlags {
    std::optional<std::int64_t> layers, embd, heads, ff, tokens, vocab, outputs;
    std::optional<std::string> weights;  // a ggml type name
    std::optional<std::string> buffers;  // cpu, cuda or split
    bool inplace = false;
    bool mask = false;
    bool clamp = false;
};

// Buffer type settings that override the file's (all buffer types).
struct BufferFlags {
    std::optional<std::size_t> alignment;
    std::optional<std::size_t> max_size;
    std::optional<std::string> alloc_size;  // nbytes or cuda
};

// What every command that plans a graph reads: a graph file, or a built-in example with
// its parameters, and buffer settings that override the file's.
struct GraphInput {
    std::string input;
    ModelFlags model{};
    BufferFlags buffers{};
    std::string ggml_version{};  // --ggml-version: a profile name; empty: the newest
};

// The profile --ggml-version names (the newest when empty). Throws GraphFileError naming
// the known versions for any other.
const AllocatorProfile& chosen_profile(const std::string& ggml_version);

// A path that names an existing file is loaded; anything else must be an example name.
// Example flags are refused for files; buffer flags apply to both. Throws GraphFileError.
GraphFile load_graph_input(const GraphInput& input);
GraphFile load_input(const std::string& input);  // no flags

struct PlanOptions {
    GraphInput graph;
    bool json = false;
    // ggml_backend_sched's pattern: reserve_n on this input (the worst case) first, then
    // alloc_graph the graph on the same allocator; needs_realloc decides if it re-plans.
    std::string reserve_with{};
    bool measure = false;  // ggml_gallocr_reserve_n_size: the bytes per buffer id, nothing allocated
};
int plan(const PlanOptions& options, std::ostream& out, std::ostream& err);

struct ConformOptions {
    std::vector<std::string> paths;  // graph files, folders of them, capture folders
    bool verbose = false;            // also list each passing file and captured call
    // Plan every file (and replay every capture) by this profile; empty: graph files by the one
    // their `expected.source` names (an unknown source fails that file), captures by the ggml
    // version their program reported.
    std::string ggml_version{};
};
int conform(const ConformOptions& options, std::ostream& out, std::ostream& err);

int list_examples(std::ostream& out);

// The step engine's commands (step_commands.cpp).
struct TraceOptions {
    GraphInput graph;
    bool json = false;
    std::size_t from = 1;               // first step shown, counted from 1
    std::optional<std::size_t> to{};    // last step shown (default: the last)
};
int trace(const TraceOptions& options, std::ostream& out, std::ostream& err);

struct WalkOptions {
    GraphInput graph;
    std::size_t checkpoint_interval = 64;
    bool prompt = false;  // print "> " before reading each command (for terminals)
    // Commands to run instead of reading `in`, each shown after a "> " prompt, so that a
    // scripted walk reads like a session at a terminal.
    std::vector<std::string> commands{};
};
// Reads commands from `in` (or runs `commands`) until q or the end of input.
int walk(const WalkOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

struct StatsOptions {
    GraphInput graph;
    bool summary_only = false;
};
int stats(const StatsOptions& options, std::ostream& out, std::ostream& err);

} // namespace gallocsim::cli
