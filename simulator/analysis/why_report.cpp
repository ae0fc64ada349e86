#include "simulator/analysis/why_report.hpp"

#include "simulator/model/amount_text.hpp"

#include <algorithm>

namespace gallocsim {

std::vector<BufferAnswer> why_answers(const GraphFile& file, const AllocatorProfile& profile, const Comparison& comparison,
                                      const std::vector<BufferPeak>& peaks) {
    std::vector<BufferAnswer> answers;
    for (const BufferPeak& peak : peaks) {
        const auto id = static_cast<std::size_t>(peak.buffer_id);
        const BufferTypeSpec& type = file.buffer_types[static_cast<std::size_t>(file.buffers[id])];
        const auto arena = std::ranges::find(comparison.arenas, type.name, &ArenaComparison::buffer_type);
        BufferAnswer& a = answers.emplace_back(BufferAnswer{&peak, &type, arena != comparison.arenas.end() ? &*arena : nullptr, {}});
        for (std::size_t i = 0; i < std::min(peak.live.size(), kCostedTensors); ++i) {
            const std::vector<std::size_t> sizes = buffer_sizes_without(file, peak.live[i].tensor, profile);
            a.size_without.push_back(id < sizes.size() ? std::optional(sizes[id]) : std::nullopt);
        }
    }
    return answers;
}

// "without it: 300.01 MiB (saves 8.00 MiB)"; "(saves nothing)" when another tensor sets the same
// mark without it (a later layer's twin); more when its in-place children lose its memory.
std::string BufferAnswer::without_text(std::size_t i) const {
    if (i >= size_without.size()) {
        return {};
    }
    const std::optional<std::size_t>& without = size_without[i];
    if (!without) {
        return "without it: the plan fails";
    }
    const std::size_t size = peak->size;
    if (*without >= size) {
        return "without it: " + binary_size(*without) + (*without == size ? " (saves nothing)" : " (more: in-place reuse of it is lost)");
    }
    return "without it: " + binary_size(*without) + " (saves " + binary_size(size - *without) + ")";
}

} // namespace gallocsim
