#include "simulator/capture/ggml_layouts.hpp"

// GALLOCSIM_LAYOUT(symbol) for each compiled layout, written by CMake.
#define GALLOCSIM_LAYOUT(symbol) extern "C" const gallocsim_ggml_layout symbol;
#include "ggml_layout_list.inc"
#undef GALLOCSIM_LAYOUT

namespace gallocsim::capture {

std::span<const gallocsim_ggml_layout* const> ggml_layouts() {
#define GALLOCSIM_LAYOUT(symbol) &symbol,
    static const gallocsim_ggml_layout* const layouts[] = {
#include "ggml_layout_list.inc"
    };
#undef GALLOCSIM_LAYOUT
    return layouts;
}

} // namespace gallocsim::capture
