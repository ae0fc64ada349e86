#pragma once
// How a byte offset inside a chunk becomes a length on screen, for the timeline (vertically)
// and the memory map (horizontally). Linear shows sizes as they are; logarithmic keeps small
// tensors visible next to a huge one (a 256 MiB attention score beside 2 KiB inputs): offset o
// maps to L * log2(1 + o / unit) / log2(1 + L / unit), L the largest chunk, so the largest
// chunk keeps its length and zoom works as before.

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace gallocsim::gui {

enum class OffsetScaleKind { linear, logarithmic };

class OffsetScale {
public:
    OffsetScale() = default;
    OffsetScale(OffsetScaleKind kind, std::size_t largest)
        : kind_(kind), largest_(static_cast<double>(std::max<std::size_t>(largest, 1))),
          norm_(std::log2(1.0 + largest_ / kUnit)) {}

    OffsetScaleKind kind() const { return kind_; }
    // An offset (or a size counted from 0) in scene units.
    double operator()(std::size_t offset) const {
        const auto bytes = static_cast<double>(offset);
        return kind_ == OffsetScaleKind::linear || norm_ <= 0 ? bytes : largest_ * std::log2(1.0 + bytes / kUnit) / norm_;
    }
    // The scene length of [offset, offset + size).
    double length(std::size_t offset, std::size_t size) const { return (*this)(offset + size) - (*this)(offset); }

private:
    // Below a kilobyte the logarithm flattens into a line: sizes that small stay near linear.
    static constexpr double kUnit = 1024;
    OffsetScaleKind kind_ = OffsetScaleKind::linear;
    double largest_ = 1;
    double norm_ = 1;
};

} // namespace gallocsim::gui
