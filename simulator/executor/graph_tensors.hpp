#pragma once
// Walks the tensors a graph touches, for the executor and the oracle.

#include "reference/tensor.hpp"

#include <vector>

namespace gallocsim {

// Every tensor the graph touches, each once, in a fixed order: the leafs, then each node's
// sources and view source followed by the node itself.
std::vector<Tensor*> graph_tensors(const Graph& graph);

// The tensor that owns a view's memory (a view's view_src is already the root of its chain).
inline Tensor* root_of(Tensor* tensor) {
    return tensor->view_src != nullptr ? tensor->view_src : tensor;
}

} // namespace gallocsim
