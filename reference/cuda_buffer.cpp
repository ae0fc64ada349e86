#include "reference/cuda_buffer.hpp"

#include <cuda_runtime_api.h>

namespace gallocsim {
namespace {

std::string describe(cudaError_t error) {
    return std::string(cudaGetErrorString(error)) + " (" + cudaGetErrorName(error) + ")";
}

} // namespace

CudaProbe probe_cuda_device() {
    int count = 0;
    if (const cudaError_t error = cudaGetDeviceCount(&count); error != cudaSuccess) {
        cudaGetLastError();
        return {false, describe(error)};
    }
    if (count == 0) {
        return {false, "the CUDA runtime reports no device"};
    }
    cudaDeviceProp properties{};
    if (const cudaError_t error = cudaGetDeviceProperties(&properties, 0); error != cudaSuccess) {
        cudaGetLastError();
        return {false, "device 0: " + describe(error)};
    }
    return {true, std::string(properties.name) + ", compute capability " + std::to_string(properties.major) + "." +
                      std::to_string(properties.minor)};
}

bool cuda_device_available() {
    return probe_cuda_device().available;
}

bool CudaBufferType::fail(std::string_view call, int cuda_error) const {
    cudaGetLastError();  // these errors are not sticky: clear them so later calls start clean
    last_error_ = std::string(call) + " failed: " + describe(static_cast<cudaError_t>(cuda_error));
    return false;
}

std::unique_ptr<Buffer> CudaBufferType::allocate_memory(std::size_t size) {
    void* memory = nullptr;
    if (const cudaError_t error = cudaMalloc(&memory, size); error != cudaSuccess) {
        fail("cudaMalloc of " + std::to_string(size) + " bytes", error);
        return nullptr;
    }
    return std::unique_ptr<Buffer>(new CudaBuffer(*this, size, memory));
}

CudaBuffer::~CudaBuffer() {
    // A failure here means the context is already gone; there is nothing left to release.
    if (const cudaError_t error = cudaFree(memory_); error != cudaSuccess) {
        cuda_type_->fail("cudaFree", error);
    }
}

Status CudaBuffer::init_tensor(Tensor& tensor) {
    if (tensor.view_src != nullptr || !is_quantized(tensor.type) || usage() == BufferUsage::compute) {
        return Status::success;
    }
    const std::size_t used = nbytes(tensor);
    const std::size_t padded = alloc_size(tensor);
    if (padded <= used) {
        return Status::success;
    }
    const auto padding = static_cast<std::byte*>(tensor.data) + used;
    if (const cudaError_t error = cudaMemset(padding, 0, padded - used); error != cudaSuccess) {
        cuda_type_->fail("cudaMemset of the padding of " + tensor.name, error);
        return Status::failed;
    }
    return Status::success;
}

Status CudaBuffer::write(std::size_t at, std::span<const std::byte> bytes) {
    if (const cudaError_t error = cudaMemcpy(bytes_at(at), bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
        error != cudaSuccess) {
        cuda_type_->fail("cudaMemcpy of " + std::to_string(bytes.size()) + " bytes to the device", error);
        return Status::failed;
    }
    return Status::success;
}

Status CudaBuffer::read(std::size_t at, std::span<std::byte> bytes) const {
    if (const cudaError_t error = cudaMemcpy(bytes.data(), bytes_at(at), bytes.size(), cudaMemcpyDeviceToHost);
        error != cudaSuccess) {
        cuda_type_->fail("cudaMemcpy of " + std::to_string(bytes.size()) + " bytes from the device", error);
        return Status::failed;
    }
    return Status::success;
}

Status CudaBuffer::fill(std::size_t at, std::uint8_t value, std::size_t size) {
    if (const cudaError_t error = cudaMemset(bytes_at(at), value, size); error != cudaSuccess) {
        cuda_type_->fail("cudaMemset of " + std::to_string(size) + " bytes", error);
        return Status::failed;
    }
    return Status::success;
}

bool is_cuda_buffer(const Buffer& buffer) {
    return dynamic_cast<const CudaBuffer*>(&buffer) != nullptr;
}

} // namespace gallocsim
