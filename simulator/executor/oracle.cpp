#include "simulator/executor/oracle.hpp"

#include "reference/dynamic_allocator.hpp"
#include "simulator/executor/graph_tensors.hpp"

#include <algorithm>
#include <cstdint>

namespace gallocsim {

bool OracleAllocator::alloc_graph(Graph& graph) {
    last_error_.clear();
    const std::vector<Tensor*> tensors = graph_tensors(graph);
    std::vector<std::pair<Tensor*, std::size_t>> places;
    std::size_t size = 0;
    for (Tensor* tensor : tensors) {
        if (!tensor->is_view() && tensor->data == nullptr && tensor->buffer == nullptr) {
            places.emplace_back(tensor, size);
            size += align_up(std::max<std::size_t>(type_->alloc_size(*tensor), 1), type_->alignment());
        }
    }
    buffer_ = type_->allocate(size);
    if (!buffer_) {
        last_error_ = "failed to allocate " + std::string(type_->name()) + " buffer of size " + std::to_string(size);
        return false;
    }
    buffer_->set_usage(BufferUsage::compute);
    for (const auto& [tensor, offset] : places) {
        if (auto error = place_tensor(*buffer_, *tensor, offset); !error.empty()) {
            last_error_ = error;
            return false;
        }
    }
    // A view of a tensor with outside memory stays without memory, as gallocr leaves it.
    for (Tensor* tensor : tensors) {
        if (tensor->is_view() && tensor->buffer == nullptr && tensor->view_src->buffer != nullptr) {
            if (auto error = init_view(*tensor); !error.empty()) {
                last_error_ = error;
                return false;
            }
        }
    }
    return true;
}

std::optional<std::size_t> OracleAllocator::offset_of(const Tensor& tensor) const {
    if (!buffer_ || tensor.buffer != buffer_.get() || tensor.is_view()) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(tensor.data) -
                                    reinterpret_cast<std::uintptr_t>(buffer_->base()));
}

} // namespace gallocsim
