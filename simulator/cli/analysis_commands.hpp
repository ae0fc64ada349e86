#pragma once
// The analysis commands of the gallocsim command line (compare, diff, render,
// export-minimalloc, import-minimalloc), as functions that write to streams and return
// the exit code: 0 done, 1 the plan failed or broke a rule, 2 bad input.

#include "simulator/cli/graph_input.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::cli {

struct CompareOptions {
    GraphInput graph;
    double time_limit = 2.0;  // seconds for each exact search
    bool json = false;
    bool progress = false;  // a bar on standard error while a search runs (a terminal, no --json)
};
int compare(const CompareOptions& options, std::ostream& out, std::ostream& err);

struct DiffOptions {
    GraphInput before;
    std::string after;      // empty: the same input as before, with after_buffers applied
    BufferFlags after_buffers;  // plan B's; both plans' when ggml_versions has two
    // --ggml-version or --policy (one option, two spellings), up to twice: plan A's rules, then
    // plan B's. Once: plan B's, against the default state for A. None: both the default.
    std::vector<std::string> ggml_versions{};
    bool json = false;
    bool full_names = false;  // names whole in the table of moved tensors (else cut at kNameColumns)
};
int diff(const DiffOptions& options, std::ostream& out, std::ostream& err);

// planner: ggml, greedy, first-fit or exact.
struct RenderOptions {
    GraphInput graph;
    std::string output;  // empty or "-": standard output
    std::string planner = "ggml";
    std::optional<int> memory_map_at;  // a node step: the memory map after it
    std::optional<std::size_t> at_event{};  // an event (from 1): the memory map at its node step
};
int render(const RenderOptions& options, std::ostream& out, std::ostream& err);

struct ExportMiniMallocOptions {
    GraphInput graph;
    std::string output;
    std::string buffer_type;  // needed when several buffer types hold tensors
    bool offsets = true;      // add ggml's offsets (chunks laid end to end) as the offset column
};
int export_minimalloc(const ExportMiniMallocOptions& options, std::ostream& out, std::ostream& err);

struct ImportMiniMallocOptions {
    std::string path;
    double time_limit = 2.0;
    bool progress = false;
};
int import_minimalloc(const ImportMiniMallocOptions& options, std::ostream& out, std::ostream& err);

int export_example(const std::string& name, const ModelFlags& flags, const std::string& output, std::ostream& out,
                   std::ostream& err);

} // namespace gallocsim::cli
