#pragma once
// What a plan writes into. A graph file is input only: each plan or run works on a copy of
// its tensors, and the addresses the allocator gives them live in that copy, owned beside the
// buffers they point into (PlanRun holds both), so no address outlives its buffer.

#include "reference/tensor.hpp"
#include "simulator/model/graph_file.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace gallocsim {

// The graph as the allocator is called with it: tensors, leafs and nodes, buffer ids.
struct WorkingGraph {
    Context context;  // the file's tensors in the file's order: a tensor's index is the same in both
    Graph graph;      // the file's leafs and nodes, pointing into `context`
    std::vector<int> node_buffer_ids;
    std::vector<int> leaf_buffer_ids;
    // The file's recorded alloc sizes (GraphFile::tensor_sizes): a buffer type that plans
    // this graph answers them for its tensors.
    std::shared_ptr<const std::vector<std::optional<std::size_t>>> tensor_sizes;

    // Back to as copied, as a program's graph is when built afresh: no tensor has memory from
    // the allocator (a replay plans one graph again after other calls).
    void forget_addresses();
    // Back to exactly as working_copy(file) made it, `file` being the file this is a copy of
    // (it tells the external tensors, views included): what a plan of the file wrote is gone, so
    // the file can be planned again on this copy under any rules.
    void reset_addresses(const GraphFile& file);

    // The copy of one of the file's tensors (found by its index).
    Tensor& copy_of(const Tensor& file_tensor) { return context.tensors().at(file_tensor.index); }
    const Tensor& copy_of(const Tensor& file_tensor) const { return context.tensors().at(file_tensor.index); }
};

// Sources and views point within the copy. A `data: true` tensor gets
// external_data_placeholder() as its address: ggml's allocator only asks whether a tensor
// already has data, and gives its views the address plus their offset, so nothing reads
// it (the executor gives such tensors real memory for its run).
WorkingGraph working_copy(const GraphFile& file);

// The address a `data: true` tensor has in a working graph: not null, never read.
void* external_data_placeholder();
// The buffer a `data: "buffer"` tensor has in a working graph (it has no data): an empty
// buffer none of the allocator's buffers is, as llama.cpp's no_alloc load gives its weights
// a dummy buffer. Whether the allocator then plans the tensor is its state's rule
// (AllocatorProfile::external_buffer_is_allocated).
Buffer* external_buffer_placeholder();

} // namespace gallocsim
