#pragma once
// ggml's element types, as far as the allocator cares: how many bytes a block of
// elements takes, how many elements a block holds, and whether the type is quantized.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gallocsim {

// Values follow ggml's enum ggml_type (gaps where ggml removed types).
enum class DataType : std::uint8_t {
    f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q5_0 = 6, q5_1 = 7, q8_0 = 8, q8_1 = 9,
    q2_k = 10, q3_k = 11, q4_k = 12, q5_k = 13, q6_k = 14, q8_k = 15,
    iq2_xxs = 16, iq2_xs = 17, iq3_xxs = 18, iq1_s = 19, iq4_nl = 20, iq3_s = 21, iq2_s = 22, iq4_xs = 23,
    i8 = 24, i16 = 25, i32 = 26, i64 = 27, f64 = 28, iq1_m = 29, bf16 = 30,
    tq1_0 = 34, tq2_0 = 35, mxfp4 = 39, nvfp4 = 40, q1_0 = 41, q2_0 = 42,
};

struct TypeTraits {
    std::string_view name;   // lower case, as in graph files
    std::int64_t block_size; // elements per block
    std::size_t type_size;   // bytes per block
    bool quantized;
};

namespace detail {
inline constexpr std::size_t kTypeCount = 43;  // one past the largest DataType value
extern const std::array<TypeTraits, kTypeCount> kTraitsByValue;  // gaps have block_size 0
[[noreturn]] void throw_unknown_type();
} // namespace detail

// Inline: ggml_nbytes asks for it every time, and a plan asks for sizes several times a tensor.
inline const TypeTraits& traits(DataType type) {
    const auto index = static_cast<std::size_t>(type);
    if (index >= detail::kTypeCount || detail::kTraitsByValue[index].block_size == 0) [[unlikely]] {
        detail::throw_unknown_type();
    }
    return detail::kTraitsByValue[index];
}
inline std::string_view type_name(DataType type) { return traits(type).name; }
inline std::int64_t block_size(DataType type) { return traits(type).block_size; }
inline std::size_t type_size(DataType type) { return traits(type).type_size; }
inline bool is_quantized(DataType type) { return traits(type).quantized; }

// Accepts ggml's spelling in any case ("q4_K", "q4_k").
std::optional<DataType> parse_type(std::string_view name);

// Bytes of `elements` elements of one row (ggml_row_size).
std::size_t row_size(DataType type, std::int64_t elements);

} // namespace gallocsim
