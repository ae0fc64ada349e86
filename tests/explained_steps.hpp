#pragma once
// What explain() says at each step of a graph's trace, numbered from 1 as the trace and walk
// commands number steps. explain_test checks the sentences themselves; the command-line
// and GUI suites use this to check that they show the sentence explain() gives, without
// repeating its words (so one wording change touches one suite).

#include "simulator/model/graph_file.hpp"
#include "simulator/trace/explain.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim::test_support {

class ExplainedSteps {
public:
    explicit ExplainedSteps(GraphFile file) : texts_(explain_all(record_trace(file))) {}
    explicit ExplainedSteps(std::string_view json) : ExplainedSteps(parse_graph_file(json, "test.json")) {}
    const std::string& operator[](std::size_t step) const { return texts_.at(step - 1); }
    std::size_t size() const { return texts_.size(); }

private:
    std::vector<std::string> texts_;
};

} // namespace gallocsim::test_support
