#pragma once
// The step engine's commands: trace, walk and stats, as functions that write to streams and
// return the exit code (see cli/errors.hpp).

#include "simulator/cli/graph_input.hpp"
#include "simulator/cli/line_reader.hpp"

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::cli {

struct TraceOptions {
    GraphInput graph;
    bool json = false;
    std::size_t from = 1;               // first step shown, counted from 1
    std::optional<std::size_t> to{};    // last step shown (default: the last)
};
int trace(const TraceOptions& options, std::ostream& out, std::ostream& err);

struct WalkOptions {
    GraphInput graph;
    std::optional<std::size_t> checkpoint_interval{};  // none: the cursor's automatic interval
    // A person at a terminal: a command that cannot be done does not change the exit code.
    bool interactive = false;
    // Commands to run instead of reading lines, each shown after a "> " prompt, so that a
    // scripted walk reads like a session at a terminal.
    std::vector<std::string> commands{};
};
// Reads commands from `lines` (or runs `commands`) until q or the end of input. Exits with
// kBadInput when a command could not be done (a step or tensor that does not exist, an
// unknown command), unless interactive.
int walk(const WalkOptions& options, LineReader& lines, std::ostream& out, std::ostream& err);

struct StatsOptions {
    GraphInput graph;
    bool summary_only = false;
    bool json = false;
};
int stats(const StatsOptions& options, std::ostream& out, std::ostream& err);

} // namespace gallocsim::cli
