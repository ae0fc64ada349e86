#pragma once
// Every explanation checked against the state it explains, apart from the code that words it
// (simulator/trace/explain.cpp): each event's sentence is read back, the facts it states
// (offsets, sizes, free blocks, "the tail now starts at", "the same address as X", a tensor
// placed again) are taken out of its words, and each is held against the arena replayed to just
// before and just after the event, and against where alloc_graph really put every tensor (the
// allocator's own answer, not the trace's). A fact that does not hold is a contradiction: the
// sentence says one thing and the plan shows another.

#include "reference/graph_allocator.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gallocsim::fuzz {

struct SentenceReport {
    std::size_t sentences = 0;  // explanations read
    std::size_t facts = 0;      // stated facts checked
    // "event 27 (tensor-initialised): says ..., but ..."; empty: no sentence contradicts the plan.
    std::vector<std::string> contradictions;
};

// `final_places`: by tensor id, where alloc_graph put each tensor (GraphAllocator::locate),
// nullopt where it put none (views of outside memory, tensors outside the graph, a failed run).
SentenceReport check_sentences(const Trace& trace, std::span<const std::optional<Placement>> final_places);

// The same for a graph file planned by `profile`: traced, and checked against its own run.
SentenceReport check_sentences(const GraphFile& file, const AllocatorProfile& profile);

} // namespace gallocsim::fuzz
