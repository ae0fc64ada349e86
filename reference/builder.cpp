#include "reference/builder.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gallocsim {
namespace {

void put_float(Tensor& t, int index, float value) {
    std::memcpy(&t.op_params[static_cast<std::size_t>(index)], &value, sizeof value);
}

// An op whose one float parameter (a factor, a value, an eps) is op_params[0].
Tensor& with_float(Tensor& t, float value) {
    put_float(t, 0, value);
    return t;
}

} // namespace

Tensor& GraphBuilder::make(DataType type, const Shape& ne, Op op, std::initializer_list<Tensor*> src, std::string name) {
    Tensor t;
    t.type = type;
    t.ne = ne;
    t.nb = contiguous_strides(type, ne);
    t.op = op;
    std::size_t i = 0;
    for (Tensor* s : src) {
        t.src[i++] = s;
    }
    t.name = name.empty() ? "t" + std::to_string(context_->size()) : std::move(name);
    return context_->add(std::move(t));
}

Tensor& GraphBuilder::new_tensor(DataType type, const Shape& ne, std::string name) {
    return make(type, ne, Op::NONE, {}, std::move(name));
}

Tensor& GraphBuilder::new_tensor(DataType type, std::initializer_list<std::int64_t> ne, std::string name) {
    if (ne.size() == 0 || ne.size() > kMaxDims) {
        throw std::invalid_argument("a tensor has 1 to 4 dimensions");
    }
    Shape shape{1, 1, 1, 1};
    std::ranges::copy(ne, shape.begin());
    return new_tensor(type, shape, std::move(name));
}

// ggml_new_tensor_impl with a view source: a view of a view points at the root.
Tensor& GraphBuilder::make_view(Tensor& a, const Shape& ne, std::size_t offset, Op op, std::string name) {
    Tensor t;
    t.type = a.type;
    t.ne = ne;
    t.nb = contiguous_strides(a.type, ne);
    t.op = op;
    t.src[0] = &a;
    t.view_src = a.view_src ? a.view_src : &a;
    t.view_offs = offset + (a.view_src ? a.view_offs : 0);
    if (!lies_within_source(t)) {
        throw std::invalid_argument("view of " + a.name + " reaches past its source");
    }
    t.name = name.empty() ? a.name + " (view)" : std::move(name);
    return context_->add(std::move(t));
}

Tensor& GraphBuilder::binary(Op op, Tensor& a, Tensor& b) {
    return make(a.type, a.ne, op, {&a, &b}, {});
}

Tensor& GraphBuilder::unary_op(Op op, Tensor& a) {
    return make(a.type, a.ne, op, {&a}, {});
}

Tensor& GraphBuilder::unary(Tensor& a, UnaryOp kind) {
    Tensor& t = make(a.type, a.ne, Op::UNARY, {&a}, {});
    t.op_params[0] = static_cast<std::int32_t>(kind);
    return t;
}

Tensor& GraphBuilder::scale(Tensor& a, float factor) {
    return with_float(unary_op(Op::SCALE, a), factor);
}

Tensor& GraphBuilder::clamp(Tensor& a, float min, float max) {
    Tensor& t = make(a.type, a.ne, Op::CLAMP, {&a}, {});
    put_float(t, 0, min);
    put_float(t, 1, max);
    return t;
}

Tensor& GraphBuilder::fill(Tensor& a, float value) {
    return with_float(unary_op(Op::FILL, a), value);
}

Tensor& GraphBuilder::rms_norm(Tensor& a, float eps) {
    return with_float(unary_op(Op::RMS_NORM, a), eps);
}

Tensor& GraphBuilder::soft_max(Tensor& a, Tensor* mask, float factor) {
    return with_float(make(a.type, a.ne, Op::SOFT_MAX, {&a, mask}, {}), factor);
}

Tensor& GraphBuilder::rope(Tensor& a, Tensor& positions, int n_dims) {
    Tensor& t = make(a.type, a.ne, Op::ROPE, {&a, &positions}, {});
    t.op_params[1] = n_dims == 0 ? static_cast<std::int32_t>(a.ne[0]) : n_dims;
    return t;
}

Tensor& GraphBuilder::norm(Tensor& a, float eps) {
    return with_float(unary_op(Op::NORM, a), eps);
}

Tensor& GraphBuilder::diag_mask_inf(Tensor& a, int n_past) {
    Tensor& t = make(a.type, a.ne, Op::DIAG_MASK_INF, {&a}, {});
    t.op_params[0] = n_past;
    return t;
}

Tensor& GraphBuilder::view_tensor(Tensor& a, Op op) {
    Tensor& t = make_view(a, a.ne, 0, op, {});
    t.nb = a.nb;
    return t;
}

Tensor& GraphBuilder::view_tensor(Tensor& a) {
    return view_tensor(a, Op::NONE);
}

Tensor& GraphBuilder::unary_inplace(Tensor& a, UnaryOp kind) {
    Tensor& t = view_tensor(a, Op::UNARY);
    t.op_params[0] = static_cast<std::int32_t>(kind);
    return t;
}

Tensor& GraphBuilder::scale_inplace(Tensor& a, float factor) {
    return with_float(view_tensor(a, Op::SCALE), factor);
}

Tensor& GraphBuilder::soft_max_inplace(Tensor& a, Tensor* mask, float factor) {
    Tensor& t = view_tensor(a, Op::SOFT_MAX);
    t.src[1] = mask;
    return with_float(t, factor);
}

Tensor& GraphBuilder::rope_inplace(Tensor& a, Tensor& positions, int n_dims) {
    Tensor& t = view_tensor(a, Op::ROPE);
    t.src[1] = &positions;
    t.op_params[1] = n_dims == 0 ? static_cast<std::int32_t>(a.ne[0]) : n_dims;
    return t;
}

Tensor& GraphBuilder::binary_inplace(Op op, Tensor& a, Tensor& b) {
    Tensor& t = make_view(a, a.ne, 0, op, {});
    t.nb = a.nb;
    t.src[1] = &b;
    return t;
}

Tensor& GraphBuilder::unary_inplace(Op op, Tensor& a) {
    Tensor& t = make_view(a, a.ne, 0, op, {});
    t.nb = a.nb;
    return t;
}

Tensor& GraphBuilder::mul_mat(Tensor& a, Tensor& b) {
    return make(DataType::f32, {a.ne[1], b.ne[1], b.ne[2], b.ne[3]}, Op::MUL_MAT, {&a, &b}, {});
}

Tensor& GraphBuilder::get_rows(Tensor& a, Tensor& rows) {
    const DataType type = a.type == DataType::i32 ? DataType::i32 : DataType::f32;
    return make(type, {a.ne[0], rows.ne[0], rows.ne[1], rows.ne[2]}, Op::GET_ROWS, {&a, &rows}, {});
}

Tensor& GraphBuilder::cont(Tensor& a) {
    return make(a.type, a.ne, Op::CONT, {&a}, {});
}

Tensor& GraphBuilder::cont(Tensor& a, const Shape& ne) {
    if (ne[0] * ne[1] * ne[2] * ne[3] != element_count(a)) {
        throw std::invalid_argument("cont of " + a.name + " to a shape with a different number of elements");
    }
    return make(a.type, ne, Op::CONT, {&a}, a.name + " (cont)");
}

Tensor& GraphBuilder::concat(Tensor& a, Tensor& b, int dim) {
    Shape ne = a.ne;
    ne[static_cast<std::size_t>(dim)] += b.ne[static_cast<std::size_t>(dim)];
    Tensor& t = make(a.type, ne, Op::CONCAT, {&a, &b}, {});
    t.op_params[0] = dim;
    return t;
}

Tensor& GraphBuilder::pad(Tensor& a, const Shape& extra) {
    Shape ne = a.ne;
    for (std::size_t i = 0; i < ne.size(); ++i) {
        ne[i] += extra[i];
    }
    Tensor& t = make(a.type, ne, Op::PAD, {&a}, {});
    // ggml_pad_ext stores (left, right) per dimension; this pads on the right.
    for (std::size_t i = 0; i < ne.size(); ++i) {
        t.op_params[2 * i + 1] = static_cast<std::int32_t>(extra[i]);
    }
    return t;
}

Tensor& GraphBuilder::sum_rows(Tensor& a) {
    return make(a.type, {1, a.ne[1], a.ne[2], a.ne[3]}, Op::SUM_ROWS, {&a}, {});
}

Tensor& GraphBuilder::mean(Tensor& a) {
    return make(a.type, {1, a.ne[1], a.ne[2], a.ne[3]}, Op::MEAN, {&a}, {});
}

Tensor& GraphBuilder::cast(Tensor& a, DataType type) {
    Tensor& t = make(type, a.ne, Op::CPY, {&a}, {});
    t.src[1] = &t;
    return t;
}

Tensor& GraphBuilder::view(Tensor& a, const Shape& ne, const std::array<std::size_t, 3>& nb123, std::size_t offset) {
    // ggml_view_Nd checks the contiguous extent, then sets the strides.
    Tensor& t = make_view(a, ne, offset, Op::VIEW, {});
    t.nb[1] = nb123[0];
    t.nb[2] = nb123[1];
    t.nb[3] = nb123[2];
    return t;
}

Tensor& GraphBuilder::view_1d(Tensor& a, std::int64_t ne0, std::size_t offset) {
    return make_view(a, {ne0, 1, 1, 1}, offset, Op::VIEW, {});
}

Tensor& GraphBuilder::reshape(Tensor& a, const Shape& ne) {
    return make_view(a, ne, 0, Op::RESHAPE, a.name + " (reshaped)");
}

Tensor& GraphBuilder::permute(Tensor& a, int axis0, int axis1, int axis2, int axis3) {
    Tensor& t = make_view(a, a.ne, 0, Op::PERMUTE, a.name + " (permuted)");
    const std::array<int, 4> axes{axis0, axis1, axis2, axis3};
    for (std::size_t i = 0; i < axes.size(); ++i) {
        t.ne[static_cast<std::size_t>(axes[i])] = a.ne[i];
        t.nb[static_cast<std::size_t>(axes[i])] = a.nb[i];
        t.op_params[i] = axes[i];
    }
    return t;
}

Tensor& GraphBuilder::transpose(Tensor& a) {
    Tensor& t = make_view(a, a.ne, 0, Op::TRANSPOSE, a.name + " (transposed)");
    std::swap(t.ne[0], t.ne[1]);
    t.nb = a.nb;
    std::swap(t.nb[0], t.nb[1]);
    return t;
}

Tensor& GraphBuilder::cpy(Tensor& a, Tensor& b) {
    Tensor& t = make_view(b, b.ne, 0, Op::CPY, b.name + " (copy of " + a.name + ")");
    t.nb = b.nb;
    t.src[0] = &a;
    t.src[1] = &b;
    return t;
}

Tensor& GraphBuilder::set_rows(Tensor& a, Tensor& b, Tensor& rows) {
    Tensor& t = make_view(a, a.ne, 0, Op::SET_ROWS, {});
    t.nb = a.nb;
    // ggml's order: values, row indices, then the destination a.
    t.src[0] = &b;
    t.src[1] = &rows;
    t.src[2] = &a;
    return t;
}

void set_input(Tensor& tensor) {
    tensor.flags.set(TensorFlag::input);
}

void set_output(Tensor& tensor) {
    tensor.flags.set(TensorFlag::output);
    if (tensor.view_src != nullptr) {
        tensor.view_src->flags.set(TensorFlag::output);
    }
}

} // namespace gallocsim
