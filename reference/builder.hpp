#pragma once
// Builds graphs the way ggml code does: ggml-style op constructors that give results
// ggml's shapes, strides, view sources and sources, plus ggml_build_forward_expand's
// ordering (see Graph in tensor.hpp). Enough of ggml for examples and property tests.

#include "reference/tensor.hpp"

#include <array>
#include <initializer_list>
#include <span>
#include <string>

namespace gallocsim {

using Shape = std::array<std::int64_t, kMaxDims>;

class GraphBuilder {
public:
    explicit GraphBuilder(Context& context) : context_(&context) {}

    Context& context() { return *context_; }

    // ggml_new_tensor: contiguous, op NONE. Missing trailing dimensions are 1.
    Tensor& new_tensor(DataType type, std::initializer_list<std::int64_t> ne, std::string name = {});
    Tensor& new_tensor(DataType type, const Shape& ne, std::string name = {});

    // Element-wise ops: the result has a's type and shape, contiguous.
    Tensor& binary(Op op, Tensor& a, Tensor& b);
    Tensor& add(Tensor& a, Tensor& b) { return binary(Op::ADD, a, b); }
    Tensor& sub(Tensor& a, Tensor& b) { return binary(Op::SUB, a, b); }
    Tensor& mul(Tensor& a, Tensor& b) { return binary(Op::MUL, a, b); }
    Tensor& div(Tensor& a, Tensor& b) { return binary(Op::DIV, a, b); }
    Tensor& add1(Tensor& a, Tensor& b) { return binary(Op::ADD1, a, b); }
    Tensor& unary_op(Op op, Tensor& a);  // SQR, SQRT, LOG, RMS_NORM, CONT...
    Tensor& unary(Tensor& a, UnaryOp kind);
    Tensor& scale(Tensor& a, float factor);
    Tensor& fill(Tensor& a, float value);
    Tensor& clamp(Tensor& a, float min, float max);  // a new tensor, as ggml_clamp builds it since llama.cpp #27644
    Tensor& rms_norm(Tensor& a, float eps = 1e-6f);
    Tensor& soft_max(Tensor& a, Tensor* mask = nullptr, float scale = 1.0f);
    Tensor& rope(Tensor& a, Tensor& positions, int n_dims = 0);
    Tensor& norm(Tensor& a, float eps = 1e-5f);          // ggml_norm (layer norm without the affine part)
    Tensor& diag_mask_inf(Tensor& a, int n_past);       // ggml_diag_mask_inf

    // The *_inplace variants: the result is a view of a (same memory), as in ggml.
    Tensor& binary_inplace(Op op, Tensor& a, Tensor& b);
    Tensor& unary_inplace(Op op, Tensor& a);
    // ggml_unary_inplace, ggml_scale_inplace, ggml_soft_max_ext_inplace, ggml_rope_inplace:
    // the same parameters as the plain ops, the result a view of a.
    Tensor& unary_inplace(Tensor& a, UnaryOp kind);
    Tensor& scale_inplace(Tensor& a, float factor);
    Tensor& soft_max_inplace(Tensor& a, Tensor* mask = nullptr, float scale = 1.0f);
    Tensor& rope_inplace(Tensor& a, Tensor& positions, int n_dims = 0);

    // Shape-changing ops.
    Tensor& mul_mat(Tensor& a, Tensor& b);    // ne = [a.ne1, b.ne1, b.ne2, b.ne3], f32
    Tensor& get_rows(Tensor& a, Tensor& rows);  // ne = [a.ne0, rows.ne0, rows.ne1, rows.ne2]
    Tensor& cont(Tensor& a);
    Tensor& cont(Tensor& a, const Shape& ne);   // ggml_cont_4d: same elements, new shape, named "<a> (cont)"
    Tensor& concat(Tensor& a, Tensor& b, int dim);
    Tensor& pad(Tensor& a, const Shape& extra);
    Tensor& sum_rows(Tensor& a);
    Tensor& mean(Tensor& a);
    Tensor& cast(Tensor& a, DataType type);     // CPY whose destination is itself

    // Views: the result's view_src is a's root, view_offs adds up along the chain.
    Tensor& view(Tensor& a, const Shape& ne, const std::array<std::size_t, 3>& nb123, std::size_t offset);
    Tensor& view_1d(Tensor& a, std::int64_t ne0, std::size_t offset);
    Tensor& reshape(Tensor& a, const Shape& ne);
    Tensor& permute(Tensor& a, int axis0, int axis1, int axis2, int axis3);
    Tensor& transpose(Tensor& a);
    Tensor& cpy(Tensor& a, Tensor& b);                    // copy a into b: a view of b
    Tensor& set_rows(Tensor& a, Tensor& b, Tensor& rows);  // write rows of b into a: a view of a
    Tensor& view_tensor(Tensor& a);  // ggml_view_tensor: op NONE, a's shape and strides, no source

private:
    Tensor& make(DataType type, const Shape& ne, Op op, std::initializer_list<Tensor*> src, std::string name);
    Tensor& make_view(Tensor& a, const Shape& ne, std::size_t offset, Op op, std::string name);
    Tensor& view_tensor(Tensor& a, Op op);  // ggml_view_tensor: a's shape and strides, for *_inplace

    Context* context_;
};

// ggml_set_input / ggml_set_output (an output view also marks its root).
void set_input(Tensor& tensor);
void set_output(Tensor& tensor);

} // namespace gallocsim
