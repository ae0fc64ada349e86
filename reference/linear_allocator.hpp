#pragma once
// ggml_tallocr: places tensors one after another in a buffer, never freeing; and
// ggml_backend_alloc_ctx_tensors_from_buft, which sizes buffers for every tensor of a
// context (splitting at the buffer type's max size) and places them with it.

#include "reference/buffer.hpp"
#include "reference/tensor.hpp"

#include <memory>
#include <string>

namespace gallocsim {

class LinearAllocator {
public:
    explicit LinearAllocator(Buffer& buffer);

    // Upstream aborts when the buffer is full; here the tensor is left untouched and
    // error() says why.
    Status allocate(Tensor& tensor);
    std::size_t offset() const { return offset_; }
    const std::string& error() const { return error_; }

private:
    Buffer* buffer_;
    std::size_t alignment_;
    std::size_t offset_;
    std::string error_;
};

struct ContextAllocation {
    bool ok = true;
    std::unique_ptr<Buffer> buffer;  // null when nothing needed memory (or on failure)
    std::string error;
};

// Bytes the context's unallocated tensors would need (each padded to the alignment).
std::size_t context_tensors_size(const Context& context, const BufferType& type);

// Allocates buffers for every tensor of the context that has no memory yet and places
// them; views are set up in their source. Several buffers are returned as one MultiBuffer.
// On failure no tensor is left pointing into freed memory.
ContextAllocation alloc_context_tensors(Context& context, BufferType& type);

} // namespace gallocsim
