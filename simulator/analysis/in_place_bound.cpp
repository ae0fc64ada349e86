#include "simulator/analysis/in_place_bound.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace gallocsim {

namespace {

// Chains as sets of lifetimes (indexes into GraphLifetimes::tensors), joined by union-find.
class Chains {
public:
    explicit Chains(std::size_t count) : parent_(count) { std::iota(parent_.begin(), parent_.end(), std::size_t{0}); }

    std::size_t root(std::size_t i) {
        while (parent_[i] != i) {
            parent_[i] = parent_[parent_[i]];
            i = parent_[i];
        }
        return i;
    }
    // The earlier-allocated member stays the root, so a chain is named from its start.
    void join(std::size_t a, std::size_t b) {
        const std::size_t ra = root(a), rb = root(b);
        parent_[std::max(ra, rb)] = std::min(ra, rb);
    }

private:
    std::vector<std::size_t> parent_;
};

} // namespace

std::vector<ArenaProblem> in_place_arena_problems(const GraphFile& file, const GraphLifetimes& lifetimes,
                                                  InPlacePairs in_place) {
    const auto& tensors = lifetimes.tensors;
    Chains chains(tensors.size());
    for (const InPlacePair& pair : in_place) {
        const TensorLifetime* node = lifetimes.find(pair.node);
        const TensorLifetime* parent = lifetimes.find(pair.parent);
        if (node != nullptr && parent != nullptr) {
            chains.join(static_cast<std::size_t>(node - tensors.data()), static_cast<std::size_t>(parent - tensors.data()));
        }
    }

    std::vector<ArenaProblem> problems(file.buffer_types.size());
    for (std::size_t type = 0; type < file.buffer_types.size(); ++type) {
        problems[type].name = file.buffer_types[type].name;
    }
    constexpr std::size_t kNoBlock = SIZE_MAX;
    std::vector<std::size_t> block_of_root(tensors.size(), kNoBlock);  // chain root -> its block in its arena
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const TensorLifetime& member = tensors[i];
        const std::size_t root = chains.root(i);
        const auto arena = static_cast<std::size_t>(tensors[root].arena);
        auto& blocks = problems[arena].blocks;
        LiveBlock block = block_of(file, member);  // the size the plain bound and the planners give it too
        if (block_of_root[root] == kNoBlock) {
            block_of_root[root] = blocks.size();
            blocks.push_back(std::move(block));  // the chain's tensor: its first member
            continue;
        }
        LiveBlock& chain = blocks[block_of_root[root]];
        chain.name += "+" + block.name;
        chain.first = std::min(chain.first, block.first);
        chain.last = std::max(chain.last, block.last);
        chain.size = std::min(block_bytes(chain), block_bytes(block));
    }
    return problems;
}

} // namespace gallocsim
