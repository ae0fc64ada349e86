#pragma once
// `gallocsim policy`: allocator policies as files (docs/policies.md).
//   policy rules                        the rules a policy file may set, with their values
//   policy export STATE [-o FILE]       a state (or policy) written out as a policy file, every rule in it
//   policy check FILE...                read policy files and say what each changes from its base
//   policy compare INPUT... --policy P  each graph planned by each policy: sizes, the bound, the best
//                                       offline planner, what each policy saves and which graphs it breaks

#include "simulator/cli/graph_input.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::cli {

struct PolicyCompareOptions {
    std::vector<std::string> inputs;    // graph files, folders, capture folders, example names
    std::vector<std::string> policies;  // states or policy files, after the reference
    std::string against;                // the reference (empty: the newest state)
    BufferFlags buffers{};
    double time_limit = 0.2;            // seconds per exact search (small graphs only)
    bool json = false;
    std::optional<std::string> svg;     // write the chart here
    bool full_names = false;            // graph names whole in the table (else cut at kNameColumns)
};

int policy_compare(const PolicyCompareOptions& options, std::ostream& out, std::ostream& err);

struct PolicyExportOptions {
    std::string state;
    std::optional<std::string> name;
    std::optional<std::string> output;
};

int policy_export(const PolicyExportOptions& options, std::ostream& out, std::ostream& err);
int policy_check(const std::vector<std::string>& files, std::ostream& out, std::ostream& err);
int policy_rules_list(std::ostream& out);

} // namespace gallocsim::cli
