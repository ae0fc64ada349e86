#include "simulator/analysis/why_report.hpp"

#include "simulator/model/amount_text.hpp"

#include <algorithm>

namespace gallocsim {

TensorId hole_left_by_tensor(const Trace& trace, const PeakHole& hole) {
    if (!hole.left_by) {
        return kNoTensor;
    }
    const auto touched = touched_tensors(trace.events.at(*hole.left_by));
    return touched.empty() ? kNoTensor : touched.front();
}

std::vector<BufferAnswer> why_answers(const GraphFile& file, const AllocatorProfile& profile, const Trace& trace,
                                      const Comparison& comparison, const std::vector<BufferPeak>& peaks,
                                      PlanRun plan_run) {
    // The tensors whose what-if plans the answers quote, each once, in the order asked.
    std::vector<TensorId> asked;
    const auto ask = [&](TensorId tensor) {
        if (tensor != kNoTensor && std::ranges::find(asked, tensor) == asked.end()) {
            asked.push_back(tensor);
        }
    };
    for (const BufferPeak& peak : peaks) {
        for (std::size_t i = 0; i < std::min(peak.live.size(), kCostedTensors); ++i) {
            ask(peak.live[i].tensor);
        }
        for (std::size_t i = 0; i < std::min(peak.holes.size(), kCostedTensors); ++i) {
            ask(hole_left_by_tensor(trace, peak.holes[i]));
        }
    }
    const std::vector<std::vector<std::size_t>> planned = buffer_sizes_without_each(file, profile, asked, std::move(plan_run));
    const auto sizes_without = [&](TensorId tensor) -> const std::vector<std::size_t>& {
        return planned[static_cast<std::size_t>(std::ranges::find(asked, tensor) - asked.begin())];
    };
    std::vector<BufferAnswer> answers;
    for (const BufferPeak& peak : peaks) {
        const auto id = static_cast<std::size_t>(peak.buffer_id);
        const BufferTypeSpec& type = file.buffer_types[static_cast<std::size_t>(file.buffers[id])];
        const auto arena = std::ranges::find(comparison.arenas, type.name, &ArenaComparison::buffer_type);
        BufferAnswer& a = answers.emplace_back(BufferAnswer{&peak, &type, arena != comparison.arenas.end() ? &*arena : nullptr, {}, {}, {}});
        const auto buffer_size = [&](const std::vector<std::size_t>& sizes) {
            return id < sizes.size() ? std::optional(sizes[id]) : std::nullopt;
        };
        for (std::size_t i = 0; i < std::min(peak.live.size(), kCostedTensors); ++i) {
            a.size_without.push_back(buffer_size(sizes_without(peak.live[i].tensor)));
        }
        for (std::size_t i = 0; i < std::min(peak.holes.size(), kCostedTensors); ++i) {
            const TensorId left_by = hole_left_by_tensor(trace, peak.holes[i]);
            a.hole_left_by.push_back(left_by);
            a.hole_size_without.push_back(left_by != kNoTensor ? buffer_size(sizes_without(left_by)) : std::nullopt);
        }
    }
    return answers;
}

namespace {

// "300.01 MiB (saves 8.00 MiB)"; "(saves nothing)" when another tensor sets the same mark
// without it (a later layer's twin); more when its in-place children lose its memory.
std::string cost_text(const std::optional<std::size_t>& without, std::size_t size) {
    if (!without) {
        return "the plan fails";
    }
    if (*without >= size) {
        return binary_size(*without) + (*without == size ? " (saves nothing)" : " (more: in-place reuse of it is lost)");
    }
    return binary_size(*without) + " (saves " + binary_size(size - *without) + ")";
}

} // namespace

std::string BufferAnswer::without_text(std::size_t i) const {
    return i < size_without.size() ? "without it: " + cost_text(size_without[i], peak->size) : std::string();
}

std::string BufferAnswer::hole_without_text(const Trace& trace, std::size_t i) const {
    if (i >= hole_left_by.size() || hole_left_by[i] == kNoTensor) {
        return {};
    }
    return "without " + trace.tensor(hole_left_by[i]).name + ", whose release left it: " +
           cost_text(hole_size_without[i], peak->size);
}

} // namespace gallocsim
