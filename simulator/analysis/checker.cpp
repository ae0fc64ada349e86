#include "simulator/analysis/checker.hpp"
#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_set>

namespace gallocsim {

namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string where(const CheckedPlacement& p) {
    return "buffer " + std::to_string(p.buffer) + " chunk " + std::to_string(p.chunk);
}

std::string bytes(std::size_t begin, std::size_t end) {
    return "bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::string steps(int first, int last) {
    return first == last ? "step " + std::to_string(first) : "steps " + std::to_string(first) + "-" + std::to_string(last);
}

// A placement of a known tensor in a real chunk, with what the checks need.
struct Placed {
    std::size_t index;  // the tensor's, in the plan's list
    const CheckedTensor* tensor;
    const CheckedPlacement* place;
    std::size_t end;  // offset + size (not rounded: overlaps are about the bytes themselves)
};

// Two tensors in either order, as one key: the lesser index first.
std::pair<std::size_t, std::size_t> ordered(std::size_t a, std::size_t b) {
    return std::minmax(a, b);
}

class Checker {
public:
    explicit Checker(const PlanToCheck& plan) : plan_(plan) {
        may_share_.reserve(plan.may_share.size());
        for (const auto& [a, b] : plan.may_share) {
            may_share_.insert(ordered(a, b));
        }
    }

    std::vector<Violation> run() {
        std::vector<int> times_placed(plan_.tensors.size(), 0);
        for (const CheckedPlacement& place : plan_.placements) {
            if (place.tensor >= plan_.tensors.size()) {
                add(ViolationKind::unknown_tensor, place.tensor, kNoCheckedTensor,
                    "placement for unknown tensor " +
                        (place.tensor == kNoCheckedTensor ? std::string("(none)") : std::to_string(place.tensor)) +
                        " (the plan lists " + std::to_string(plan_.tensors.size()) + ")");
                continue;
            }
            const std::string& name = plan_.tensors[place.tensor].name;
            if (++times_placed[place.tensor] > 1) {
                add(ViolationKind::placed_twice, place.tensor, kNoCheckedTensor, "tensor " + quoted(name) + " is placed more than once");
                continue;
            }
            check_address(place.tensor, place);
        }
        for (std::size_t i = 0; i < plan_.tensors.size(); ++i) {
            if (times_placed[i] == 0) {
                add(ViolationKind::unplaced, i, kNoCheckedTensor, "tensor " + quoted(plan_.tensors[i].name) + " has no placement");
            }
        }
        check_chunks();
        for (auto& [chunk, placed] : by_chunk_) {
            check_overlaps(placed);
        }
        return std::move(violations_);
    }

private:
    const std::string& name_of(std::size_t tensor) const {
        static const std::string none;
        return tensor < plan_.tensors.size() ? plan_.tensors[tensor].name : none;
    }

    void add(ViolationKind kind, std::size_t tensor, std::size_t other, std::string message) {
        violations_.push_back({kind, tensor, other, std::move(message), name_of(tensor), name_of(other)});
    }

    void check_address(std::size_t index, const CheckedPlacement& place) {
        const CheckedTensor& tensor = plan_.tensors[index];
        if (place.buffer < 0 || place.buffer >= static_cast<int>(plan_.buffers.size())) {
            add(ViolationKind::bad_address, index, kNoCheckedTensor,
                "tensor " + quoted(tensor.name) + " is placed in buffer " + std::to_string(place.buffer) + ", which does not exist");
            return;
        }
        const CheckedBuffer& buffer = plan_.buffers[static_cast<std::size_t>(place.buffer)];
        if (place.chunk < 0 || place.chunk >= static_cast<int>(buffer.chunk_sizes.size())) {
            add(ViolationKind::bad_address, index, kNoCheckedTensor,
                "tensor " + quoted(tensor.name) + " is placed in " + where(place) + ", which does not exist");
            return;
        }
        const std::size_t alignment = tensor.alignment != 0 ? tensor.alignment : buffer.alignment;
        if (alignment > 1 && place.offset % alignment != 0) {
            add(ViolationKind::misaligned, index, kNoCheckedTensor,
                "tensor " + quoted(tensor.name) + " at offset " + std::to_string(place.offset) +
                    " is not aligned to " + std::to_string(alignment));
        }
        const std::size_t chunk_size = buffer.chunk_sizes[static_cast<std::size_t>(place.chunk)];
        const std::size_t footprint = align_up(tensor.size, std::max<std::size_t>(buffer.alignment, 1));
        if (footprint > chunk_size || place.offset > chunk_size - footprint) {
            add(ViolationKind::outside_chunk, index, kNoCheckedTensor,
                "tensor " + quoted(tensor.name) + " at offset " + std::to_string(place.offset) + " (" +
                    std::to_string(footprint) + " bytes aligned) reaches past the end of " + where(place) + " (" +
                    std::to_string(chunk_size) + " bytes)");
            return;
        }
        by_chunk_[{place.buffer, place.chunk}].push_back({index, &tensor, &place, place.offset + tensor.size});
    }

    void check_chunks() {
        for (std::size_t b = 0; b < plan_.buffers.size(); ++b) {
            const CheckedBuffer& buffer = plan_.buffers[b];
            const std::string name = "buffer " + std::to_string(b) + (buffer.name.empty() ? "" : " (" + buffer.name + ")");
            if (static_cast<int>(buffer.chunk_sizes.size()) > buffer.chunk_limit) {
                add(ViolationKind::too_many_chunks, kNoCheckedTensor, kNoCheckedTensor,
                    name + " has " + std::to_string(buffer.chunk_sizes.size()) + " chunks; at most " +
                        std::to_string(buffer.chunk_limit) + " are possible");
            }
            for (std::size_t c = 0; c < buffer.chunk_sizes.size(); ++c) {
                check_chunk(buffer, name + " chunk " + std::to_string(c), static_cast<int>(b), static_cast<int>(c));
            }
        }
    }

    void check_chunk(const CheckedBuffer& buffer, const std::string& name, int b, int c) {
        const std::size_t size = buffer.chunk_sizes[static_cast<std::size_t>(c)];
        std::size_t high_water = 0;
        std::size_t largest = 0;
        if (auto it = by_chunk_.find({b, c}); it != by_chunk_.end()) {
            for (const Placed& placed : it->second) {
                const std::size_t footprint = align_up(placed.tensor->size, std::max<std::size_t>(buffer.alignment, 1));
                high_water = std::max(high_water, placed.place->offset + footprint);
                largest = std::max(largest, footprint);
            }
        }
        if (plan_.check_high_water && size != high_water) {
            add(ViolationKind::chunk_not_tight, kNoCheckedTensor, kNoCheckedTensor,
                name + " is " + std::to_string(size) + " bytes but its tensors reach only " + std::to_string(high_water));
        }
        const bool last_possible = c == buffer.chunk_limit - 1;
        if (size > buffer.max_size && size > largest && !last_possible) {
            add(ViolationKind::chunk_too_large, kNoCheckedTensor, kNoCheckedTensor,
                name + " is " + std::to_string(size) + " bytes, above max_size " + std::to_string(buffer.max_size) +
                    ", and no tensor in it needs that much (largest " + std::to_string(largest) + ")");
        }
    }

    // Sorted by offset, each tensor only has to be compared with those that start before
    // it ends; a pair conflicts when it also shares a step.
    // A sweep through time: each tensor is compared only with those live in its first step,
    // kept by offset, so a plan of n tensors costs about n log n and not a pass over every
    // tensor that ever used the same bytes. Overlaps are reported lower offset first.
    void check_overlaps(std::vector<Placed>& placed) {
        std::erase_if(placed, [](const Placed& p) { return p.tensor->size == 0; });
        std::ranges::sort(placed, {}, [](const Placed& p) { return std::pair(p.tensor->first, p.place->offset); });
        std::size_t widest = 0;
        for (const Placed& p : placed) {
            widest = std::max(widest, p.end - p.place->offset);
        }
        using Live = std::multimap<std::size_t, const Placed*>;  // by offset
        Live live;
        const auto later_last = [](const auto& x, const auto& y) { return x.first > y.first; };
        std::priority_queue<std::pair<int, Live::iterator>, std::vector<std::pair<int, Live::iterator>>, decltype(later_last)>
            ending(later_last);
        std::vector<std::pair<const Placed*, const Placed*>> overlaps;
        for (const Placed& b : placed) {
            while (!ending.empty() && ending.top().first < b.tensor->first) {
                live.erase(ending.top().second);
                ending.pop();
            }
            // Only a tensor starting less than `widest` bytes lower can reach b's first byte.
            const std::size_t from = b.place->offset > widest ? b.place->offset - widest : 0;
            for (auto it = live.lower_bound(from); it != live.end() && it->first < b.end; ++it) {
                const Placed& a = *it->second;
                if (a.end > b.place->offset &&
                    !may_share_.contains(ordered(a.index, b.index))) {
                    overlaps.emplace_back(&a, &b);
                }
            }
            ending.emplace(b.tensor->last, live.emplace(b.place->offset, &b));
        }
        // Each pair lower offset first, and the pairs by offsets; ties by the names, which is
        // the order the reports have always listed them in.
        for (auto& [a, b] : overlaps) {
            if (std::pair(b->place->offset, b->tensor->name) < std::pair(a->place->offset, a->tensor->name)) {
                std::swap(a, b);
            }
        }
        std::ranges::sort(overlaps, {}, [](const auto& pair) {
            return std::tuple(pair.first->place->offset, pair.second->place->offset, pair.first->tensor->name, pair.second->tensor->name);
        });
        for (const auto& [a, b] : overlaps) {
            const int first = std::max(a->tensor->first, b->tensor->first);
            const int last = std::min(a->tensor->last, b->tensor->last);
            add(ViolationKind::overlap, a->index, b->index,
                "tensors " + quoted(a->tensor->name) + " (" + bytes(a->place->offset, a->end) + ") and " +
                    quoted(b->tensor->name) + " (" + bytes(b->place->offset, b->end) + ") share bytes in " +
                    where(*a->place) + " while both are live (" + steps(first, last) + ")");
        }
    }

    const PlanToCheck& plan_;
    // The pairs allowed to overlap, as ordered() gives them.
    struct PairHash {
        std::size_t operator()(const std::pair<std::size_t, std::size_t>& pair) const {
            return pair.first * 0x9E3779B97F4A7C15u ^ pair.second;
        }
    };
    std::unordered_set<std::pair<std::size_t, std::size_t>, PairHash> may_share_;
    std::map<std::pair<int, int>, std::vector<Placed>> by_chunk_;
    std::vector<Violation> violations_;
};

} // namespace

std::vector<Violation> check_plan(const PlanToCheck& plan) {
    return Checker(plan).run();
}

std::string violation_kind_name(ViolationKind kind) {
    switch (kind) {
    case ViolationKind::unplaced: return "unplaced";
    case ViolationKind::placed_twice: return "placed twice";
    case ViolationKind::unknown_tensor: return "unknown tensor";
    case ViolationKind::bad_address: return "bad address";
    case ViolationKind::misaligned: return "misaligned";
    case ViolationKind::outside_chunk: return "outside chunk";
    case ViolationKind::chunk_not_tight: return "chunk not tight";
    case ViolationKind::chunk_too_large: return "chunk too large";
    case ViolationKind::too_many_chunks: return "too many chunks";
    case ViolationKind::overlap: return "overlap";
    }
    return "unknown";
}

} // namespace gallocsim
