#pragma once
// Running the command line's commands in-process, as the CLI suites do: the exit code and
// what the command wrote to each stream.

#include "simulator/cli/line_reader.hpp"
#include "simulator/cli/step_commands.hpp"

#include <cstddef>
#include <sstream>
#include <string>

namespace gallocsim::test_support {

struct Result {
    int code = 0;
    std::string out;
    std::string err;
};

// run(cli::plan, cli::PlanOptions{...}): any command that takes (options, out, err).
template <typename Command, typename Options>
Result run(Command command, const Options& options) {
    std::ostringstream out, err;
    const int code = command(options, out, err);
    return {code, out.str(), err.str()};
}

// walk with `stdin_text` as its input, shown with no prompt (read only when options.commands is empty).
inline Result run_walk(const cli::WalkOptions& options, const std::string& stdin_text = "") {
    std::istringstream in(stdin_text);
    std::ostringstream out, err;
    const auto reader = cli::stream_line_reader(in, out, /*show_prompt=*/false);
    const int code = cli::walk(options, *reader, out, err);
    return {code, out.str(), err.str()};
}

// A step number as the trace and stats commands print it: right-aligned in 6 columns.
inline std::string step_column(std::size_t step) {
    const std::string number = std::to_string(step);
    return std::string(number.size() < 6 ? 6 - number.size() : 0, ' ') + number;
}

} // namespace gallocsim::test_support
