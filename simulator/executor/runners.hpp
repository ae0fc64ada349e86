#pragma once
// The backends' kernel runners: each runs one node's kernel (see kernels.hpp) to completion.
// They return an empty string on success, else what went wrong, for the executor to put
// behind the node's name.

#include "simulator/executor/kernels.hpp"

#include <string>

namespace gallocsim {

// Single-threaded loops over the kernel's items, in order: two runs give the same bits.
std::string run_node_on_cpu(const kernels::NodeArgs& node);

#ifdef GALLOCSIM_HAVE_CUDA
// One thread per item on CUDA device 0 (every pointer in `node` is device memory); waits
// for the kernel. Items never write what another item reads, so runs repeat bit for bit.
std::string run_node_on_cuda(const kernels::NodeArgs& node);
#endif

inline std::string kernel_status_message(int status) {
    switch (status) {
    case kernels::kKernelOk: return {};
    case kernels::kRowIndexOutOfRange: return "a row index is out of range";
    default: return "kernel status " + std::to_string(status);
    }
}

} // namespace gallocsim
