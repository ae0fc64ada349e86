#include "simulator/executor/tensor_values.hpp"

#include "simulator/executor/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace gallocsim {
namespace {

// splitmix64's finaliser: a cheap, well-mixed 64-bit hash.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

std::uint64_t name_hash(std::string_view name) {
    std::uint64_t hash = 0xcbf29ce484222325u;  // FNV-1a
    for (const char c : name) {
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3u;
    }
    return hash;
}

// The random bits of one tensor: element k's depend only on the seed, the name and k.
class TensorRandom {
public:
    TensorRandom(std::uint64_t seed, std::string_view name) : key_(mix(seed ^ name_hash(name))) {}
    std::uint64_t bits(std::uint64_t index) const { return mix(key_ + index); }

private:
    std::uint64_t key_;
};

// 24 random bits as a float in [-1, 1), exact in f32.
float uniform(std::uint64_t bits) {
    return static_cast<float>(bits >> 40) * 0x1p-23f - 1.0f;
}

bool is_integer(DataType type) {
    return type == DataType::i8 || type == DataType::i16 || type == DataType::i32 || type == DataType::i64;
}

std::size_t row_offset(const Tensor& t, std::int64_t i1, std::int64_t i2, std::int64_t i3) {
    return static_cast<std::size_t>(i1) * t.nb[1] + static_cast<std::size_t>(i2) * t.nb[2] +
           static_cast<std::size_t>(i3) * t.nb[3];
}

template <typename F>
void for_each_row(const Tensor& t, F&& f) {
    for (std::int64_t i3 = 0; i3 < t.ne[3]; ++i3) {
        for (std::int64_t i2 = 0; i2 < t.ne[2]; ++i2) {
            for (std::int64_t i1 = 0; i1 < t.ne[1]; ++i1) {
                f(row_offset(t, i1, i2, i3));
            }
        }
    }
}

// Random quants; scales (and minimums) of ggml's simple block types set to sane values.
void fill_blocks(const Tensor& t, std::uint64_t seed, std::span<std::byte> image) {
    const TensorRandom quants(seed, t.name);
    const TensorRandom scales(seed ^ 1u, t.name);
    const std::size_t block_bytes = type_size(t.type);
    const auto blocks_per_row = static_cast<std::size_t>(t.ne[0] / block_size(t.type));
    std::uint64_t block = 0;
    for_each_row(t, [&](std::size_t row) {
        for (std::size_t b = 0; b < blocks_per_row; ++b, ++block) {
            auto* bytes = reinterpret_cast<unsigned char*>(image.data() + row + b * block_bytes);
            for (std::size_t j = 0; j < block_bytes; ++j) {
                bytes[j] = static_cast<unsigned char>(quants.bits(block * block_bytes + j));
            }
            const float u = static_cast<float>(scales.bits(block) >> 40) * 0x1p-24f;
            kernels::write_as(bytes, kernels::float_to_half((0.5f + 0.5f * u) / 64.0f));
            if (t.type == DataType::q4_1 || t.type == DataType::q5_1) {
                kernels::write_as(bytes + 2, kernels::float_to_half(-0.25f * u));
            }
        }
    });
}

std::string show_element(const TensorValue& value, std::size_t index) {
    std::ostringstream out;
    const auto floats = value.floats();
    out << floats.at(index);
    if (value.type == DataType::f32) {
        std::uint32_t bits;
        std::memcpy(&bits, &floats[index], sizeof bits);
        out << " (0x" << std::hex << bits << ")";
    }
    return out.str();
}

bool close_enough(float expected, float actual, const Tolerance& tolerance) {
    if (std::isnan(expected) || std::isnan(actual)) {
        return std::isnan(expected) && std::isnan(actual);
    }
    if (std::isinf(expected) || std::isinf(actual)) {
        return expected == actual;
    }
    const double difference = std::fabs(static_cast<double>(expected) - actual);
    return difference <= tolerance.absolute + tolerance.relative * std::fabs(static_cast<double>(expected));
}

// The first element where the two differ, if any.
std::optional<std::size_t> first_difference(const TensorValue& expected, const TensorValue& actual,
                                            const std::optional<Tolerance>& tolerance) {
    if (tolerance) {
        const auto want = expected.floats();
        const auto got = actual.floats();
        for (std::size_t i = 0; i < want.size(); ++i) {
            if (!close_enough(want[i], got[i], *tolerance)) {
                return i;
            }
        }
        return std::nullopt;
    }
    if (expected.bytes == actual.bytes) {
        return std::nullopt;
    }
    const auto mismatch = std::ranges::mismatch(expected.bytes, actual.bytes);
    const auto byte = static_cast<std::size_t>(mismatch.in1 - expected.bytes.begin());
    // A quantized tensor differs in a block: name the block's first element.
    return byte / type_size(expected.type) * static_cast<std::size_t>(block_size(expected.type));
}

} // namespace

float seeded_value(std::uint64_t seed, std::string_view name, std::int64_t index) {
    return uniform(TensorRandom(seed, name).bits(static_cast<std::uint64_t>(index)));
}

std::vector<std::byte> fill_image(const Tensor& tensor, const FillSpec& spec) {
    std::vector<std::byte> image(nbytes(tensor));
    if (is_quantized(tensor.type)) {
        fill_blocks(tensor, spec.seed, image);
        return image;
    }
    const TensorRandom random(spec.seed, tensor.name);
    const auto bound = static_cast<std::uint64_t>(std::max<std::int64_t>(spec.index_bound.value_or(16), 1));
    std::uint64_t k = 0;  // the element's place in logical order
    for_each_row(tensor, [&](std::size_t offset) {
        auto* row = reinterpret_cast<unsigned char*>(image.data() + offset);
        for (std::int64_t i0 = 0; i0 < tensor.ne[0]; ++i0, ++k) {
            const std::uint64_t bits = random.bits(k);
            const float value = !spec.values.empty()        ? spec.values[k]
                                : is_integer(tensor.type)   ? static_cast<float>(bits % bound)
                                                            : uniform(bits);
            kernels::store_element(tensor.type, row, i0, tensor.nb[0], value);
        }
    });
    return image;
}

std::vector<std::byte> pack_elements(const Tensor& tensor, std::span<const std::byte> image) {
    std::vector<std::byte> packed;
    if (is_quantized(tensor.type)) {
        const std::size_t bytes = row_size(tensor.type, tensor.ne[0]);
        for_each_row(tensor, [&](std::size_t row) { packed.insert(packed.end(), &image[row], &image[row] + bytes); });
        return packed;
    }
    const std::size_t size = type_size(tensor.type);
    packed.reserve(static_cast<std::size_t>(element_count(tensor)) * size);
    for_each_row(tensor, [&](std::size_t row) {
        for (std::int64_t i0 = 0; i0 < tensor.ne[0]; ++i0) {
            const std::byte* element = &image[row + static_cast<std::size_t>(i0) * tensor.nb[0]];
            packed.insert(packed.end(), element, element + size);
        }
    });
    return packed;
}

std::vector<float> TensorValue::floats() const {
    const auto nb = contiguous_strides(type, ne);
    std::vector<float> values;
    const std::int64_t count = ne[0] * ne[1] * ne[2] * ne[3];
    values.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
    for (std::int64_t k = 0; k < count; ++k) {
        const kernels::Index4 at = kernels::unravel(k, ne.data());
        const std::size_t row = static_cast<std::size_t>(at.i[1]) * nb[1] + static_cast<std::size_t>(at.i[2]) * nb[2] +
                                static_cast<std::size_t>(at.i[3]) * nb[3];
        values.push_back(kernels::load_element(type, reinterpret_cast<const unsigned char*>(bytes.data() + row), at.i[0], nb[0]));
    }
    return values;
}

std::vector<std::string> compare_values(std::span<const TensorValue> expected, std::span<const TensorValue> actual,
                                        std::optional<Tolerance> tolerance, std::size_t limit) {
    std::vector<std::string> lines;
    auto report = [&](std::string line) {
        if (lines.size() < limit) {
            lines.push_back(std::move(line));
        }
    };
    std::map<std::string_view, const TensorValue*> by_name;
    for (const TensorValue& value : actual) {
        by_name.emplace(value.name, &value);
    }
    for (const TensorValue& want : expected) {
        const auto found = by_name.find(want.name);
        if (found == by_name.end()) {
            report("tensor '" + want.name + "': missing");
            continue;
        }
        const TensorValue& got = *found->second;
        by_name.erase(found);
        if (got.type != want.type || got.ne != want.ne) {
            report("tensor '" + want.name + "': type or shape differs");
            continue;
        }
        if (const auto index = first_difference(want, got, tolerance)) {
            report("tensor '" + want.name + "': element " + std::to_string(*index) + " is " + show_element(got, *index) +
                   ", expected " + show_element(want, *index));
        }
    }
    for (const auto& [name, value] : by_name) {
        report("tensor '" + std::string(name) + "': not expected");
    }
    return lines;
}

} // namespace gallocsim
