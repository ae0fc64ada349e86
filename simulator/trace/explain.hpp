#pragma once
// Plain-words explanations of trace events for people learning the allocator: one or two
// sentences naming the tensors, sizes, offsets and the rule that decided, e.g.
// "mul reuses a's memory at offset 0: MUL can run in place, and a has one consumer left
// (mul itself), no views, the same layout and no output flag."

#include "simulator/model/amount_text.hpp"
#include "simulator/trace/state.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

// Explains trace.events[index]; `before` is the state before it (its position is `index`),
// which tells, for instance, whose memory a tensor's went to.
// A tensor's shape with trailing 1s dropped: "[64, 256]", "[1]"; with another separator
// than ", " no brackets: "64x256".
std::string shape_text(const TraceTensor& tensor, std::string_view separator = ", ");

std::string explain(const Trace& trace, const SimState& before, std::size_t index);

// Every event's explanation, in order (replays the trace once).
std::vector<std::string> explain_all(const Trace& trace);


} // namespace gallocsim
