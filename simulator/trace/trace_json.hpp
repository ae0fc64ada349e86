#pragma once
// Trace events as JSON, for tools: every field of the event with tensors by name, plus
// its step number (from 1), kind, stage, node and explanation.

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <string>

namespace gallocsim {

// One event as a one-line JSON object.
std::string event_to_json(const Trace& trace, std::size_t index, const std::string& explanation);

// The trace's header as a one-line JSON object: graph name, buffers, tensor count, error.
std::string trace_header_json(const Trace& trace);

} // namespace gallocsim
