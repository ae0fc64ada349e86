#pragma once
// Buffer settings that replace a graph file's: every buffer type planned as if on another
// backend (another alignment, a max size that splits into chunks, CUDA's alloc size).

#include "simulator/model/graph_file.hpp"

#include <cstddef>
#include <optional>

namespace gallocsim {

// Settings applied to every buffer type of a file (to plan it as if on another backend).
struct BufferOverrides {
    std::optional<std::size_t> alignment;
    std::optional<std::size_t> max_size;
    std::optional<AllocSizeRule> alloc_size;
    bool empty() const { return !alignment && !max_size && !alloc_size; }
};

// Throws GraphFileError for an alignment that is not a power of two or a max size of 0.
void apply_buffer_overrides(GraphFile& file, const BufferOverrides& overrides);

} // namespace gallocsim
