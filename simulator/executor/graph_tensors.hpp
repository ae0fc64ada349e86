#pragma once
// Walks the tensors a graph touches, for the executor and the oracle.

#include "reference/tensor.hpp"

#include <span>
#include <vector>

namespace gallocsim {

// Every tensor the graph touches, each once, in a fixed order: the leafs, then each node's
// sources and view source followed by the node itself.
std::vector<Tensor*> graph_tensors(const Graph& graph);

// The tensor that owns a view's memory (a view's view_src is already the root of its chain).
inline Tensor* root_of(Tensor* tensor) {
    return tensor->view_src != nullptr ? tensor->view_src : tensor;
}

// Puts back every given tensor's data and buffer as they were when it was made, when it
// goes out of scope: planning and running write addresses into tensors, and a graph is
// planned again afterwards (by another planner, or for another backend).
class TensorMemoryRestore {
public:
    explicit TensorMemoryRestore(std::span<Tensor* const> tensors);
    ~TensorMemoryRestore();
    TensorMemoryRestore(const TensorMemoryRestore&) = delete;
    TensorMemoryRestore& operator=(const TensorMemoryRestore&) = delete;

private:
    struct Saved {
        Tensor* tensor;
        void* data;
        Buffer* buffer;
    };
    std::vector<Saved> saved_;
};

} // namespace gallocsim
