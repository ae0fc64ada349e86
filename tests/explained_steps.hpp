#pragma once
// What explain() says at each step of a graph's trace. explain_test checks the sentences
// themselves; the command-line suites use this to check that they show the sentence
// explain() gives, without repeating its words (so one wording change touches one suite).
//
// A test picks a sentence by the event it explains, its kind and tensors (trace_steps.hpp):
// steps.of(EventKind::in_place_rejected, "y", "w"). By number, steps[n] (counted from 1, as
// the trace and walk commands count), is for whole-sequence checks and for output that
// numbers the steps.

#include "simulator/model/graph_file.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/trace.hpp"

#include "trace_steps.hpp"

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim::test_support {

class ExplainedSteps {
public:
    explicit ExplainedSteps(const GraphFile& file) : trace_(record_trace(file)), texts_(explain_all(trace_)) {}
    explicit ExplainedSteps(std::string_view json) : ExplainedSteps(parse_graph_file(json, "test.json")) {}
    ExplainedSteps(std::string_view json, const AllocatorProfile& profile)
        : trace_(record_trace(parse_graph_file(json, "test.json"), profile)), texts_(explain_all(trace_)) {}

    // The sentence for step `step`, counted from 1.
    const std::string& operator[](std::size_t step) const { return texts_.at(step - 1); }
    std::size_t size() const { return texts_.size(); }

    // The sentence for the one event of `kind` that concerns the tensors named.
    template <std::convertible_to<std::string_view>... Names>
    const std::string& of(EventOfKind kind, const Names&... tensors) const {
        return (*this)[step_of(kind, tensors...)];
    }
    // That event's step, counted from 1.
    template <std::convertible_to<std::string_view>... Names>
    std::size_t step_of(EventOfKind kind, const Names&... tensors) const {
        return find_step(trace_, kind, tensors...);
    }

    const Trace& trace() const { return trace_; }

private:
    Trace trace_;
    std::vector<std::string> texts_;
};

} // namespace gallocsim::test_support
