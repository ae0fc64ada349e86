#pragma once
// The command line's one path from errors to exit codes. Every library reports bad input by
// throwing its own error, worded for the input and naming the file and the place
// (GraphFileError, MiniMallocError); the command line adds UsageError for a wrong flag. A
// command runs its body in run_guarded, which prints the message and returns kBadInput (or
// kFailed when memory ran out: an input too large for the machine, not a bug).
// Anything else escaping a command is a bug: main() says so and returns kInternalError.

#include "simulator/analysis/minimalloc.hpp"
#include "simulator/model/graph_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <ostream>
#include <stdexcept>

namespace gallocsim::cli {

enum ExitCode : int {
    kDone = 0,
    kFailed = 1,         // the plan failed, broke a rule or differs from the expected one; a write failed; out of memory
    kBadInput = 2,       // a flag, a graph file, a capture or a CSV that cannot be used
    kInternalError = 3,  // a bug in gallocsim (main() reports it)
};

// A command-line flag that is wrong (names the flag).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Not a bug and not bad input: the input needs more memory than the process was given.
inline int report_out_of_memory(std::ostream& err) {
    err << "gallocsim: out of memory: this input needs more memory than the process may use\n";
    return kFailed;
}

// Writes a command's text output to `output` ("" or "-": standard output). A file that cannot
// be created is the user's to fix (kBadInput); one that cannot be written (a full disk) fails.
inline int write_text(const std::string& text, const std::string& output, std::ostream& out, std::ostream& err) {
    if (output.empty() || output == "-") {
        out << text;
        return kDone;
    }
    std::ofstream file(output, std::ios::binary);
    if (!file.is_open()) {
        err << output << ": cannot create the file: " << std::strerror(errno) << "\n";
        return kBadInput;
    }
    if (!(file << text) || !file.flush()) {
        err << output << ": cannot write: " << std::strerror(errno) << "\n";
        return kFailed;
    }
    return kDone;
}

template <typename Body>
int run_guarded(std::ostream& err, Body&& body) {
    try {
        return body();
    } catch (const UsageError& error) {
        err << error.what() << "\n";
    } catch (const GraphFileError& error) {
        err << error.what() << "\n";
    } catch (const MiniMallocError& error) {
        err << error.what() << "\n";
    } catch (const std::bad_alloc&) {
        return report_out_of_memory(err);
    }
    return kBadInput;
}

} // namespace gallocsim::cli
