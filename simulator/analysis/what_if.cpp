#include "simulator/analysis/what_if.hpp"

#include "simulator/model/working_graph.hpp"

#include <future>
#include <thread>
#include <utility>

namespace gallocsim {

PlansWithout::PlansWithout(const GraphFile& file, const AllocatorProfile& profile, PlanRun earlier)
    : file_(&file), profile_(&profile), run_(std::move(earlier)) {
    if (run_.allocator == nullptr) {
        run_.planned = working_copy(file);  // no earlier run given
    }
}

std::vector<std::size_t> PlansWithout::buffer_sizes_without(TensorId tensor) {
    run_ = prepare_plan_again(*file_, std::move(run_), *profile_);
    WorkingGraph& planned = run_.planned;
    // Outside every buffer, as a weight is: the allocator sees data it did not plan.
    planned.context.tensors().at(static_cast<std::size_t>(tensor)).data = external_data_placeholder();
    GraphAllocator& allocator = *run_.allocator;
    std::vector<std::size_t> sizes;
    if (allocator.reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids) && allocator.alloc_graph(planned.graph)) {
        for (int id = 0; id < allocator.buffer_count(); ++id) {
            sizes.push_back(allocator.buffer_size(id));  // as record_plan reads them
        }
    }
    return sizes;
}

std::vector<std::vector<std::size_t>> buffer_sizes_without_each(const GraphFile& file, const AllocatorProfile& profile,
                                                                std::span<const TensorId> tensors, PlanRun earlier) {
    std::vector<std::vector<std::size_t>> sizes(tensors.size());
    // Plans i, i + stride, ... of `tensors` on one working copy.
    const auto make_every = [&](std::size_t first, std::size_t stride, PlanRun run) {
        PlansWithout plans(file, profile, std::move(run));
        for (std::size_t i = first; i < tensors.size(); i += stride) {
            sizes[i] = plans.buffer_sizes_without(tensors[i]);
        }
    };
    if (tensors.size() < 2 || std::thread::hardware_concurrency() < 2) {
        make_every(0, 1, std::move(earlier));
        return sizes;
    }
    // std::async rethrows what the second thread throws (bad_alloc) where its result is read.
    auto second = std::async(std::launch::async, make_every, std::size_t{1}, std::size_t{2}, PlanRun{});
    make_every(0, 2, std::move(earlier));
    second.get();
    return sizes;
}

} // namespace gallocsim
