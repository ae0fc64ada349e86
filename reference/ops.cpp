#include "reference/ops.hpp"

#include <array>

namespace gallocsim {
namespace {

// Sized by its initialisers: a name missing or extra does not compile (the static_assert).
constexpr auto kOpNames = std::to_array<std::string_view>({
    "NONE", "DUP", "ADD", "ADD_ID", "ADD1", "ACC",
    "SUB", "MUL", "DIV", "SQR", "SQRT", "LOG",
    "SIN", "COS", "SUM", "SUM_ROWS", "CUMSUM", "MEAN",
    "ARGMAX", "COUNT_EQUAL", "REPEAT", "REPEAT_BACK", "CONCAT", "SILU_BACK",
    "NORM", "RMS_NORM", "RMS_NORM_BACK", "GROUP_NORM", "L2_NORM", "MUL_MAT",
    "MUL_MAT_ID", "OUT_PROD", "SCALE", "SET", "CPY", "CONT",
    "RESHAPE", "VIEW", "PERMUTE", "TRANSPOSE", "GET_ROWS", "GET_ROWS_BACK",
    "SET_ROWS", "DIAG", "DIAG_MASK_INF", "DIAG_MASK_ZERO", "SOFT_MAX", "SOFT_MAX_BACK",
    "ROPE", "ROPE_BACK", "CLAMP", "CONV_TRANSPOSE_1D", "IM2COL", "IM2COL_BACK",
    "IM2COL_3D", "COL2IM_1D", "CONV_2D", "CONV_3D", "CONV_2D_DW", "CONV_TRANSPOSE_2D",
    "POOL_1D", "POOL_2D", "POOL_2D_BACK", "UPSCALE", "PAD", "PAD_REFLECT_1D",
    "ROLL", "ARANGE", "TIMESTEP_EMBEDDING", "ARGSORT", "TOP_K", "LEAKY_RELU",
    "TRI", "FILL", "FLASH_ATTN_EXT", "FLASH_ATTN_BACK", "SSM_CONV", "SSM_SCAN",
    "WIN_PART", "WIN_UNPART", "GET_REL_POS", "ADD_REL_POS", "RWKV_WKV6", "GATED_LINEAR_ATTN",
    "RWKV_WKV7", "SOLVE_TRI", "GATED_DELTA_NET", "LIGHTNING_INDEXER", "DSV4_HC_COMB", "DSV4_HC_PRE",
    "DSV4_HC_POST", "UNARY", "MAP_CUSTOM1", "MAP_CUSTOM2", "MAP_CUSTOM3", "CUSTOM",
    "CROSS_ENTROPY_LOSS", "CROSS_ENTROPY_LOSS_BACK", "OPT_STEP_ADAMW", "OPT_STEP_SGD", "GLU",
});
static_assert(kOpNames.size() == kOpCount, "one name per Op, in ggml's order");

constexpr auto kUnaryNames = std::to_array<std::string_view>({
    "ABS", "SGN", "NEG", "STEP", "TANH", "ELU",
    "RELU", "SIGMOID", "GELU", "GELU_QUICK", "SILU", "HARDSWISH",
    "HARDSIGMOID", "EXP", "EXPM1", "SOFTPLUS", "GELU_ERF", "XIELU",
    "FLOOR", "CEIL", "ROUND", "TRUNC",
});
static_assert(kUnaryNames.size() == kUnaryOpCount, "one name per UnaryOp, in ggml's order");

template <typename Enum, std::size_t N>
std::optional<Enum> find_name(const std::array<std::string_view, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i) {
        if (names[i] == name) {
            return static_cast<Enum>(i);
        }
    }
    return std::nullopt;
}

} // namespace

std::string_view op_name(Op op) { return kOpNames.at(static_cast<std::size_t>(op)); }
std::optional<Op> parse_op(std::string_view name) { return find_name<Op>(kOpNames, name); }
std::string_view unary_op_name(UnaryOp op) { return kUnaryNames.at(static_cast<std::size_t>(op)); }
std::optional<UnaryOp> parse_unary_op(std::string_view name) { return find_name<UnaryOp>(kUnaryNames, name); }

} // namespace gallocsim
