#include "reference/types.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace gallocsim {
namespace {

struct Entry {
    DataType type;
    TypeTraits traits;
};

// Block sizes and byte sizes as ggml d99724f2 reports them (ggml_blck_size, ggml_type_size).
constexpr std::array kTypes{
    Entry{DataType::f32, {"f32", 1, 4, false}},          Entry{DataType::f16, {"f16", 1, 2, false}},
    Entry{DataType::q4_0, {"q4_0", 32, 18, true}},       Entry{DataType::q4_1, {"q4_1", 32, 20, true}},
    Entry{DataType::q5_0, {"q5_0", 32, 22, true}},       Entry{DataType::q5_1, {"q5_1", 32, 24, true}},
    Entry{DataType::q8_0, {"q8_0", 32, 34, true}},       Entry{DataType::q8_1, {"q8_1", 32, 36, true}},
    Entry{DataType::q2_k, {"q2_k", 256, 84, true}},      Entry{DataType::q3_k, {"q3_k", 256, 110, true}},
    Entry{DataType::q4_k, {"q4_k", 256, 144, true}},     Entry{DataType::q5_k, {"q5_k", 256, 176, true}},
    Entry{DataType::q6_k, {"q6_k", 256, 210, true}},     Entry{DataType::q8_k, {"q8_k", 256, 292, true}},
    Entry{DataType::iq2_xxs, {"iq2_xxs", 256, 66, true}}, Entry{DataType::iq2_xs, {"iq2_xs", 256, 74, true}},
    Entry{DataType::iq3_xxs, {"iq3_xxs", 256, 98, true}}, Entry{DataType::iq1_s, {"iq1_s", 256, 50, true}},
    Entry{DataType::iq4_nl, {"iq4_nl", 32, 18, true}},   Entry{DataType::iq3_s, {"iq3_s", 256, 110, true}},
    Entry{DataType::iq2_s, {"iq2_s", 256, 82, true}},    Entry{DataType::iq4_xs, {"iq4_xs", 256, 136, true}},
    Entry{DataType::i8, {"i8", 1, 1, false}},            Entry{DataType::i16, {"i16", 1, 2, false}},
    Entry{DataType::i32, {"i32", 1, 4, false}},          Entry{DataType::i64, {"i64", 1, 8, false}},
    Entry{DataType::f64, {"f64", 1, 8, false}},          Entry{DataType::iq1_m, {"iq1_m", 256, 56, true}},
    Entry{DataType::bf16, {"bf16", 1, 2, false}},        Entry{DataType::tq1_0, {"tq1_0", 256, 54, true}},
    Entry{DataType::tq2_0, {"tq2_0", 256, 66, true}},    Entry{DataType::mxfp4, {"mxfp4", 32, 17, true}},
    Entry{DataType::nvfp4, {"nvfp4", 64, 36, true}},     Entry{DataType::q1_0, {"q1_0", 128, 18, true}},
    Entry{DataType::q2_0, {"q2_0", 64, 18, true}},
};

} // namespace

// The table indexed by enum value, for O(1) lookups on the planner's hot path.
const std::array<TypeTraits, detail::kTypeCount> detail::kTraitsByValue = [] {
    std::array<TypeTraits, kTypeCount> table{};
    for (const auto& entry : kTypes) {
        table[static_cast<std::size_t>(entry.type)] = entry.traits;
    }
    return table;
}();

void detail::throw_unknown_type() {
    throw std::invalid_argument("unknown DataType value");
}

std::optional<DataType> parse_type(std::string_view name) {
    auto same = [](std::string_view a, std::string_view b) {
        return std::ranges::equal(a, b, [](char x, char y) {
            return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
        });
    };
    for (const auto& entry : kTypes) {
        if (same(entry.traits.name, name)) {
            return entry.type;
        }
    }
    return std::nullopt;
}

std::size_t row_size(DataType type, std::int64_t elements) {
    const auto& t = traits(type);
    return t.type_size * static_cast<std::size_t>(elements / t.block_size);
}

} // namespace gallocsim
