#pragma once
// Why two plans of one graph under two ggml versions differ: the upstream rule changes between
// them, replayed one at a time, each with what it did to this graph.
#include "simulator/model/graph_file.hpp"
#include "reference/profile.hpp"

#include <string>
#include <vector>

namespace gallocsim {

// Why two plans of one graph under two ggml versions differ: the upstream changes between
// the two profiles, replayed one at a time on the graph (oldest first), that changed its
// plan, each with what it did here. Empty when both profiles are the same state, and when
// either is a policy (no upstream history joins them: rule_differences says what differs).
struct RuleEffect {
    const RuleChange* change = nullptr;
    std::string effect;  // "buffer 0 8256 -> 7232 bytes; Vcur-0 (clamp) takes Vcur-0's memory"
};
std::vector<RuleEffect> version_rule_changes(const GraphFile& file, const AllocatorProfile& a, const AllocatorProfile& b);
// "254ea3e5 (llama.cpp #15815), 2025-09-24: a buffer type's plan is split …"
std::string describe_rule_change(const RuleChange& change);

} // namespace gallocsim
