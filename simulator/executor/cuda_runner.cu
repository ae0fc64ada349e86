// The CUDA backend's runner: the kernels of kernels.hpp, one thread per item.
#include "simulator/executor/runners.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

namespace gallocsim {
namespace {

// Where kernels report a bad row index; reset before and read after every node.
__device__ int g_kernel_status;

template <typename Kernel>
__global__ void run_items(kernels::NodeArgs node, std::int64_t items, Kernel kernel, int* status) {
    const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
    for (std::int64_t item = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; item < items;
         item += stride) {
        kernel(node, item, status);
    }
}

struct CudaLaunch {
    int* status = nullptr;

    template <typename Kernel>
    void operator()(const kernels::NodeArgs& node, std::int64_t items, Kernel kernel) {
        if (items <= 0) {
            return;
        }
        constexpr int kThreads = 256;
        const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((items + kThreads - 1) / kThreads, 1 << 20));
        run_items<<<blocks, kThreads>>>(node, items, kernel, status);
    }
};

std::string failure(const char* what, cudaError_t error) {
    cudaGetLastError();
    return std::string(what) + ": " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ")";
}

} // namespace

std::string run_node_on_cuda(const kernels::NodeArgs& node) {
    int* status = nullptr;
    if (const cudaError_t error = cudaGetSymbolAddress(reinterpret_cast<void**>(&status), g_kernel_status);
        error != cudaSuccess) {
        return failure("cannot reach the kernel status", error);
    }
    if (const cudaError_t error = cudaMemset(status, 0, sizeof(int)); error != cudaSuccess) {
        return failure("cannot reset the kernel status", error);
    }
    CudaLaunch launch{status};
    if (!kernels::dispatch(node, launch)) {
        return "the CUDA backend has no kernel for " + std::string(op_name(node.op));
    }
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) {
        return failure("kernel launch failed", error);
    }
    int code = kernels::kKernelOk;
    if (const cudaError_t error = cudaMemcpy(&code, status, sizeof code, cudaMemcpyDeviceToHost); error != cudaSuccess) {
        return failure("kernel failed", error);
    }
    return kernel_status_message(code);
}

} // namespace gallocsim
