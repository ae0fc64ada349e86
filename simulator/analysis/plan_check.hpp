#pragma once
// ggml's plan as the plan checker's input (checker.hpp): what must be placed, where ggml put it,
// what each buffer allows and which tensors may share bytes.
#include "simulator/analysis/checker.hpp"
#include "simulator/analysis/ggml_plan.hpp"


namespace gallocsim {

// ggml's placements of the tensors that have lifetimes, their alloc sizes in the buffer
// they ended up in, each buffer's alignment, max size and chunks, and the in-place pairs
// as the pairs allowed to share bytes.
PlanToCheck ggml_plan_to_check(const GraphFile& file, const GgmlPlan& plan);

} // namespace gallocsim
