#pragma once
// The splits of ggml's backend scheduler, read off the graph it hands the allocator. When a
// graph runs on several backends, ggml_backend_sched cuts it into splits, each computed by one
// backend, and gives the allocator one graph of all of them in order. At the start of each split
// but the first it puts the split's inputs, two op NONE nodes each: a view of the input (src[0]
// the input itself, on the input's own backend), which keeps the input alive until the copy, and
// the copy on the split's backend ("Vulkan0#name#0"), which the scheduler fills. ggml's graph
// builders never make an op NONE node, so those nodes mark where the splits begin: a split
// starts at the first node and at every run of them that follows a computed node. A graph
// without them (one backend, or not from the scheduler) has no splits to show.
//
// This is what `llama_context` counts as "graph splits"; the capture does not see the
// scheduler itself, so a split's backend is the buffer id its first node that computes is
// assigned (views, which compute nothing, may carry another backend's id).

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

struct SchedulerSplit {
    std::size_t first_node = 0;  // index in graph.nodes: its first input, or its first node
    std::size_t end_node = 0;    // one past its last node
    std::size_t inputs = 0;      // the inputs the scheduler copies in at its start
    std::optional<int> buffer_id;  // of its first node that computes; none if it computes nothing
};

struct SchedulerSplits {
    std::vector<SchedulerSplit> splits;   // in execution order; empty: the graph shows none
    std::vector<int> split_of_position;   // per node position, the index of its split

    bool empty() const { return splits.empty(); }
    // The split a node belongs to (a split's input view and copy belong to the split they feed);
    // none for leafs, tensors outside the graph and graphs without splits.
    std::optional<int> split_of(const TraceTensor& tensor) const;
};

// Whether a node is one of the scheduler's split inputs: an op NONE view of the input with the
// input as its source, or the copy (op NONE, no source, not a view).
bool is_split_input(const TraceTensor& node);

SchedulerSplits scheduler_splits(const Trace& trace);

// "24 scheduler splits (Vulkan0: 21, Vulkan_Host: 3)": how many, and how many each buffer type
// computes, in the order they first appear.
std::string splits_summary(const Trace& trace, const SchedulerSplits& splits);

} // namespace gallocsim
