#pragma once
// Tensor contents on the host: the deterministic values the executor writes into inputs
// and weights, the packed copies of results it reads back, and how two sets of results
// are compared (bit for bit, or within a tolerance).

#include "reference/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

// Element `index` of the tensor named `name`: uniform in [-1, 1) in steps of 2^-23, so
// exact in f32. Depends on nothing else (not the address, not the order of filling).
float seeded_value(std::uint64_t seed, std::string_view name, std::int64_t index);

// What to write into a tensor that nothing computes.
struct FillSpec {
    std::uint64_t seed = 0;
    std::optional<std::int64_t> index_bound{};  // integers in [0, bound): the tensor holds row indices
    std::span<const float> values{};            // given values, one per element (overrides the seed)
};

// The tensor's nbytes(t) bytes laid out by its strides. Floats are seeded values; integers
// are in [0, 16) or [0, index_bound); quantized blocks have random quants and scales of
// about 1/64. Bytes between elements are zero.
std::vector<std::byte> fill_image(const Tensor& tensor, const FillSpec& spec);

// The tensor's elements packed in logical order, read through its strides from `image`
// (its nbytes bytes from its data pointer). Quantized rows are copied block by block.
std::vector<std::byte> pack_elements(const Tensor& tensor, std::span<const std::byte> image);

// A result read back after a run.
struct TensorValue {
    std::string name;
    DataType type = DataType::f32;
    std::array<std::int64_t, kMaxDims> ne{1, 1, 1, 1};
    std::vector<std::byte> bytes;  // packed elements

    // Every element as a float (quantized ones dequantized).
    std::vector<float> floats() const;
};

// |expected - actual| <= absolute + relative * |expected|, NaN only where expected is NaN.
struct Tolerance {
    double absolute = 0;
    double relative = 0;
};

// One line per difference, naming the tensor and its first differing element; at most
// `limit` lines. Without a tolerance, bytes must be equal.
std::vector<std::string> compare_values(std::span<const TensorValue> expected, std::span<const TensorValue> actual,
                                        std::optional<Tolerance> tolerance = std::nullopt, std::size_t limit = 10);

} // namespace gallocsim
