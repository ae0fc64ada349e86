#pragma once
// Runs a planned graph on real memory, so that a plan can be judged by what it computes:
// run the allocator's plan and the no-reuse oracle's plan (oracle.hpp) and compare.
//
// Executor::run takes a graph whose tensors already have memory (GraphAllocator::alloc_graph
// or OracleAllocator::alloc_graph) and
//   1. gives tensors with outside memory (data but no buffer: a graph file's `data: true`,
//      whose working copy has only a placeholder address, see working_graph.hpp) real memory
//      of the backend for this run, together with their views, and takes it back afterwards;
//   2. fills every tensor that nothing computes (leafs, inputs, weights) with seeded values
//      or the values given: leafs, inputs and weights before the first node, anything else
//      (an op NONE node, a parameter) just before the first node that touches it, because
//      that is when gallocr gives it memory;
//   3. runs the nodes in order (views compute nothing: kernels read through strides);
//   4. reads back the results: tensors flagged output, and nodes that no node reads (gallocr
//      never frees those; a node that reads itself, as ggml_cast's CPY does, is freed).
//
// Poisoning (ExecutionOptions::poison) fills with kPoisonByte every byte of the plan's
// tensors before anything is written, and, after each node, the bytes of every tensor that
// no later node reads (less the bytes that node just wrote, which a result may have taken
// over in place). A plan that lets a tensor overwrite one that is still needed then shows
// up as NaN in the results even when the overwriting values happen to be the right ones.
//
// Graph files carry no op_params, so where 0 makes no sense the executor uses llama's
// values: ROPE freq_base 10000, freq_scale 1, attn_factor 1; a CONCAT whose shapes do not
// fit op_params[0] concatenates along the one dimension they fit.

#include "reference/buffer.hpp"
#include "reference/tensor.hpp"
#include "simulator/executor/tensor_values.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

enum class Backend { cpu, cuda };

std::string_view backend_name(Backend backend);

// Built into this binary, and (for CUDA) a device is present.
bool backend_available(Backend backend);

// Why a backend is unavailable ("" when it is available).
std::string backend_unavailable_reason(Backend backend);

// The buffer type of the backend's memory: ggml's CPU type, or CUDA0. nullptr for CUDA in
// a build without CUDA.
std::unique_ptr<BufferType> make_buffer_type(Backend backend);

// How far CUDA results may stray from CPU results of the same plan: the backends differ in
// the last bits of exp, tanh, sin, cos and pow and in fused multiply-adds (reductions are in
// double on both), and an f16 result may then round one step (2^-11 relative) apart.
inline constexpr Tolerance kCpuCudaTolerance{.absolute = 1e-4, .relative = 2e-3};

// 0xff in every byte is a NaN as f32 (0xffffffff), f16 and bf16 (0xffff), and -1 as an
// integer, which no row index may be.
inline constexpr std::uint8_t kPoisonByte = 0xff;

struct ExecutionOptions {
    std::uint64_t seed = 1;
    bool poison = false;
    // Values for tensors that nothing computes, by name: one per element in logical
    // order, converted to the tensor's type. Every name must be such a tensor.
    std::map<std::string, std::vector<float>, std::less<>> values{};
};

struct ExecutionResult {
    std::string error;                // empty when the graph ran
    std::vector<TensorValue> outputs;  // in graph order: leafs, then nodes

    bool ok() const { return error.empty(); }
    const TensorValue* find(std::string_view name) const;
};

class Executor {
public:
    explicit Executor(Backend backend);
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    Backend backend() const { return backend_; }

    // Evaluates the planned graph. Every tensor must live in the backend's memory. Fails,
    // with the reason, for ops, types or shapes the executor cannot run ("not
    // executable"), for row indices out of range, and for backend errors.
    ExecutionResult run(Graph& graph, const ExecutionOptions& options = {});

private:
    Backend backend_;
    std::unique_ptr<BufferType> outside_type_;  // memory for tensors with outside memory
};

} // namespace gallocsim
