#pragma once
// The whole `gallocsim` command line as a function of its arguments and streams, so that
// tests can run it (flags, help, version, exit codes) without a process.

#include <iosfwd>

namespace gallocsim::cli {

struct Console {
    std::istream& in;
    std::ostream& out;
    std::ostream& err;
    bool interactive = false;  // standard input is a terminal: walk shows a prompt
    bool err_is_terminal = false;  // standard error is a terminal: long searches draw a progress bar there
};

// Exit codes: cli/errors.hpp.
int run_command_line(int argc, const char* const* argv, const Console& console);

} // namespace gallocsim::cli
