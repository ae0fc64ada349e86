#include "reference/tensor.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>
#include <utility>

namespace gallocsim {

std::array<std::size_t, kMaxDims> contiguous_strides(DataType type, const std::array<std::int64_t, kMaxDims>& ne) {
    std::array<std::size_t, kMaxDims> nb{};
    nb[0] = type_size(type);
    nb[1] = nb[0] * static_cast<std::size_t>(ne[0] / block_size(type));
    for (int i = 2; i < kMaxDims; ++i) {
        nb[i] = nb[i - 1] * static_cast<std::size_t>(ne[i - 1]);
    }
    return nb;
}

std::size_t nbytes(const Tensor& tensor) {
    if (tensor.ne[0] <= 0 || tensor.ne[1] <= 0 || tensor.ne[2] <= 0 || tensor.ne[3] <= 0) {
        return 0;
    }
    const TypeTraits& type = traits(tensor.type);
    const auto block = static_cast<std::size_t>(type.block_size);
    auto extent = [&](int i) { return static_cast<std::size_t>(tensor.ne[i] - 1) * tensor.nb[i]; };
    std::size_t bytes = block == 1 ? type.type_size + extent(0)
                                   : static_cast<std::size_t>(tensor.ne[0]) * tensor.nb[0] / block;
    for (int i = 1; i < kMaxDims; ++i) {
        bytes += extent(i);
    }
    return bytes;
}

std::int64_t element_count(const Tensor& tensor) {
    return tensor.ne[0] * tensor.ne[1] * tensor.ne[2] * tensor.ne[3];
}

bool lies_within_source(const Tensor& view) {
    const std::size_t source_bytes = nbytes(*view.view_src);
    return view.view_offs <= source_bytes && nbytes(view) <= source_bytes - view.view_offs;
}

bool same_layout(const Tensor& a, const Tensor& b) {
    return a.type == b.type && a.ne == b.ne && a.nb == b.nb;
}

bool is_contiguous(const Tensor& tensor) {
    return tensor.nb == contiguous_strides(tensor.type, tensor.ne);
}

Tensor& Context::add(Tensor tensor) {
    tensor.index = tensors_.size();
    return tensors_.emplace_back(std::move(tensor));
}

Tensor* Context::find(std::string_view name) {
    return const_cast<Tensor*>(std::as_const(*this).find(name));
}

const Tensor* Context::find(std::string_view name) const {
    const auto found = std::ranges::find(tensors_, name, &Tensor::name);
    return found == tensors_.end() ? nullptr : &*found;
}

namespace {

// ggml_visit_parents: sources first (in src order), then the tensor, each tensor once. Walked
// with a stack of its own rather than by recursion: a 4096-layer model is a chain 120,000
// tensors deep, which recursion takes on the thread's stack and, under a memory limit, crashes
// on instead of running out of memory as an allocation that can fail.
void visit_parents(Graph& graph, std::unordered_set<const Tensor*>& visited, Tensor& tensor) {
    const auto enter = [&](Tensor& t) {
        if (t.op != Op::NONE) {
            t.flags.set(TensorFlag::compute);
        }
        return visited.insert(&t).second;
    };
    if (!enter(tensor)) {
        return;
    }
    struct Visit {
        Tensor* tensor;
        std::size_t next_src;
    };
    std::vector<Visit> stack{{&tensor, 0}};
    while (!stack.empty()) {
        Visit& top = stack.back();
        if (top.next_src < top.tensor->src.size()) {
            Tensor* src = top.tensor->src[top.next_src++];
            if (src != nullptr && enter(*src)) {
                stack.push_back({src, 0});  // `top` is not used after this
            }
            continue;
        }
        Tensor* done = top.tensor;
        stack.pop_back();
        if (done->op == Op::NONE && !done->has_flag(TensorFlag::param)) {
            graph.leafs.push_back(done);
        } else {
            graph.nodes.push_back(done);
        }
    }
}

} // namespace

void build_forward_expand(Graph& graph, Tensor& tensor) {
    std::unordered_set<const Tensor*> visited(graph.leafs.begin(), graph.leafs.end());
    visited.insert(graph.nodes.begin(), graph.nodes.end());
    visit_parents(graph, visited, tensor);
}

} // namespace gallocsim
