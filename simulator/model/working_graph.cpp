#include "simulator/model/working_graph.hpp"

#include "reference/buffer.hpp"

#include <cstddef>
#include <stdexcept>

namespace gallocsim {

void* external_data_placeholder() {
    static std::byte placeholder[64];
    return placeholder;
}

Buffer* external_buffer_placeholder() {
    static CpuBufferType type;
    static EmptyBuffer buffer(type);
    return &buffer;
}

namespace {

// A copy's memory before any plan: the placeholder address for external data, the
// placeholder buffer for a tensor on an external buffer, none for the rest.
void set_memory_as_copied(const GraphFile& file, const Tensor& original, Tensor& copy) {
    copy.data = file.is_external(original) ? external_data_placeholder() : nullptr;
    copy.buffer = file.is_on_external_buffer(original) ? external_buffer_placeholder() : nullptr;
}

} // namespace

void WorkingGraph::reset_addresses(const GraphFile& file) {
    const auto& originals = file.context.tensors();
    auto& copies = context.tensors();
    if (copies.size() != originals.size()) {
        throw std::invalid_argument("reset_addresses: not a copy of '" + file.name + "'");
    }
    for (std::size_t i = 0; i < copies.size(); ++i) {
        set_memory_as_copied(file, originals[i], copies[i]);
    }
}

void WorkingGraph::forget_addresses() {
    for (Tensor& tensor : context.tensors()) {
        // The placeholder on a tensor that is not a view marks it external (the allocator
        // never hands it out); views get their address from the allocator again.
        const bool external = !tensor.is_view() && tensor.data == external_data_placeholder();
        tensor.data = external ? external_data_placeholder() : nullptr;
        // The placeholder buffer marks a tensor on an external buffer: it keeps it, no data.
        if (tensor.buffer != external_buffer_placeholder()) {
            tensor.buffer = nullptr;
        }
    }
}

WorkingGraph working_copy(const GraphFile& file) {
    const auto& originals = file.context.tensors();
    WorkingGraph copy;
    // A tensor's index finds its copy; a pointer to a tensor of another context would find a
    // stranger, so it is refused (the loader and the builders never make one).
    auto copied = [&](const Tensor* original) -> Tensor* {
        if (original == nullptr) {
            return nullptr;
        }
        if (original->index >= originals.size() || &originals[original->index] != original) {
            throw GraphFileError("'" + file.name + "': tensor '" + original->name + "' is linked but not in the graph's context");
        }
        return &copy.context.tensors()[original->index];
    };
    for (const Tensor& original : originals) {
        Tensor& tensor = copy.context.add(original);
        set_memory_as_copied(file, original, tensor);
    }
    // Sources may point forwards (a tensor made before its parent), so links come second.
    for (std::size_t i = 0; i < originals.size(); ++i) {
        Tensor& tensor = copy.context.tensors()[i];
        for (Tensor*& src : tensor.src) {
            src = copied(src);
        }
        tensor.view_src = copied(tensor.view_src);
    }
    auto copy_list = [&](const std::vector<Tensor*>& list) {
        std::vector<Tensor*> out;
        out.reserve(list.size());
        for (const Tensor* tensor : list) {
            out.push_back(copied(tensor));
        }
        return out;
    };
    copy.graph.leafs = copy_list(file.graph.leafs);
    copy.graph.nodes = copy_list(file.graph.nodes);
    copy.node_buffer_ids = file.node_buffer_ids;
    copy.leaf_buffer_ids = file.leaf_buffer_ids;
    copy.tensor_sizes = file.tensor_sizes();
    return copy;
}

} // namespace gallocsim
