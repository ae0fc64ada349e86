#pragma once
// The sweep an exact search starts from (MiniMalloc's "sections", Moffitt 2023). A section is
// a set of blocks that all live at one step and is not contained in the set of another step: the
// maximal cliques of the lifetimes, in time order. Two blocks live together exactly when they
// share a section, each block's sections are consecutive, and the blocks of one section must be
// stacked: that is what lets a search see, at any moment, that what is left cannot fit.

#include "simulator/analysis/analysis.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gallocsim::exact {

struct Sections {
    std::vector<std::uint32_t> first;  // per block: its first section
    std::vector<std::uint32_t> last;   // per block: its last section
    std::vector<std::uint64_t> bytes;  // per section: the bytes of the blocks live there
    std::vector<std::uint32_t> member_begin;  // section s's blocks: members[member_begin[s] .. member_begin[s + 1])
    std::vector<std::uint32_t> members;

    std::size_t count() const { return bytes.size(); }
    std::span<const std::uint32_t> blocks_of(std::size_t section) const {
        return std::span(members).subspan(member_begin[section], member_begin[section + 1] - member_begin[section]);
    }
};

// `blocks` must all hold bytes (block_bytes > 0).
Sections sweep_sections(std::span<const LiveBlock> blocks);

// Per block, the other blocks it lives with (each pair listed both ways), in compressed rows:
// block b's are ids[begin[b] .. begin[b + 1]).
struct Neighbours {
    std::vector<std::uint32_t> begin;
    std::vector<std::uint32_t> ids;

    std::span<const std::uint32_t> of(std::size_t block) const {
        return std::span(ids).subspan(begin[block], begin[block + 1] - begin[block]);
    }
};

Neighbours neighbours_in_time(std::span<const LiveBlock> blocks);

} // namespace gallocsim::exact
