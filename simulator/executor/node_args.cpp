#include "simulator/executor/node_args.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace gallocsim {
namespace {

using kernels::NodeArgs;
using kernels::TensorArgs;

std::string show(const std::array<std::int64_t, kMaxDims>& ne) {
    std::ostringstream out;
    out << "[" << ne[0] << ", " << ne[1] << ", " << ne[2] << ", " << ne[3] << "]";
    return out.str();
}

TensorArgs tensor_args(const Tensor* tensor) {
    TensorArgs args;
    if (tensor == nullptr) {
        return args;
    }
    args.data = static_cast<unsigned char*>(tensor->data);
    args.type = tensor->type;
    std::ranges::copy(tensor->ne, args.ne);
    std::ranges::copy(tensor->nb, args.nb);
    return args;
}

float param_float(const Tensor& node, std::size_t k) {
    float value;
    std::memcpy(&value, &node.op_params[k], sizeof value);
    return value;
}

void set_param_float(NodeArgs& args, std::size_t k, float value) {
    std::memcpy(&args.params[k], &value, sizeof value);
}

// b can be repeated to fill a's shape: each dimension of b divides a's (ggml_can_repeat).
bool repeats_to(const Tensor& b, const Tensor& a) {
    for (int k = 0; k < kMaxDims; ++k) {
        const auto i = static_cast<std::size_t>(k);
        if (b.ne[i] == 0 ? a.ne[i] != 0 : a.ne[i] % b.ne[i] != 0) {
            return false;
        }
    }
    return true;
}

bool is_index_type(DataType type) {
    return type == DataType::i32 || type == DataType::i64;
}

class Checker {
public:
    explicit Checker(const Tensor& node) : node_(&node) {}

    // Records the first problem; later checks add nothing.
    bool require(bool ok, const std::string& problem) {
        if (!ok && error_.empty()) {
            error_ = std::string(op_name(node_->op)) + " " + node_->name + ": " + problem;
        }
        return ok;
    }

    const Tensor* source(int k) {
        const Tensor* src = node_->src[static_cast<std::size_t>(k)];
        if (!require(src != nullptr, "source " + std::to_string(k) + " is missing")) {
            return nullptr;
        }
        require(readable_type(src->type), "cannot read " + std::string(type_name(src->type)) + " source " + src->name);
        if (is_quantized(src->type)) {
            require(src->nb[0] == type_size(src->type), "quantized source " + src->name + " has split blocks");
        }
        return src;
    }

    // The result's shape is `expected`.
    void result_shape(const std::array<std::int64_t, kMaxDims>& expected) {
        require(node_->ne == expected, "the result has shape " + show(node_->ne) + ", expected " + show(expected));
    }

    bool ok() const { return error_.empty(); }
    std::string error() const { return error_; }

private:
    const Tensor* node_;
    std::string error_;
};

// The dimension of a CONCAT: op_params[0] when the shapes agree with it, else the one
// dimension they agree with (graph files carry no op_params).
int concat_dimension(const Tensor& node, const Tensor& a, const Tensor& b) {
    auto fits = [&](int dim) {
        for (int k = 0; k < kMaxDims; ++k) {
            const auto i = static_cast<std::size_t>(k);
            const bool ok = k == dim ? node.ne[i] == a.ne[i] + b.ne[i] : node.ne[i] == a.ne[i] && b.ne[i] == a.ne[i];
            if (!ok) {
                return false;
            }
        }
        return true;
    };
    const int asked = node.op_params[0];
    if (asked >= 0 && asked < kMaxDims && fits(asked)) {
        return asked;
    }
    for (int dim = 0; dim < kMaxDims; ++dim) {
        if (fits(dim)) {
            return dim;
        }
    }
    return -1;
}

void check_rope(Checker& check, const Tensor& node, const Tensor& a, NodeArgs& args) {
    const Tensor* positions = check.source(1);
    if (positions == nullptr) {
        return;
    }
    check.require(positions->type == DataType::i32, "positions " + positions->name + " must be i32");
    check.require(positions->ne[0] >= a.ne[2], "fewer positions than dim-2 slices of " + a.name);
    check.result_shape(a.ne);
    const std::int32_t n_dims = node.op_params[1];
    const std::int32_t mode = node.op_params[2];
    check.require(mode == 0 || mode == 2, "mode " + std::to_string(mode) + " is not supported (0 and 2 are)");
    check.require(n_dims >= 0 && n_dims % 2 == 0 && n_dims <= a.ne[0],
                  "n_dims " + std::to_string(n_dims) + " must be even and at most ne0");
    if (node.src[2] != nullptr) {
        const Tensor* factors = check.source(2);
        check.require(factors->ne[0] >= n_dims / 2, "fewer frequency factors than rotated pairs");
    }
    check.require(param_float(node, 7) == 0.0f, "YaRN (ext_factor) is not supported");
    // A graph file carries no op_params: absent (0) frequency parameters take llama's values.
    auto or_default = [&](std::size_t k, float fallback) {
        const float value = param_float(node, k);
        set_param_float(args, k, value == 0.0f ? fallback : value);
    };
    or_default(5, 10000.0f);  // freq_base
    or_default(6, 1.0f);      // freq_scale
    or_default(8, 1.0f);      // attn_factor
}

void check_soft_max(Checker& check, const Tensor& node, const Tensor& a) {
    check.result_shape(a.ne);
    check.require(param_float(node, 1) == 0.0f, "ALiBi (max_bias) is not supported");
    if (node.src[1] != nullptr) {
        const Tensor& mask = *check.source(1);
        check.require(mask.ne[0] == a.ne[0] && mask.ne[1] >= a.ne[1] && mask.ne[2] > 0 && mask.ne[3] > 0 &&
                          a.ne[2] % mask.ne[2] == 0 && a.ne[3] % mask.ne[3] == 0,
                      "mask " + mask.name + " " + show(mask.ne) + " does not cover " + show(a.ne));
    }
    if (node.src[2] != nullptr) {
        const Tensor& sinks = *check.source(2);
        check.require(sinks.ne[0] >= a.ne[2], "sinks " + sinks.name + " has fewer than ne2 values");
    }
}

void check_mul_mat(Checker& check, const Tensor& a, const Tensor& b) {
    check.require(a.ne[0] == b.ne[0], "rows of " + a.name + " and " + b.name + " differ in length");
    check.require(a.ne[2] > 0 && a.ne[3] > 0 && b.ne[2] % a.ne[2] == 0 && b.ne[3] % a.ne[3] == 0,
                  a.name + " " + show(a.ne) + " does not repeat over " + b.name + " " + show(b.ne));
    check.result_shape({a.ne[1], b.ne[1], b.ne[2], b.ne[3]});
}

void check_get_rows(Checker& check, const Tensor& a, const Tensor& rows) {
    check.require(is_index_type(rows.type), "row indices " + rows.name + " must be i32 or i64");
    check.require(a.ne[2] == rows.ne[1] && a.ne[3] == rows.ne[2] && rows.ne[3] == 1,
                  "row indices " + rows.name + " " + show(rows.ne) + " do not match " + a.name + " " + show(a.ne));
    check.result_shape({a.ne[0], rows.ne[0], rows.ne[1], rows.ne[2]});
}

void check_set_rows(Checker& check, const Tensor& node, const Tensor& values, const Tensor& rows) {
    check.require(is_index_type(rows.type), "row indices " + rows.name + " must be i32 or i64");
    check.require(node.ne[0] == values.ne[0] && node.ne[2] == values.ne[2] && node.ne[3] == values.ne[3],
                  "values " + values.name + " " + show(values.ne) + " do not fit rows of " + show(node.ne));
    check.require(values.ne[1] == rows.ne[0] && rows.ne[1] > 0 && rows.ne[2] > 0 && values.ne[2] % rows.ne[1] == 0 &&
                      values.ne[3] % rows.ne[2] == 0,
                  "row indices " + rows.name + " " + show(rows.ne) + " do not match values " + show(values.ne));
}

// Checks sources 0 and 1 (each missing one is reported), then runs `then` on both when both are there.
template <typename Then>
void with_two_sources(Checker& check, Then then) {
    const Tensor* a = check.source(0);
    const Tensor* b = check.source(1);
    if (a != nullptr && b != nullptr) {
        then(*a, *b);
    }
}

void check_op(Checker& check, const Tensor& node, NodeArgs& args) {
    switch (node.op) {
    case Op::ADD: case Op::SUB: case Op::MUL: case Op::DIV:
        with_two_sources(check, [&](const Tensor& a, const Tensor& b) {
            check.result_shape(a.ne);
            check.require(repeats_to(b, a), b.name + " " + show(b.ne) + " does not repeat to " + show(a.ne));
        });
        return;
    case Op::ADD1:
        with_two_sources(check, [&](const Tensor& a, const Tensor& b) {
            check.result_shape(a.ne);
            check.require(element_count(b) >= 1, b.name + " is empty");
        });
        return;
    case Op::SCALE: case Op::SQR: case Op::SQRT: case Op::LOG: case Op::RMS_NORM:
        if (const Tensor* a = check.source(0)) {
            check.result_shape(a->ne);
        }
        return;
    case Op::UNARY:
        if (const Tensor* a = check.source(0)) {
            check.result_shape(a->ne);
        }
        check.require(node.op_params[0] >= 0 && node.op_params[0] <= static_cast<int>(UnaryOp::TRUNC) &&
                          node.op_params[0] != static_cast<int>(UnaryOp::XIELU),
                      "unary kind " + std::to_string(node.op_params[0]) + " is not supported");
        return;
    case Op::FILL:
        return;
    case Op::CONT: case Op::DUP: case Op::CPY:
        if (const Tensor* a = check.source(0)) {
            check.require(element_count(*a) == element_count(node), a->name + " has " +
                          std::to_string(element_count(*a)) + " elements, the result " + std::to_string(element_count(node)));
        }
        return;
    case Op::CONCAT:
        with_two_sources(check, [&](const Tensor& a, const Tensor& b) {
            const int dim = concat_dimension(node, a, b);
            check.require(dim >= 0, show(a.ne) + " and " + show(b.ne) + " do not concatenate to " + show(node.ne));
            args.params[0] = dim;
        });
        return;
    case Op::PAD:
        check.source(0);
        return;
    case Op::SUM_ROWS: case Op::MEAN:
        if (const Tensor* a = check.source(0)) {
            check.result_shape({1, a->ne[1], a->ne[2], a->ne[3]});
        }
        return;
    case Op::SOFT_MAX:
        if (const Tensor* a = check.source(0)) {
            check_soft_max(check, node, *a);
        }
        return;
    case Op::ROPE:
        if (const Tensor* a = check.source(0)) {
            check_rope(check, node, *a, args);
        }
        return;
    case Op::MUL_MAT:
        with_two_sources(check, [&](const Tensor& a, const Tensor& b) { check_mul_mat(check, a, b); });
        return;
    case Op::GET_ROWS:
        with_two_sources(check, [&](const Tensor& a, const Tensor& rows) { check_get_rows(check, a, rows); });
        return;
    case Op::SET_ROWS:
        with_two_sources(check, [&](const Tensor& values, const Tensor& rows) { check_set_rows(check, node, values, rows); });
        return;
    default:
        check.require(false, "the executor has no kernel for this op");
        return;
    }
}

} // namespace

bool computes(Op op) {
    return !op_is_empty(op);
}

bool readable_type(DataType type) {
    switch (type) {
    case DataType::q4_0: case DataType::q4_1: case DataType::q5_0: case DataType::q5_1: case DataType::q8_0:
        return true;
    default:
        return writable_type(type);
    }
}

bool writable_type(DataType type) {
    return kernels::element_bytes(type) != 0;
}

PreparedNode prepare_node(const Tensor& node) {
    PreparedNode prepared;
    NodeArgs& args = prepared.args;
    args.op = node.op;
    std::ranges::copy(node.op_params, args.params);
    args.dst = tensor_args(&node);
    for (int k = 0; k < kernels::kNodeSources; ++k) {
        args.src[k] = tensor_args(node.src[static_cast<std::size_t>(k)]);
    }
    Checker check(node);
    check.require(writable_type(node.type), "cannot write a " + std::string(type_name(node.type)) + " result");
    check_op(check, node, args);
    prepared.error = check.error();
    return prepared;
}

} // namespace gallocsim
