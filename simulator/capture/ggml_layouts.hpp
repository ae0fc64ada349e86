#pragma once
// The ggml layouts this capture library was built for: one per ggml header tree CMake was
// given (GALLOCSIM_CAPTURE_GGML_TREES), newest first.

#include "simulator/capture/ggml_layout.h"

#include <span>

namespace gallocsim::capture {

std::span<const gallocsim_ggml_layout* const> ggml_layouts();

} // namespace gallocsim::capture
