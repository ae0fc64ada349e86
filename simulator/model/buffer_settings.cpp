#include "simulator/model/buffer_settings.hpp"
#include "reference/dynamic_allocator.hpp"

#include <string>

namespace gallocsim {

void apply_buffer_overrides(GraphFile& file, const BufferOverrides& overrides) {
    if (overrides.alignment) {
        const std::size_t a = *overrides.alignment;
        if (!is_valid_alignment(a)) {
            throw GraphFileError("buffer settings: an alignment must be a power of two, got " + std::to_string(a));
        }
    }
    if (overrides.max_size && *overrides.max_size == 0) {
        throw GraphFileError("buffer settings: a max size must be positive");
    }
    for (BufferTypeSpec& spec : file.buffer_types) {
        spec.alignment = overrides.alignment.value_or(spec.alignment);
        if (overrides.max_size) {
            spec.max_size = overrides.max_size;
        }
        spec.alloc_size = overrides.alloc_size.value_or(spec.alloc_size);
    }
    if (!overrides.empty()) {
        file.expected.reset();  // upstream's plan was for the settings in the file
        check_graph_bytes(file, "buffer settings");
    }
}

} // namespace gallocsim
