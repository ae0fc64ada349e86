#pragma once
// `gallocsim why`: why each buffer is as large as it is. For each buffer: its size, the event
// and node step where its high-water mark was set, the tensors live then (largest first,
// each with what keeps it alive), the holes below the high-water mark then (and the free
// that left each), and against that the in-place-aware lower bound and the best other
// planner on the same blocks: how many bytes the allocator's choices cost.

#include "simulator/cli/graph_input.hpp"

#include "simulator/cli/subcommand.hpp"

#include <iosfwd>

namespace gallocsim::cli {

struct WhyOptions {
    GraphInput graph;
    bool json = false;  // one JSON object (docs/graph-format.md#why-reports)
    bool full_names = false;  // names whole in the lists of live tensors (else cut at kNameColumns)
};
int why(const WhyOptions& options, std::ostream& out, std::ostream& err);

// The subcommand on the command line (cli/subcommand.hpp).
Subcommand add_why_command(CLI::App& app, const Console& io);

} // namespace gallocsim::cli
