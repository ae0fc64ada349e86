#include "simulator/executor/runners.hpp"

namespace gallocsim {
namespace {

struct CpuLaunch {
    int status = kernels::kKernelOk;

    template <typename Kernel>
    void operator()(const kernels::NodeArgs& node, std::int64_t items, Kernel kernel) {
        for (std::int64_t item = 0; item < items && status == kernels::kKernelOk; ++item) {
            kernel(node, item, &status);
        }
    }
};

} // namespace

std::string run_node_on_cpu(const kernels::NodeArgs& node) {
    CpuLaunch launch;
    if (!kernels::dispatch(node, launch)) {
        return "the CPU backend has no kernel for " + std::string(op_name(node.op));
    }
    return kernel_status_message(launch.status);
}

} // namespace gallocsim
