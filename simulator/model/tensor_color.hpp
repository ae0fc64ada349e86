#pragma once
// One colour per tensor, the same in the SVG pictures and in every view of the GUI, in every
// session: the hue comes from a stable hash of the tensor's name (as PyTorch's memory
// visualizer does), so a learner can follow a tensor from the graph to the memory map to the
// timeline by colour alone. Saturation and value vary a little with higher bits of the hash,
// so neighbouring hues still differ, but stay light enough for dark text on top.

#include <cstdint>
#include <string>
#include <string_view>

namespace gallocsim {

struct Rgb {
    std::uint8_t red = 0, green = 0, blue = 0;
    bool operator==(const Rgb&) const = default;
    std::string hex() const;  // "#rrggbb", for SVG and HTML
};

// FNV-1a over the name's bytes: stable across runs and platforms.
std::uint32_t stable_name_hash(std::string_view name);

// HSV with hue in degrees [0, 360), saturation and value in [0, 255], to RGB (rounded).
Rgb hsv_to_rgb(int hue, int saturation, int value);

Rgb tensor_rgb(std::string_view name);

} // namespace gallocsim
