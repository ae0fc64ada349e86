#include "gui/tensor_colors.hpp"

#include <cstdint>

namespace gallocsim::gui {

std::uint32_t stable_name_hash(std::string_view name) {
    std::uint32_t hash = 2166136261u;
    for (const char c : name) {
        hash ^= static_cast<std::uint8_t>(c);
        hash *= 16777619u;
    }
    return hash;
}

QColor tensor_color(std::string_view name) {
    const std::uint32_t hash = stable_name_hash(name);
    // Hue from the low bits; saturation and value vary a little from higher bits, so
    // neighbouring hues still differ, but stay light enough for dark text on top.
    const int hue = static_cast<int>(hash % 360u);
    const int saturation = 110 + static_cast<int>((hash >> 9) % 70u);
    const int value = 215 + static_cast<int>((hash >> 17) % 35u);
    return QColor::fromHsv(hue, saturation, value).toRgb();
}

} // namespace gallocsim::gui
