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

} // namespace gallocsim
