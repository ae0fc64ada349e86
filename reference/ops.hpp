#pragma once
// ggml's operations, by the names graph files use (GGML_OP_* without the prefix), and
// their order. Whether an op may run in place is a property of the ggml version (profile.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gallocsim {

// Same order as ggml d99724f2's enum ggml_op.
enum class Op : std::uint8_t {
    NONE, DUP, ADD, ADD_ID, ADD1, ACC,
    SUB, MUL, DIV, SQR, SQRT, LOG,
    SIN, COS, SUM, SUM_ROWS, CUMSUM, MEAN,
    ARGMAX, COUNT_EQUAL, REPEAT, REPEAT_BACK, CONCAT, SILU_BACK,
    NORM, RMS_NORM, RMS_NORM_BACK, GROUP_NORM, L2_NORM, MUL_MAT,
    MUL_MAT_ID, OUT_PROD, SCALE, SET, CPY, CONT,
    RESHAPE, VIEW, PERMUTE, TRANSPOSE, GET_ROWS, GET_ROWS_BACK,
    SET_ROWS, DIAG, DIAG_MASK_INF, DIAG_MASK_ZERO, SOFT_MAX, SOFT_MAX_BACK,
    ROPE, ROPE_BACK, CLAMP, CONV_TRANSPOSE_1D, IM2COL, IM2COL_BACK,
    IM2COL_3D, COL2IM_1D, CONV_2D, CONV_3D, CONV_2D_DW, CONV_TRANSPOSE_2D,
    POOL_1D, POOL_2D, POOL_2D_BACK, UPSCALE, PAD, PAD_REFLECT_1D,
    ROLL, ARANGE, TIMESTEP_EMBEDDING, ARGSORT, TOP_K, LEAKY_RELU,
    TRI, FILL, FLASH_ATTN_EXT, FLASH_ATTN_BACK, SSM_CONV, SSM_SCAN,
    WIN_PART, WIN_UNPART, GET_REL_POS, ADD_REL_POS, RWKV_WKV6, GATED_LINEAR_ATTN,
    RWKV_WKV7, SOLVE_TRI, GATED_DELTA_NET, LIGHTNING_INDEXER, DSV4_HC_COMB, DSV4_HC_PRE,
    DSV4_HC_POST, UNARY, MAP_CUSTOM1, MAP_CUSTOM2, MAP_CUSTOM3, CUSTOM,
    CROSS_ENTROPY_LOSS, CROSS_ENTROPY_LOSS_BACK, OPT_STEP_ADAMW, OPT_STEP_SGD, GLU,
};
inline constexpr std::size_t kOpCount = static_cast<std::size_t>(Op::GLU) + 1;

// Same order as ggml's enum ggml_unary_op (the kind of a UNARY op).
enum class UnaryOp : std::uint8_t {
    ABS, SGN, NEG, STEP, TANH, ELU,
    RELU, SIGMOID, GELU, GELU_QUICK, SILU, HARDSWISH,
    HARDSIGMOID, EXP, EXPM1, SOFTPLUS, GELU_ERF, XIELU,
    FLOOR, CEIL, ROUND, TRUNC,
};
inline constexpr std::size_t kUnaryOpCount = static_cast<std::size_t>(UnaryOp::TRUNC) + 1;

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);
std::string_view unary_op_name(UnaryOp op);
std::optional<UnaryOp> parse_unary_op(std::string_view name);

// ggml_op_is_empty: ops that compute nothing (NONE, and those that only describe a view of their
// source: VIEW, RESHAPE, PERMUTE, TRANSPOSE). Backends skip them.
constexpr bool op_is_empty(Op op) {
    return op == Op::NONE || op == Op::VIEW || op == Op::RESHAPE || op == Op::PERMUTE || op == Op::TRANSPOSE;
}

// Which ops may run in place depends on the ggml version: see AllocatorProfile::can_inplace
// (reference/profile.hpp).

} // namespace gallocsim
