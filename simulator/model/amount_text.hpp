#pragma once
// Amounts for people, written one way in every command, picture and view. Bytes:
// binary units up to EiB ("64 B", "1.50 KiB", "4.00 TiB"), two decimals, so a column of
// sizes keeps its width at any size. Exact counts stay available next to it.

#include <cstdint>
#include <string>
#include <string_view>

namespace gallocsim {

// "64 B", "1.50 KiB", "70.50 MiB", "4.00 TiB", "16.00 EiB".
std::string binary_size(std::uint64_t bytes);

// "1 byte", "64 bytes", "4194304 bytes (4.00 MiB)": exact, with the readable size from 1 KiB.
std::string byte_count(std::uint64_t bytes);

// "2 consumers", "1 view": a count and a noun that takes an s in the plural.
std::string counted(std::uint64_t n, std::string_view noun);

// A share as a percentage with one decimal: 0.2504 → "25.0 %".
std::string percent1(double share);
// The share `part` is of `whole`, the same way ("0.0 %" of nothing).
std::string percent_of(std::uint64_t part, std::uint64_t whole);
// A ratio or measure with two decimals: "1.07".
std::string fixed2(double value);

// The ticks of an axis of bytes from 0 up to `top`, at round values in the one unit the axis
// is labelled in: the unit binary_size writes `top` in (B, KiB, MiB, ...), every `step` units,
// the step the smallest of 1, 2 or 5 times a power of ten of that unit (whole bytes at least)
// that reaches `top` in at most `most_steps` steps. So 308 MiB in 4 steps is ticked every
// 100 MiB ("0", "100 MiB", ..., "400 MiB"), never every 10^8 bytes ("95.37 MiB", "190.73 MiB").
struct ByteAxis {
    std::uint64_t unit = 1;  // bytes in one unit: 1, 1024, 1024^2, ...
    const char* unit_name = "B";
    double step = 1;         // units from one tick to the next
    int decimals = 0;        // the step's decimals: 0.5 has one
    unsigned steps = 1;      // ticks after 0; the last, steps * step units, is at or above top

    double bytes(unsigned tick) const { return tick * step * static_cast<double>(unit); }
    std::string label(unsigned tick) const;  // "0", "100 MiB", "1.5 GiB"
};
ByteAxis byte_axis(std::uint64_t top, unsigned most_steps);

} // namespace gallocsim
