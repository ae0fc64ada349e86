#pragma once
// What one tensor costs a plan on its own: ggml's plan made again with the tensor outside the
// buffers, as `why` and the Peak panel ask it of the tensors live at a high-water mark.
#include "simulator/model/plan.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace gallocsim {

// What one tensor costs ggml's plan on its own: the buffer sizes ggml plans for `file` when that
// tensor lives outside the buffers (external, as weights do) and every other tensor is as it was
// (its in-place children then cannot take its memory). Empty when that plan fails. `why` asks it
// of the largest tensors live at each buffer's high-water mark (the file is only read).
//
// Each answer is a bare plan (reserve_n and alloc_graph, no trace) of one working copy of the
// file: before each, prepare_plan_again puts back what the last one wrote, so that copying the
// graph (a third of a bare plan) is not paid per tensor. The copy may be an earlier plan's.
class PlansWithout {
public:
    // On a copy of its own, or on `earlier`'s (a run of the same file: ggml's plan once its
    // places have been read), which it takes.
    PlansWithout(const GraphFile& file, const AllocatorProfile& profile, PlanRun earlier = {});
    std::vector<std::size_t> buffer_sizes_without(TensorId tensor);

private:
    const GraphFile* file_;
    const AllocatorProfile* profile_;
    PlanRun run_;  // the copy, with the last plan made on it
};

// buffer_sizes_without for each of `tensors`, in their order. The plans are independent, so
// with two cores or more a second thread makes every other one, on a working copy of its own:
// they are most of `why` (seven plans of the whole graph), and the answers do not depend on
// which thread made them. `earlier` as for PlansWithout: the first thread takes it.
std::vector<std::vector<std::size_t>> buffer_sizes_without_each(const GraphFile& file, const AllocatorProfile& profile,
                                                                std::span<const TensorId> tensors, PlanRun earlier = {});

} // namespace gallocsim
