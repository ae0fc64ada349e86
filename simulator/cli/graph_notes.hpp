#pragma once
// What a command says about a graph before it answers: the nodes that read a node running after
// them, or themselves (analysis/graph_order), as notes on standard error (one line each, once per
// input) and as the `warnings` list of a --json report. The words are the report's own.

#include "simulator/model/graph_file.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace gallocsim::cli {

// [{"kind", "node", "node_step", "source", "source_node_step", "text"}, ...]
nlohmann::ordered_json early_reads_json(const GraphFile& file);

// "note: INPUT: d (node 1 of 2) reads c, ..." for each early read (nothing for a graph without),
// and the same reads as early_reads_json lists them, for the command's --json.
nlohmann::ordered_json note_early_reads(const GraphFile& file, const std::string& input, std::ostream& err);

} // namespace gallocsim::cli
