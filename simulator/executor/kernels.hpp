#pragma once
// What each executable op computes, written once for both backends: the CPU runner loops
// over a kernel's work items, the CUDA runner gives each item a thread. Compiled by the C++
// compiler and by nvcc (then every function is __host__ __device__).
//
// Tensors are read and written only through their data pointer and byte strides, so
// views, permutations and transposes need no special case. Every kernel may write over
// its first source (gallocr's in-place reuse gives a result its parent's memory): an item
// reads everything it needs before it writes, and no item reads what another one writes.
// The host checks shapes, types and parameters before a kernel runs (see node_args.hpp);
// kernels only check what depends on data: row indices.

#include "reference/ops.hpp"
#include "reference/types.hpp"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define GALLOCSIM_HD __host__ __device__
#else
#define GALLOCSIM_HD
#endif

namespace gallocsim::kernels {

inline constexpr int kNodeSources = 3;

// A tensor as a kernel sees it: plain values, copied to the device as a kernel argument.
struct TensorArgs {
    unsigned char* data = nullptr;
    DataType type = DataType::f32;
    int64_t ne[4] = {1, 1, 1, 1};
    uint64_t nb[4] = {0, 0, 0, 0};
};

struct NodeArgs {
    Op op = Op::NONE;
    int32_t params[16] = {};  // op_params, with defaults already filled in by the host
    TensorArgs dst;
    TensorArgs src[kNodeSources];
};

// What a kernel can find wrong at run time.
enum KernelStatus : int { kKernelOk = 0, kRowIndexOutOfRange = 1 };

// --- Bits and element types -----------------------------------------------------------

template <typename T>
GALLOCSIM_HD inline T read_as(const unsigned char* p) {
    T value;
    memcpy(&value, p, sizeof value);
    return value;
}

template <typename T>
GALLOCSIM_HD inline void write_as(unsigned char* p, T value) {
    memcpy(p, &value, sizeof value);
}

GALLOCSIM_HD inline uint32_t float_bits(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

GALLOCSIM_HD inline float float_from_bits(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

GALLOCSIM_HD inline float half_to_float(uint16_t half) {
    const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
    const uint32_t exponent = (half >> 10) & 0x1fu;
    uint32_t mantissa = half & 0x3ffu;
    if (exponent == 0x1f) {
        return float_from_bits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN (payload kept)
    }
    if (exponent != 0) {
        return float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));  // rebias 15 -> 127
    }
    if (mantissa == 0) {
        return float_from_bits(sign);
    }
    // Subnormal: mantissa * 2^-24; shift the leading one up to the implicit bit.
    int32_t e = -14;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --e;
    }
    return float_from_bits(sign | (static_cast<uint32_t>(e + 127) << 23) | ((mantissa & 0x3ffu) << 13));
}

// Rounds to nearest, ties to even, as hardware conversions do.
GALLOCSIM_HD inline uint16_t float_to_half(float value) {
    const uint32_t bits = float_bits(value);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) {
        return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));  // NaN stays NaN
    }
    if (magnitude >= 0x477ff000u) {
        return static_cast<uint16_t>(sign | 0x7c00u);  // 65520 and up round to infinity
    }
    if (magnitude >= 0x38800000u) {  // a normal half: rebias 127 -> 15, drop 13 bits
        const uint32_t rebiased = magnitude - 0x38000000u;
        const uint32_t rounded = rebiased + 0x0fffu + ((rebiased >> 13) & 1u);
        return static_cast<uint16_t>(sign | (rounded >> 13));
    }
    const uint32_t exponent = magnitude >> 23;
    if (exponent < 102) {
        return static_cast<uint16_t>(sign);  // below half the smallest subnormal: zero
    }
    // A subnormal half counts units of 2^-24: shift the 24-bit mantissa, round to even.
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;
    uint32_t units = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (units & 1u) != 0)) {
        ++units;  // may carry into the smallest normal, which is the right answer
    }
    return static_cast<uint16_t>(sign | units);
}

GALLOCSIM_HD inline float bf16_to_float(uint16_t value) {
    return float_from_bits(static_cast<uint32_t>(value) << 16);
}

GALLOCSIM_HD inline uint16_t float_to_bf16(float value) {
    const uint32_t bits = float_bits(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN stays NaN (quiet)
    }
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// Bytes of one element of a type with block size 1; 0 for block types.
GALLOCSIM_HD inline uint64_t element_bytes(DataType type) {
    switch (type) {
    case DataType::i8: return 1;
    case DataType::f16: case DataType::bf16: case DataType::i16: return 2;
    case DataType::f32: case DataType::i32: return 4;
    case DataType::f64: case DataType::i64: return 8;
    default: return 0;
    }
}

// Float -> integer without undefined behaviour: NaN gives 0, out of range saturates.
template <typename T>
GALLOCSIM_HD inline T to_integer(float value, double low, double high) {
    if (!(value == value)) {
        return 0;
    }
    const double v = value;
    return static_cast<T>(v <= low ? low : v >= high ? high : v);
}

// Element k of 32 packed in 16 bytes: low nibbles first, then high nibbles.
GALLOCSIM_HD inline int nibble(const unsigned char* qs, int k) {
    return k < 16 ? qs[k] & 0x0f : qs[k - 16] >> 4;
}

// One element of a 32-element block of ggml's simple quantized types (q4_0 q4_1 q5_0 q5_1 q8_0).
GALLOCSIM_HD inline float dequantize(DataType type, const unsigned char* block, int j) {
    const float d = half_to_float(read_as<uint16_t>(block));
    switch (type) {
    case DataType::q4_0:
        return d * static_cast<float>(nibble(block + 2, j) - 8);
    case DataType::q4_1:
        return d * static_cast<float>(nibble(block + 4, j)) + half_to_float(read_as<uint16_t>(block + 2));
    case DataType::q5_0: {
        const uint32_t high = (read_as<uint32_t>(block + 2) >> j) & 1u;
        return d * static_cast<float>((nibble(block + 6, j) | static_cast<int>(high << 4)) - 16);
    }
    case DataType::q5_1: {
        const uint32_t high = (read_as<uint32_t>(block + 4) >> j) & 1u;
        return d * static_cast<float>(nibble(block + 8, j) | static_cast<int>(high << 4)) +
               half_to_float(read_as<uint16_t>(block + 2));
    }
    case DataType::q8_0:
        return d * static_cast<float>(static_cast<signed char>(block[2 + j]));
    default:
        return NAN;
    }
}

// Element i0 of a row; for block types nb0 is the block's size and i0 counts elements.
GALLOCSIM_HD inline float load_element(DataType type, const unsigned char* row, int64_t i0, uint64_t nb0) {
    const unsigned char* p = row + static_cast<uint64_t>(i0) * nb0;
    switch (type) {
    case DataType::f32: return read_as<float>(p);
    case DataType::f16: return half_to_float(read_as<uint16_t>(p));
    case DataType::bf16: return bf16_to_float(read_as<uint16_t>(p));
    case DataType::f64: return static_cast<float>(read_as<double>(p));
    case DataType::i8: return static_cast<float>(read_as<int8_t>(p));
    case DataType::i16: return static_cast<float>(read_as<int16_t>(p));
    case DataType::i32: return static_cast<float>(read_as<int32_t>(p));
    case DataType::i64: return static_cast<float>(read_as<int64_t>(p));
    default:
        return dequantize(type, row + static_cast<uint64_t>(i0 / 32) * nb0, static_cast<int>(i0 % 32));
    }
}

GALLOCSIM_HD inline void store_element(DataType type, unsigned char* row, int64_t i0, uint64_t nb0, float value) {
    unsigned char* p = row + static_cast<uint64_t>(i0) * nb0;
    switch (type) {
    case DataType::f32: write_as(p, value); return;
    case DataType::f16: write_as(p, float_to_half(value)); return;
    case DataType::bf16: write_as(p, float_to_bf16(value)); return;
    case DataType::f64: write_as(p, static_cast<double>(value)); return;
    case DataType::i8: write_as(p, to_integer<int8_t>(value, -128.0, 127.0)); return;
    case DataType::i16: write_as(p, to_integer<int16_t>(value, -32768.0, 32767.0)); return;
    case DataType::i32: write_as(p, to_integer<int32_t>(value, -2147483648.0, 2147483647.0)); return;
    case DataType::i64: write_as(p, to_integer<int64_t>(value, -9.2e18, 9.2e18)); return;
    default: return;  // the host lets no other destination type through
    }
}

// --- Indexing -------------------------------------------------------------------------

struct Index4 {
    int64_t i[4];
};

GALLOCSIM_HD inline Index4 unravel(int64_t flat, const int64_t ne[4]) {
    Index4 index{};
    for (int k = 0; k < 4; ++k) {
        index.i[k] = flat % ne[k];
        flat /= ne[k];
    }
    return index;
}

GALLOCSIM_HD inline int64_t element_count(const TensorArgs& t) {
    return t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3];
}

GALLOCSIM_HD inline unsigned char* row_of(const TensorArgs& t, int64_t i1, int64_t i2, int64_t i3) {
    return t.data + static_cast<uint64_t>(i1) * t.nb[1] + static_cast<uint64_t>(i2) * t.nb[2] +
           static_cast<uint64_t>(i3) * t.nb[3];
}

GALLOCSIM_HD inline float load(const TensorArgs& t, const Index4& x) {
    return load_element(t.type, row_of(t, x.i[1], x.i[2], x.i[3]), x.i[0], t.nb[0]);
}

GALLOCSIM_HD inline void store(const TensorArgs& t, const Index4& x, float value) {
    store_element(t.type, row_of(t, x.i[1], x.i[2], x.i[3]), x.i[0], t.nb[0], value);
}

// Same type: the element's bytes (exact for every type); otherwise through float.
GALLOCSIM_HD inline void copy_element(const TensorArgs& dst, const Index4& to, const TensorArgs& src, const Index4& from) {
    const uint64_t size = element_bytes(src.type);
    if (dst.type == src.type && size != 0) {
        const unsigned char* s = row_of(src, from.i[1], from.i[2], from.i[3]) + static_cast<uint64_t>(from.i[0]) * src.nb[0];
        unsigned char* d = row_of(dst, to.i[1], to.i[2], to.i[3]) + static_cast<uint64_t>(to.i[0]) * dst.nb[0];
        memcpy(d, s, size);
        return;
    }
    store(dst, to, load(src, from));
}

// A row index from an i32 or i64 tensor.
GALLOCSIM_HD inline int64_t load_index(const TensorArgs& t, int64_t i0, int64_t i1, int64_t i2) {
    const unsigned char* p = row_of(t, i1, i2, 0) + static_cast<uint64_t>(i0) * t.nb[0];
    return t.type == DataType::i64 ? read_as<int64_t>(p) : read_as<int32_t>(p);
}

GALLOCSIM_HD inline float param_float(const NodeArgs& n, int k) {
    float value;
    memcpy(&value, &n.params[k], sizeof value);
    return value;
}

// --- Element-wise ops -------------------------------------------------------------------

GALLOCSIM_HD inline float sigmoid(float x) {
    return 1.0f / (1.0f + expf(-x));
}

GALLOCSIM_HD inline float apply_unary(UnaryOp kind, float x) {
    switch (kind) {
    case UnaryOp::ABS: return fabsf(x);
    case UnaryOp::SGN: return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f;
    case UnaryOp::NEG: return -x;
    case UnaryOp::STEP: return x > 0.0f ? 1.0f : 0.0f;
    case UnaryOp::TANH: return tanhf(x);
    case UnaryOp::ELU: return x > 0.0f ? x : expm1f(x);
    case UnaryOp::RELU: return x > 0.0f ? x : 0.0f;
    case UnaryOp::SIGMOID: return sigmoid(x);
    case UnaryOp::GELU: return 0.5f * x * (1.0f + tanhf(0.7978845608f * x * (1.0f + 0.044715f * x * x)));
    case UnaryOp::GELU_QUICK: return x * sigmoid(1.702f * x);
    case UnaryOp::SILU: return x * sigmoid(x);
    case UnaryOp::HARDSWISH: return x * fminf(1.0f, fmaxf(0.0f, (x + 3.0f) / 6.0f));
    case UnaryOp::HARDSIGMOID: return fminf(1.0f, fmaxf(0.0f, (x + 3.0f) / 6.0f));
    case UnaryOp::EXP: return expf(x);
    case UnaryOp::EXPM1: return expm1f(x);
    case UnaryOp::SOFTPLUS: return x > 20.0f ? x : log1pf(expf(x));
    case UnaryOp::GELU_ERF: return 0.5f * x * (1.0f + erff(x * 0.70710678f));
    case UnaryOp::FLOOR: return floorf(x);
    case UnaryOp::CEIL: return ceilf(x);
    case UnaryOp::ROUND: return roundf(x);
    case UnaryOp::TRUNC: return truncf(x);
    default: return NAN;  // XIELU needs parameters the host does not pass; it refuses it
    }
}

// ADD SUB MUL DIV (src1 repeated over src0), ADD1, SCALE, SQR, SQRT, LOG, FILL, UNARY.
struct ElementwiseKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = unravel(item, n.dst.ne);
        if (n.op == Op::FILL) {
            store(n.dst, at, param_float(n, 0));
            return;
        }
        const float x = load(n.src[0], at);
        float y = 0.0f;
        switch (n.op) {
        case Op::ADD: case Op::SUB: case Op::MUL: case Op::DIV: {
            const TensorArgs& b = n.src[1];
            const Index4 repeated{{at.i[0] % b.ne[0], at.i[1] % b.ne[1], at.i[2] % b.ne[2], at.i[3] % b.ne[3]}};
            const float v = load(b, repeated);
            y = n.op == Op::ADD ? x + v : n.op == Op::SUB ? x - v : n.op == Op::MUL ? x * v : x / v;
            break;
        }
        case Op::ADD1: y = x + load(n.src[1], Index4{{0, 0, 0, 0}}); break;
        case Op::SCALE: y = x * param_float(n, 0) + param_float(n, 1); break;
        case Op::SQR: y = x * x; break;
        case Op::SQRT: y = sqrtf(x); break;
        case Op::LOG: y = logf(x); break;
        case Op::UNARY: y = apply_unary(static_cast<UnaryOp>(n.params[0]), x); break;
        default: y = NAN; break;
        }
        store(n.dst, at, y);
    }
};

// --- Copies ---------------------------------------------------------------------------------

// CONT, DUP, CPY: element k of the destination (in its logical order) is element k of the source.
struct CopyKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        copy_element(n.dst, unravel(item, n.dst.ne), n.src[0], unravel(item, n.src[0].ne));
    }
};

// dst(i0, i1, i2, i3) = src0(i0, rows(i1, i2, i3), i2, i3)
struct GetRowsKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int* status) const {
        const Index4 at = unravel(item, n.dst.ne);
        const int64_t row = load_index(n.src[1], at.i[1], at.i[2], at.i[3]);
        if (row < 0 || row >= n.src[0].ne[1]) {
            *status = kRowIndexOutOfRange;
            return;
        }
        copy_element(n.dst, at, n.src[0], Index4{{at.i[0], row, at.i[2], at.i[3]}});
    }
};

// params[0]: the dimension along which src1 follows src0.
struct ConcatKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = unravel(item, n.dst.ne);
        const int dim = n.params[0];
        const int64_t split = n.src[0].ne[dim];
        if (at.i[dim] < split) {
            copy_element(n.dst, at, n.src[0], at);
            return;
        }
        Index4 from = at;
        from.i[dim] -= split;
        copy_element(n.dst, at, n.src[1], from);
    }
};

// params[2k]: zeros before src0 in dimension k; everything outside src0 is zero.
struct PadKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = unravel(item, n.dst.ne);
        Index4 from{};
        for (int k = 0; k < 4; ++k) {
            from.i[k] = at.i[k] - n.params[2 * k];
            if (from.i[k] < 0 || from.i[k] >= n.src[0].ne[k]) {
                store(n.dst, at, 0.0f);
                return;
            }
        }
        copy_element(n.dst, at, n.src[0], from);
    }
};

// One item per destination row (r, i2, i3): the last source row whose index is r, if any,
// is copied there (so repeated indices give the same answer on every backend). Rows no
// index names keep what they held: the destination is a view of src[2].
struct SetRowsKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int* status) const {
        const TensorArgs& values = n.src[0];
        const TensorArgs& rows = n.src[1];
        const int64_t r = item % n.dst.ne[1];
        const int64_t i2 = (item / n.dst.ne[1]) % n.dst.ne[2];
        const int64_t i3 = item / (n.dst.ne[1] * n.dst.ne[2]);
        int64_t last = -1;
        for (int64_t i = 0; i < values.ne[1]; ++i) {
            const int64_t target = load_index(rows, i, i2 % rows.ne[1], i3 % rows.ne[2]);
            if (target < 0 || target >= n.dst.ne[1]) {
                *status = kRowIndexOutOfRange;
                return;
            }
            if (target == r) {
                last = i;
            }
        }
        if (last < 0) {
            return;
        }
        for (int64_t i0 = 0; i0 < n.dst.ne[0]; ++i0) {
            copy_element(n.dst, Index4{{i0, r, i2, i3}}, values, Index4{{i0, last, i2, i3}});
        }
    }
};

// --- Reductions and normalisations (one item per row) ---------------------------------------

GALLOCSIM_HD inline Index4 row_index(const TensorArgs& t, int64_t item) {
    return Index4{{0, item % t.ne[1], (item / t.ne[1]) % t.ne[2], item / (t.ne[1] * t.ne[2])}};
}

// The sum of a row's elements, or of their squares, in double, in element order. (A
// template, so that each kernel's loop compiles as it would written out: nvcc may fuse
// the square's multiply and add.)
template <bool kSquares>
GALLOCSIM_HD inline double row_sum(const TensorArgs& a, const unsigned char* row) {
    double sum = 0.0;
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
        const double x = load_element(a.type, row, i0, a.nb[0]);
        if constexpr (kSquares) {
            sum += x * x;
        } else {
            sum += x;
        }
    }
    return sum;
}

// SUM_ROWS and MEAN: one item per destination element (ne0 is 1).
struct SumRowsKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = row_index(n.dst, item);
        const TensorArgs& a = n.src[0];
        double sum = row_sum</*squares=*/false>(a, row_of(a, at.i[1], at.i[2], at.i[3]));
        if (n.op == Op::MEAN) {
            sum /= static_cast<double>(a.ne[0]);
        }
        store(n.dst, at, static_cast<float>(sum));
    }
};

// x / sqrt(mean(x^2) + eps), eps in params[0].
struct RmsNormKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = row_index(n.dst, item);
        const TensorArgs& a = n.src[0];
        const unsigned char* row = row_of(a, at.i[1], at.i[2], at.i[3]);
        const float mean = static_cast<float>(row_sum</*squares=*/true>(a, row) / static_cast<double>(a.ne[0]));
        const float scale = 1.0f / sqrtf(mean + param_float(n, 0));
        unsigned char* out = row_of(n.dst, at.i[1], at.i[2], at.i[3]);
        for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
            store_element(n.dst.type, out, i0, n.dst.nb[0], load_element(a.type, row, i0, a.nb[0]) * scale);
        }
    }
};

// softmax(x * scale + mask) along rows; scale in params[0]. The optional mask (src1) has a
// row per row of x and repeats over dims 2 and 3; optional sinks (src2, one per dim-2
// slice) join each row's maximum and sum, as ggml's attention sinks do.
struct SoftMaxKernel {
    GALLOCSIM_HD static float logit(const NodeArgs& n, const Index4& at, int64_t i0) {
        float v = load(n.src[0], Index4{{i0, at.i[1], at.i[2], at.i[3]}}) * param_float(n, 0);
        const TensorArgs& mask = n.src[1];
        if (mask.data != nullptr) {
            v += load(mask, Index4{{i0, at.i[1], at.i[2] % mask.ne[2], at.i[3] % mask.ne[3]}});
        }
        return v;
    }

    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = row_index(n.dst, item);
        const bool has_sink = n.src[2].data != nullptr;
        const float sink = has_sink ? load(n.src[2], Index4{{at.i[2], 0, 0, 0}}) : 0.0f;
        float max = has_sink ? sink : -INFINITY;
        for (int64_t i0 = 0; i0 < n.dst.ne[0]; ++i0) {
            max = fmaxf(max, logit(n, at, i0));
        }
        double sum = has_sink ? expf(sink - max) : 0.0;
        for (int64_t i0 = 0; i0 < n.dst.ne[0]; ++i0) {
            sum += expf(logit(n, at, i0) - max);
        }
        const float inverse = static_cast<float>(1.0 / sum);
        for (int64_t i0 = 0; i0 < n.dst.ne[0]; ++i0) {
            store(n.dst, Index4{{i0, at.i[1], at.i[2], at.i[3]}}, expf(logit(n, at, i0) - max) * inverse);
        }
    }
};

// --- Matrix product ---------------------------------------------------------------------------

GALLOCSIM_HD inline double product_at(const TensorArgs& a, const unsigned char* a_row, const TensorArgs& b,
                                      const unsigned char* b_row, int64_t k) {
    if (a.type == DataType::f32 && b.type == DataType::f32) {
        return static_cast<double>(read_as<float>(a_row + static_cast<uint64_t>(k) * a.nb[0])) *
               read_as<float>(b_row + static_cast<uint64_t>(k) * b.nb[0]);
    }
    return static_cast<double>(load_element(a.type, a_row, k, a.nb[0])) * load_element(b.type, b_row, k, b.nb[0]);
}

// Four running sums (element k goes to sum k % 4) keep the adds independent, so the loop
// is not bound by the latency of one chain; the order is fixed, so results repeat exactly.
GALLOCSIM_HD inline double dot_rows(const TensorArgs& a, const unsigned char* a_row, const TensorArgs& b,
                                    const unsigned char* b_row, int64_t count) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int64_t k = 0;
    for (; k + 3 < count; k += 4) {
        s0 += product_at(a, a_row, b, b_row, k);
        s1 += product_at(a, a_row, b, b_row, k + 1);
        s2 += product_at(a, a_row, b, b_row, k + 2);
        s3 += product_at(a, a_row, b, b_row, k + 3);
    }
    if (k < count) {
        s0 += product_at(a, a_row, b, b_row, k);
    }
    if (k + 1 < count) {
        s1 += product_at(a, a_row, b, b_row, k + 1);
    }
    if (k + 2 < count) {
        s2 += product_at(a, a_row, b, b_row, k + 2);
    }
    return (s0 + s1) + (s2 + s3);
}

// ggml's MUL_MAT: dst(i0, i1, i2, i3) = dot(row i0 of a, row i1 of b), a repeated over
// dims 2 and 3 of b (a.ne2 divides b.ne2, a.ne3 divides b.ne3).
struct MulMatKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const Index4 at = unravel(item, n.dst.ne);
        const TensorArgs& a = n.src[0];
        const TensorArgs& b = n.src[1];
        const int64_t a2 = at.i[2] / (b.ne[2] / a.ne[2]);
        const int64_t a3 = at.i[3] / (b.ne[3] / a.ne[3]);
        const double sum = dot_rows(a, row_of(a, at.i[0], a2, a3), b, row_of(b, at.i[1], at.i[2], at.i[3]), a.ne[0]);
        store(n.dst, at, static_cast<float>(sum));
    }
};

// --- Rotary position embedding ---------------------------------------------------------------

// One item per pair of elements that rotate together. params: [1] n_dims, [2] mode (0:
// adjacent pairs, 2: NeoX halves), [5] freq_base, [6] freq_scale, [8] attn_factor (floats).
// The position of dim-2 slice i2 is src1[i2]; optional frequency factors (src2) divide
// each pair's angle. Elements past n_dims are copied (the last one alone if ne0 is odd).
struct RopeKernel {
    GALLOCSIM_HD void operator()(const NodeArgs& n, int64_t item, int*) const {
        const TensorArgs& x = n.src[0];
        const int64_t pairs = (n.dst.ne[0] + 1) / 2;
        const int64_t p = item % pairs;
        const Index4 row = row_index(n.dst, item / pairs);
        const int64_t n_dims = n.params[1];
        const bool neox = (n.params[2] & 2) != 0;
        const bool rotates = 2 * p < n_dims;
        int64_t first = 2 * p;
        int64_t second = first + 1;
        if (neox) {
            first = rotates ? p : n_dims + 2 * (p - n_dims / 2);
            second = rotates ? p + n_dims / 2 : first + 1;
        }
        const bool has_second = second < n.dst.ne[0];
        const unsigned char* in = row_of(x, row.i[1], row.i[2], row.i[3]);
        unsigned char* out = row_of(n.dst, row.i[1], row.i[2], row.i[3]);
        const float x0 = load_element(x.type, in, first, x.nb[0]);
        const float x1 = has_second ? load_element(x.type, in, second, x.nb[0]) : 0.0f;
        if (!rotates) {
            store_element(n.dst.type, out, first, n.dst.nb[0], x0);
            if (has_second) {
                store_element(n.dst.type, out, second, n.dst.nb[0], x1);
            }
            return;
        }
        const float position = static_cast<float>(load_index(n.src[1], row.i[2], 0, 0));
        float theta = position * param_float(n, 6) *
                      powf(param_float(n, 5), -static_cast<float>(2 * p) / static_cast<float>(n_dims));
        if (n.src[2].data != nullptr) {
            theta /= load(n.src[2], Index4{{p, 0, 0, 0}});
        }
        const float c = cosf(theta) * param_float(n, 8);
        const float s = sinf(theta) * param_float(n, 8);
        store_element(n.dst.type, out, first, n.dst.nb[0], x0 * c - x1 * s);
        store_element(n.dst.type, out, second, n.dst.nb[0], x0 * s + x1 * c);
    }
};

// --- Dispatch ---------------------------------------------------------------------------------

// Hands each op's kernel and item count to a backend's launcher: launch(node, items, kernel).
template <typename Launch>
inline bool dispatch(const NodeArgs& n, Launch& launch) {
    const int64_t elements = element_count(n.dst);
    const int64_t rows = n.dst.ne[1] * n.dst.ne[2] * n.dst.ne[3];
    switch (n.op) {
    case Op::ADD: case Op::SUB: case Op::MUL: case Op::DIV: case Op::ADD1: case Op::SCALE:
    case Op::SQR: case Op::SQRT: case Op::LOG: case Op::FILL: case Op::UNARY:
        launch(n, elements, ElementwiseKernel{});
        return true;
    case Op::CONT: case Op::DUP: case Op::CPY:
        launch(n, elements, CopyKernel{});
        return true;
    case Op::GET_ROWS: launch(n, elements, GetRowsKernel{}); return true;
    case Op::CONCAT: launch(n, elements, ConcatKernel{}); return true;
    case Op::PAD: launch(n, elements, PadKernel{}); return true;
    case Op::SET_ROWS: launch(n, rows, SetRowsKernel{}); return true;
    case Op::SUM_ROWS: case Op::MEAN: launch(n, rows, SumRowsKernel{}); return true;
    case Op::RMS_NORM: launch(n, rows, RmsNormKernel{}); return true;
    case Op::SOFT_MAX: launch(n, rows, SoftMaxKernel{}); return true;
    case Op::MUL_MAT: launch(n, elements, MulMatKernel{}); return true;
    case Op::ROPE: launch(n, rows * ((n.dst.ne[0] + 1) / 2), RopeKernel{}); return true;
    default: return false;
    }
}

} // namespace gallocsim::kernels
