#include "simulator/model/amount_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace gallocsim {

namespace {

constexpr std::array<const char*, 7> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

// The unit `bytes` is written in: a value that would round to 1024.00 moves up a unit, so
// "1.00 MiB", never "1024.00 KiB".
std::size_t unit_of(std::uint64_t bytes) {
    std::size_t unit = 0;
    for (auto value = static_cast<double>(bytes); value >= 1023.995 && unit + 1 < kUnits.size(); value /= 1024) {
        ++unit;
    }
    return unit;
}

double in_unit(std::uint64_t bytes, std::size_t unit) {
    return static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << (10 * unit));
}

} // namespace

std::string binary_size(std::uint64_t bytes) {
    if (bytes < 1024) {
        return std::to_string(bytes) + " B";
    }
    const std::size_t unit = unit_of(bytes);
    char text[32];
    std::snprintf(text, sizeof text, "%.2f %s", in_unit(bytes, unit), kUnits[unit]);
    return text;
}

ByteAxis byte_axis(std::uint64_t top, unsigned most_steps) {
    ByteAxis axis;
    const std::size_t unit = unit_of(top);
    axis.unit = std::uint64_t{1} << (10 * unit);
    axis.unit_name = kUnits[unit];
    const double units = in_unit(top, unit);
    const unsigned most = std::max(most_steps, 1U);
    // Whole bytes at least; in a larger unit top is at least one unit, so hundredths are as
    // fine as a step of up to 100 steps needs.
    for (int exponent = unit == 0 ? 0 : -2;; ++exponent) {
        for (const int m : {1, 2, 5}) {
            axis.step = m * std::pow(10.0, exponent);
            axis.decimals = std::max(0, -exponent);
            if (axis.step * most >= units) {
                axis.steps = std::max(1U, static_cast<unsigned>(std::ceil(units / axis.step - 1e-9)));
                return axis;
            }
        }
    }
}

std::string ByteAxis::label(unsigned tick) const {
    if (tick == 0) {
        return "0";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.*f %s", decimals, tick * step, unit_name);
    return text;
}

std::string byte_count(std::uint64_t bytes) {
    std::string text = std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
    return bytes < 1024 ? text : text + " (" + binary_size(bytes) + ")";
}

std::string counted(std::uint64_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string percent1(double share) {
    char text[48];
    std::snprintf(text, sizeof text, "%.1f %%", 100.0 * share);
    return text;
}

std::string percent_of(std::uint64_t part, std::uint64_t whole) {
    return percent1(whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole));
}

std::string fixed2(double value) {
    char text[48];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

} // namespace gallocsim
