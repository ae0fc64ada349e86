#include "simulator/model/tensor_color.hpp"

#include <cmath>
#include <cstdio>

namespace gallocsim {

std::string Rgb::hex() const {
    char text[8];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", red, green, blue);
    return text;
}

std::uint32_t stable_name_hash(std::string_view name) {
    std::uint32_t hash = 2166136261u;
    for (const char c : name) {
        hash ^= static_cast<std::uint8_t>(c);
        hash *= 16777619u;
    }
    return hash;
}

Rgb hsv_to_rgb(int hue, int saturation, int value) {
    const double v = value / 255.0;
    const double chroma = v * (saturation / 255.0);
    const double sector = (hue % 360) / 60.0;
    const double x = chroma * (1 - std::abs(std::fmod(sector, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    switch (static_cast<int>(sector)) {
    case 0: r = chroma, g = x; break;
    case 1: r = x, g = chroma; break;
    case 2: g = chroma, b = x; break;
    case 3: g = x, b = chroma; break;
    case 4: r = x, b = chroma; break;
    default: r = chroma, b = x; break;
    }
    const double m = v - chroma;
    const auto channel = [&](double c) { return static_cast<std::uint8_t>(std::lround((c + m) * 255)); };
    return {channel(r), channel(g), channel(b)};
}

Rgb tensor_rgb(std::string_view name) {
    const std::uint32_t hash = stable_name_hash(name);
    return hsv_to_rgb(static_cast<int>(hash % 360u), 110 + static_cast<int>((hash >> 9) % 70u),
                      215 + static_cast<int>((hash >> 17) % 35u));
}

} // namespace gallocsim
