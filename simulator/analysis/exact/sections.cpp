#include "simulator/analysis/exact/sections.hpp"

#include <algorithm>
#include <numeric>

namespace gallocsim::exact {

Sections sweep_sections(std::span<const LiveBlock> blocks) {
    std::vector<int> starts, ends;
    for (const LiveBlock& block : blocks) {
        starts.push_back(block.first);
        ends.push_back(block.last);
    }
    std::ranges::sort(starts);
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    std::ranges::sort(ends);
    // The blocks live at a start step form a section unless every one of them still lives at the
    // next start step (then the next step's set contains this one): some block must end in between.
    std::vector<int> steps;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const auto ending = std::ranges::lower_bound(ends, starts[k]);
        if (k + 1 == starts.size() || (ending != ends.end() && *ending < starts[k + 1])) {
            steps.push_back(starts[k]);
        }
    }
    Sections sections;
    sections.bytes.assign(steps.size(), 0);
    for (const LiveBlock& block : blocks) {
        // Every block lives at the last section step before it ends, so its range is never empty.
        const auto first = static_cast<std::uint32_t>(std::ranges::lower_bound(steps, block.first) - steps.begin());
        const auto last = static_cast<std::uint32_t>(std::ranges::upper_bound(steps, block.last) - steps.begin() - 1);
        sections.first.push_back(first);
        sections.last.push_back(last);
        for (std::uint32_t s = first; s <= last; ++s) {
            sections.bytes[s] += block_bytes(block);
        }
    }
    std::vector<std::vector<std::uint32_t>> members(steps.size());
    for (std::uint32_t b = 0; b < blocks.size(); ++b) {
        for (std::uint32_t s = sections.first[b]; s <= sections.last[b]; ++s) {
            members[s].push_back(b);
        }
    }
    sections.member_begin.push_back(0);
    for (const auto& list : members) {
        sections.members.insert(sections.members.end(), list.begin(), list.end());
        sections.member_begin.push_back(static_cast<std::uint32_t>(sections.members.size()));
    }
    return sections;
}

Neighbours neighbours_in_time(std::span<const LiveBlock> blocks) {
    std::vector<std::uint32_t> by_first(blocks.size());
    std::iota(by_first.begin(), by_first.end(), 0U);
    std::ranges::sort(by_first, {}, [&](std::uint32_t b) { return blocks[b].first; });
    std::vector<std::vector<std::uint32_t>> lists(blocks.size());
    for (std::size_t i = 0; i < by_first.size(); ++i) {
        const LiveBlock& a = blocks[by_first[i]];
        for (std::size_t j = i + 1; j < by_first.size() && blocks[by_first[j]].first <= a.last; ++j) {
            lists[by_first[i]].push_back(by_first[j]);
            lists[by_first[j]].push_back(by_first[i]);
        }
    }
    Neighbours neighbours;
    neighbours.begin.push_back(0);
    for (const auto& list : lists) {
        neighbours.ids.insert(neighbours.ids.end(), list.begin(), list.end());
        neighbours.begin.push_back(static_cast<std::uint32_t>(neighbours.ids.size()));
    }
    return neighbours;
}

} // namespace gallocsim::exact
