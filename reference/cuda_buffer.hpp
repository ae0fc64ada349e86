#pragma once
// ggml-cuda's device buffer type, "CUDA0": memory from cudaMalloc, 128-byte alignment, no
// size limit, and ggml-cuda's alloc size (quantized rows padded to 512 elements). Built only
// when CMake found CUDA (GALLOCSIM_HAVE_CUDA).
//
// Host code never dereferences a CUDA buffer's base. Its bytes are reachable, so it is
// addressable, but only through set/get/memset_tensor, which copy with the CUDA runtime.
// No CUDA error aborts: an allocation that fails returns nullptr, a copy that fails returns
// Status::failed, and the buffer type's last_error() says what CUDA reported.

#include "reference/buffer.hpp"

#include <string>

namespace gallocsim {

struct CudaProbe {
    bool available = false;
    std::string description;  // the device ("NVIDIA H200, compute capability 9.0"), or why there is none
};

// Asks the CUDA runtime for device 0.
CudaProbe probe_cuda_device();
bool cuda_device_available();

class CudaBufferType final : public BufferType {
public:
    std::string_view name() const override { return "CUDA0"; }
    std::size_t alignment() const override { return 128; }
    std::size_t alloc_size(const Tensor& tensor) const override { return cuda_alloc_size(tensor); }

    // What the last failing CUDA call on this type or its buffers reported; empty if none failed.
    const std::string& last_error() const { return last_error_; }

protected:
    std::unique_ptr<Buffer> allocate_memory(std::size_t size) override;

private:
    friend class CudaBuffer;
    // Records a failed CUDA call (and clears CUDA's own error state); always returns false.
    bool fail(std::string_view call, int cuda_error) const;

    mutable std::string last_error_;
};

class CudaBuffer final : public Buffer {
public:
    ~CudaBuffer() override;

    void* base() const override { return memory_; }
    bool is_addressable() const override { return true; }  // through CUDA copies only (see above)

    // As ggml-cuda: a quantized tensor outside compute buffers gets the padding past its
    // nbytes, up to its alloc size, zeroed, so kernels reading whole padded rows see no NaN.
    Status init_tensor(Tensor& tensor) override;

protected:
    Status write(std::size_t at, std::span<const std::byte> bytes) override;
    Status read(std::size_t at, std::span<std::byte> bytes) const override;
    Status fill(std::size_t at, std::uint8_t value, std::size_t size) override;

private:
    friend class CudaBufferType;
    CudaBuffer(CudaBufferType& type, std::size_t size, void* memory) : Buffer(type, size), cuda_type_(&type), memory_(memory) {}

    std::byte* bytes_at(std::size_t at) const { return static_cast<std::byte*>(memory_) + at; }

    CudaBufferType* cuda_type_;
    void* memory_;
};

bool is_cuda_buffer(const Buffer& buffer);

} // namespace gallocsim
