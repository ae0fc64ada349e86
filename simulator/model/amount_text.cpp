#include "simulator/model/amount_text.hpp"

#include <array>
#include <cstdio>

namespace gallocsim {

std::string binary_size(std::uint64_t bytes) {
    static constexpr std::array<const char*, 7> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        return std::to_string(bytes) + " B";
    }
    // A value that would round to 1024.00 moves up a unit: "1.00 MiB", never "1024.00 KiB".
    std::size_t unit = 0;
    double value = static_cast<double>(bytes);
    while (value >= 1023.995 && unit + 1 < kUnits.size()) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.2f %s", value, kUnits[unit]);
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
