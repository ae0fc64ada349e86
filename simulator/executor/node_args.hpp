#pragma once
// The host's half of running a node: decide whether the executor can run it (op, types,
// shapes, parameters) and turn it into a kernel's arguments. Whatever is refused here is
// "not executable" with a reason; whatever passes, every backend's kernels can run.

#include "reference/tensor.hpp"
#include "simulator/executor/kernels.hpp"

#include <string>

namespace gallocsim {

// Does the op compute anything? NONE and the views (VIEW, RESHAPE, PERMUTE, TRANSPOSE)
// only name memory that is already there.
bool computes(Op op);

// Element types kernels can read (sources) and write (results).
bool readable_type(DataType type);
bool writable_type(DataType type);

struct PreparedNode {
    kernels::NodeArgs args;
    std::string error;  // empty when the node can run
};

// The node's kernel arguments, with parameters a graph file leaves at 0 filled in (see
// executor.hpp), or why it cannot run: "ROPE Qcur-0: mode 8 is not supported".
PreparedNode prepare_node(const Tensor& node);

} // namespace gallocsim
