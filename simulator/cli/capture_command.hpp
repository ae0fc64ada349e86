#pragma once
// `gallocsim capture --out DIR -- PROGRAM [ARGS…]`: runs a program with
// libgallocsim_capture.so preloaded, then summarises the sessions it wrote.

#include "simulator/cli/subcommand.hpp"

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace gallocsim::cli {

struct CaptureOptions {
    std::string out;                   // the capture folder
    std::vector<std::string> command;  // the program and its arguments
};
// Returns the program's exit code (128 + n when a signal n ended it), 1 when the program
// succeeded but the capture is partial (calls the capture could not see, or a ggml it cannot
// read: each said on `out`), or non-zero with a message on `err` when the program could not
// be run.
int capture(const CaptureOptions& options, std::ostream& out, std::ostream& err);

// What a capture folder holds, read with the sessions' reader (a session cut short or
// unreadable is listed in `problems`, not an error).
struct CaptureSummary {
    std::vector<std::string> sessions;          // file names, in order
    std::map<std::string, std::size_t> calls;   // by function
    std::size_t replanned = 0;                  // alloc_graph calls that planned again
    std::size_t graphs = 0;                     // distinct graph files
    std::size_t min_nodes = 0, max_nodes = 0;
    std::size_t largest_buffer = 0;
    std::string largest_buffer_where;           // "CPU, session-0.jsonl call 2"
    std::vector<std::string> problems;          // sessions cut short or unreadable, one line each
    std::vector<std::string> gaps;              // what the capture could not see (capture-log.jsonl)
    std::string ggml_library;                   // the ggml a process of the program loaded (empty: none)
};
CaptureSummary summarize_capture(const std::filesystem::path& dir);

// The subcommand on the command line (cli/subcommand.hpp).
Subcommand add_capture_command(CLI::App& app, const Console& io);

} // namespace gallocsim::cli
