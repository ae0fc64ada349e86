#pragma once
// MiniMalloc's CSV (google/minimalloc), a common exchange format for memory-placement
// problems: a header row, then one buffer per row:
//
//   id,lower,upper,size[,offset]
//
// A buffer lives over the half-open time range [lower, upper); `offset` is an optional
// solution. Like MiniMalloc we also read the column names buffer / buffer_id (for id),
// start / begin (for lower), end (an inclusive upper) and alignment. Our steps are
// inclusive, so a lifetime [first, last] is written as lower = first, upper = last + 1.
// An alignment, as in MiniMalloc's own validator, says where a buffer may start (offset %
// alignment == 0), not how many bytes it takes: its height is offset + size (block_bytes).

#include "simulator/analysis/analysis.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

class MiniMallocError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct MiniMallocProblem {
    ArenaProblem problem;
    std::optional<std::vector<std::size_t>> offsets;  // when the file has an offset column
};

// Ids are the block names with any comma or line break replaced by '_' (the format has no
// quoting). The alignment column is written only when some block needs one.
std::string to_minimalloc_csv(const ArenaProblem& problem, const std::vector<std::size_t>* offsets = nullptr);

// Throws MiniMallocError: "SOURCE: line L, column C (name): problem".
MiniMallocProblem parse_minimalloc_csv(std::string_view text, std::string_view source);
MiniMallocProblem load_minimalloc_csv(const std::filesystem::path& path);

} // namespace gallocsim
