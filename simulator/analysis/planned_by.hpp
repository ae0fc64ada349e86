#pragma once
// What planned a report's plan, in the words every text report puts on its first line: the
// allocator state or policy and the buffer types' settings. Output pasted into an issue or a
// chat keeps them, so nobody reads a plan of one version as another's.

#include "reference/profile.hpp"
#include "simulator/model/graph_file.hpp"

#include <span>
#include <string>

namespace gallocsim {

// "planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size"
std::string planned_by_text(const AllocatorProfile& profile, std::span<const BufferTypeSpec> types);

} // namespace gallocsim
