#pragma once
// The planner with nothing to get wrong: every tensor that needs memory gets its own
// aligned region of one buffer, in graph order (see graph_tensors). Nothing runs in place
// and nothing is freed, so no two tensors share a byte. Outputs computed in this plan are
// what any correct plan must reproduce bit for bit on the same backend.

#include "reference/buffer.hpp"
#include "reference/tensor.hpp"

#include <memory>
#include <optional>
#include <string>

namespace gallocsim {

class OracleAllocator {
public:
    explicit OracleAllocator(BufferType& type) : type_(&type) {}

    // As GraphAllocator::alloc_graph: every tensor without memory gets a region (even a
    // zero-byte one gets a slot, so that its address is distinct and non-null), then
    // views take their source's. Tensors that already have data keep it. False, with
    // last_error(), when the buffer cannot be had.
    bool alloc_graph(Graph& graph);

    std::size_t buffer_size() const { return buffer_ ? buffer_->size() : 0; }
    const std::string& last_error() const { return last_error_; }
    // Where the oracle put a tensor it placed.
    std::optional<std::size_t> offset_of(const Tensor& tensor) const;

private:
    BufferType* type_;
    std::unique_ptr<Buffer> buffer_;
    std::string last_error_;
};

} // namespace gallocsim
