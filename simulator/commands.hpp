#pragma once
// The gallocsim command line's commands, as functions that write to streams and return
// the process exit code (so tests can run them without a process).

#include <iosfwd>
#include <string>
#include <vector>

namespace gallocsim::cli {

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

} // namespace gallocsim::cli
