#pragma once
// The tensor and graph model the allocator sees: ggml_tensor reduced to what planning
// memory needs (shape, strides, op, sources, view source, flags, data/buffer), the
// context that owns tensors in creation order, and a graph = ordered leafs and nodes.

#include "reference/ops.hpp"
#include "reference/types.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

class Buffer;

inline constexpr int kMaxDims = 4;   // GGML_MAX_DIMS
inline constexpr int kMaxSrc = 10;   // GGML_MAX_SRC
inline constexpr int kMaxOpParams = 16;

// GGML_TENSOR_FLAG_*
enum class TensorFlag : std::uint8_t { input = 1, output = 2, param = 4, loss = 8, compute = 16 };

class TensorFlags {
public:
    constexpr TensorFlags() = default;
    constexpr bool has(TensorFlag flag) const { return (bits_ & static_cast<std::uint8_t>(flag)) != 0; }
    constexpr void set(TensorFlag flag) { bits_ |= static_cast<std::uint8_t>(flag); }
    constexpr void clear(TensorFlag flag) { bits_ &= static_cast<std::uint8_t>(~static_cast<std::uint8_t>(flag)); }
    constexpr std::uint8_t bits() const { return bits_; }
    constexpr bool operator==(const TensorFlags&) const = default;

private:
    std::uint8_t bits_ = 0;
};

inline constexpr std::array<std::pair<TensorFlag, std::string_view>, 5> kFlagNames{{
    {TensorFlag::input, "input"}, {TensorFlag::output, "output"}, {TensorFlag::param, "param"},
    {TensorFlag::loss, "loss"}, {TensorFlag::compute, "compute"},
}};

struct Tensor {
    std::string name;
    DataType type = DataType::f32;
    std::array<std::int64_t, kMaxDims> ne{1, 1, 1, 1};
    std::array<std::size_t, kMaxDims> nb{};
    Op op = Op::NONE;
    std::array<std::int32_t, kMaxOpParams> op_params{};  // e.g. the UnaryOp of a UNARY
    std::array<Tensor*, kMaxSrc> src{};                 // holes allowed, as in ggml
    Tensor* view_src = nullptr;                         // root of a chain of views
    std::size_t view_offs = 0;
    TensorFlags flags;
    void* data = nullptr;      // set by the allocator, or external (weights)
    Buffer* buffer = nullptr;  // the backend buffer (chunk) data lives in
    // Position in the owning Context, set by Context::add: tools keep per-tensor tables
    // indexed by it instead of hashing pointers (the trace recorder looks one up per event).
    std::size_t index = 0;

    bool is_view() const { return view_src != nullptr; }
    bool has_flag(TensorFlag flag) const { return flags.has(flag); }
};

// A tensor as the simulator names it past input (plans, traces, checks, comparisons): its
// Tensor::index, the position among its context's tensors, which for a graph file is the
// file's order. 32 bits, since a graph has far fewer than 2^31 tensors; kNoTensor for none.
// A name is looked up once, where it is read, and written again only where it is shown.
using TensorId = std::int32_t;
inline constexpr TensorId kNoTensor = -1;
inline TensorId tensor_id(const Tensor& tensor) { return static_cast<TensorId>(tensor.index); }

// ggml_new_tensor's strides: nb[0] = type size, nb[1] = nb[0]*ne[0]/block, nb[i] = nb[i-1]*ne[i-1].
std::array<std::size_t, kMaxDims> contiguous_strides(DataType type, const std::array<std::int64_t, kMaxDims>& ne);

// ggml_nbytes: bytes spanned by the tensor's elements (0 when any ne[i] <= 0).
std::size_t nbytes(const Tensor& tensor);

// ggml_nelements
std::int64_t element_count(const Tensor& tensor);

// ggml_are_same_layout: same type, shape and strides.
bool same_layout(const Tensor& a, const Tensor& b);

bool is_contiguous(const Tensor& tensor);

// What ggml_new_tensor_impl asserts of a view: its bytes lie inside its source's.
bool lies_within_source(const Tensor& view);

// Owns tensors in creation order (a ggml_context with no_alloc = true). Tensors keep
// their address for the context's lifetime, so graphs may point at them.
class Context {
public:
    Context() = default;
    Context(Context&&) noexcept = default;
    Context& operator=(Context&&) noexcept = default;
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    Tensor& add(Tensor tensor);
    // The first tensor with this name, searched in creation order as ggml_get_tensor does: a
    // tensor renamed after it was added is found under its new name only. A search per call:
    // for a look-up per tensor, read the names into ids once (tensors_by_name, model/).
    Tensor* find(std::string_view name);
    const Tensor* find(std::string_view name) const;

    std::deque<Tensor>& tensors() { return tensors_; }
    const std::deque<Tensor>& tensors() const { return tensors_; }
    std::size_t size() const { return tensors_.size(); }

private:
    std::deque<Tensor> tensors_;
};

// graph->leafs and graph->nodes: nodes in execution order.
struct Graph {
    std::vector<Tensor*> leafs;
    std::vector<Tensor*> nodes;
};

// ggml_build_forward_expand: visits sources depth-first left to right; an op NONE tensor
// without the param flag becomes a leaf, anything else a node (with the compute flag when
// its op is not NONE). Tensors already in the graph are not added again.
void build_forward_expand(Graph& graph, Tensor& tensor);

} // namespace gallocsim
