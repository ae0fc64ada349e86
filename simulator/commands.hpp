#pragma once
// The gallocsim command line's commands, as functions that write to streams and return
// the process exit code (so tests can run them without a process).

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {
struct GraphFile;
}

namespace gallocsim::cli {

// A path that names an existing file is loaded; anything else must be an example name.
// Throws GraphFileError.
GraphFile load_input(const std::string& input);

struct PlanOptions {
    std::string input;  // a graph file, or the name of a built-in example
    bool json = false;
};
int plan(const PlanOptions& options, std::ostream& out, std::ostream& err);

struct ConformOptions {
    std::vector<std::string> paths;  // files or folders of graph files
    bool verbose = false;            // also list each passing file
};
int conform(const ConformOptions& options, std::ostream& out, std::ostream& err);

int list_examples(std::ostream& out);

// The step engine's commands (step_commands.cpp).
struct TraceOptions {
    std::string input;
    bool json = false;
    std::size_t from = 1;               // first step shown, counted from 1
    std::optional<std::size_t> to{};    // last step shown (default: the last)
};
int trace(const TraceOptions& options, std::ostream& out, std::ostream& err);

struct WalkOptions {
    std::string input;
    std::size_t checkpoint_interval = 64;
    bool prompt = false;  // print "> " before reading each command (for terminals)
};
// Reads commands from `in` until q or the end of input.
int walk(const WalkOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

struct StatsOptions {
    std::string input;
    bool summary_only = false;
};
int stats(const StatsOptions& options, std::ostream& out, std::ostream& err);

} // namespace gallocsim::cli
