#pragma once
// The gallocsim command line's commands, as functions that write to streams and return
// the process exit code (so tests can run them without a process).

#include "simulator/cli/graph_input.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace gallocsim::cli {

struct PlanOptions {
    GraphInput graph;
    bool json = false;
    // ggml_backend_sched's pattern: reserve_n on this input (the worst case) first, then
    // alloc_graph the graph on the same allocator; needs_realloc decides if it re-plans.
    std::string reserve_with{};
    bool measure = false;  // ggml_gallocr_reserve_n_size: the bytes per buffer id, nothing allocated
    bool full_names = false;  // names whole in the table (else cut at kNameColumns)
};
int plan(const PlanOptions& options, std::ostream& out, std::ostream& err);

struct ConformOptions {
    std::vector<std::string> paths;  // graph files, folders of them, capture folders
    bool verbose = false;            // also list each passing file and captured call
    // Plan every file (and replay every capture) by this profile; empty: graph files by the one
    // their `expected.source` names (an unknown source fails that file), captures by the ggml
    // version their program reported.
    std::string ggml_version{};
    bool json = false;  // one JSON object: every file and capture with its verdict
};
int conform(const ConformOptions& options, std::ostream& out, std::ostream& err);

int list_examples(std::ostream& out);

} // namespace gallocsim::cli
