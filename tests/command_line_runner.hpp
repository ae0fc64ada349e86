#pragma once
// Runs the whole command line in this process, as `gallocsim ARGS...` with `stdin_text` on
// standard input, and keeps what it wrote: for the suites that test commands end to end.
#include "simulator/cli/command_line.hpp"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim::cli::testing_support {

struct Outcome {
    int code = 0;
    std::string out;
    std::string err;
};

inline Outcome run(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), "gallocsim");
    std::vector<const char*> argv;
    for (const std::string& arg : args) {
        argv.push_back(arg.c_str());
    }
    // "-" reads the process's standard input: give it the text for the length of the run.
    std::istringstream in(stdin_text);
    std::streambuf* const saved = std::cin.rdbuf(in.rdbuf());
    std::ostringstream out, err;
    const int code = run_command_line(static_cast<int>(argv.size()), argv.data(), {in, out, err});
    std::cin.rdbuf(saved);
    return {code, out.str(), err.str()};
}

} // namespace gallocsim::cli::testing_support
