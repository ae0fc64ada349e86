#include "simulator/executor/graph_tensors.hpp"

#include <unordered_set>

namespace gallocsim {

std::vector<Tensor*> graph_tensors(const Graph& graph) {
    std::vector<Tensor*> tensors;
    std::unordered_set<const Tensor*> seen;
    auto visit = [&](Tensor* tensor) {
        if (tensor != nullptr && seen.insert(tensor).second) {
            tensors.push_back(tensor);
        }
    };
    for (Tensor* leaf : graph.leafs) {
        visit(leaf->view_src);
        visit(leaf);
    }
    for (Tensor* node : graph.nodes) {
        for (Tensor* src : node->src) {
            if (src != nullptr) {
                visit(src->view_src);
                visit(src);
            }
        }
        visit(node->view_src);
        visit(node);
    }
    return tensors;
}

TensorMemoryRestore::TensorMemoryRestore(std::span<Tensor* const> tensors) {
    saved_.reserve(tensors.size());
    for (Tensor* tensor : tensors) {
        saved_.push_back({tensor, tensor->data, tensor->buffer});
    }
}

TensorMemoryRestore::~TensorMemoryRestore() {
    for (const Saved& saved : saved_) {
        saved.tensor->data = saved.data;
        saved.tensor->buffer = saved.buffer;
    }
}

} // namespace gallocsim
