#include "simulator/analysis/exact/fit_search.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <tuple>

namespace gallocsim::exact {

Instance make_instance(const ArenaProblem& problem) {
    Instance instance;
    for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
        if (block_bytes(problem.blocks[i]) > 0) {  // an empty block touches no byte: it stays at 0
            instance.blocks.push_back(problem.blocks[i]);
            instance.index_in_problem.push_back(i);
        }
    }
    instance.sections = sweep_sections(instance.blocks);
    instance.neighbours = neighbours_in_time(instance.blocks);
    return instance;
}

namespace {

constexpr std::uint64_t kUnplaced = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t kNoRank = -1;

// Rounded up to a multiple of `alignment`; kUnplaced (above every capacity) rather than wrapping.
std::uint64_t aligned(std::uint64_t offset, std::uint64_t alignment) {
    if (alignment <= 1 || offset % alignment == 0) {
        return offset;
    }
    const std::uint64_t step = alignment - offset % alignment;
    return offset > kUnplaced - 1 - step ? kUnplaced - 1 : offset + step;
}

class FitSearch {
public:
    FitSearch(const Instance& instance, std::uint64_t capacity, Preorder order, const Budget& budget, const Rules& rules)
        : instance_(instance), capacity_(capacity), order_(order), budget_(budget), rules_(rules) {
        const std::size_t n = instance.blocks.size();
        for (const LiveBlock& block : instance.blocks) {
            size_.push_back(block_bytes(block));
            alignment_.push_back(std::max<std::size_t>(block.alignment, 1));
        }
        offset_.assign(n, kUnplaced);
        rank_.assign(n, 0);
        min_offset_.assign(n, 0);
        floor_.assign(instance.sections.count(), 0);
        left_ = instance.sections.bytes;
        touched_at_.assign(instance.sections.count(), 0);
        by_first_.resize(n);
        std::iota(by_first_.begin(), by_first_.end(), 0U);
        std::ranges::stable_sort(by_first_, {}, [&](std::uint32_t b) { return instance.sections.first[b]; });
        // Each level of the search places a block or splits what is left (each split after a
        // placement), so no search goes deeper than 2n + 1: the working lists never move.
        candidates_.resize(2 * n + 2);
        groups_.resize(2 * n + 2);
    }

    FitResult run() {
        FitResult result;
        const auto n = static_cast<std::uint32_t>(by_first_.size());
        bool fits = true;
        if (n > 0) {
            rank_blocks({0, n, 0, static_cast<std::uint32_t>(instance_.sections.count() - 1)});
            fits = solve(0, n, 0, kNoRank, 0);
        }
        result.nodes = nodes_;
        result.cancelled = cancelled_;
        if (fits) {
            result.answer = Answer::fits;
            result.offsets = offset_;
            for (std::size_t b = 0; b < offset_.size(); ++b) {
                result.height = std::max(result.height, offset_[b] + size_[b]);
            }
        } else {
            result.answer = stopped_ ? Answer::stopped : Answer::cannot_fit;
        }
        return result;
    }

private:
    struct Candidate {
        std::uint64_t offset;
        std::uint64_t rank;
        std::uint32_t block;
    };
    struct Ranked {
        std::array<double, 3> key;
        std::uint32_t block;
    };
    // Unplaced blocks that meet only each other: a run of by_first_ and the sections it covers.
    struct Group {
        std::uint32_t begin, end;
        std::uint32_t first_section, last_section;
        std::uint64_t need = 0;  // the fullest section: its floor plus what is left to stack there
    };
    struct Change {
        std::uint64_t* where;
        std::uint64_t old;
    };

    bool out_of_budget() {
        if (budget_.node_limit != 0 && nodes_ >= budget_.node_limit) {
            return true;
        }
        if (nodes_ % 1024 != 0) {
            return false;
        }
        if (budget_.every_1024_nodes) {
            budget_.every_1024_nodes(nodes_);
        }
        cancelled_ = budget_.stop.stop_requested();
        return cancelled_ || std::chrono::steady_clock::now() >= budget_.deadline;
    }

    void set(std::uint64_t& where, std::uint64_t value) {
        trail_.push_back({&where, where});
        where = value;
    }

    void undo_to(std::size_t mark) {
        while (trail_.size() > mark) {
            *trail_.back().where = trail_.back().old;
            trail_.pop_back();
        }
    }

    // Returns whether the block lives with a block still unplaced.
    bool place(std::uint32_t block, std::uint64_t offset) {
        set(offset_[block], offset);
        const std::uint64_t top = offset + size_[block];
        const Sections& sections = instance_.sections;
        ++epoch_;
        touched_.clear();
        bool meets_unplaced = false;
        for (std::uint32_t other : instance_.neighbours.of(block)) {
            if (offset_[other] == kUnplaced) {
                meets_unplaced = true;
                const std::uint64_t above = aligned(top, alignment_[other]);
                if (above > min_offset_[other]) {
                    set(min_offset_[other], above);
                    touch(sections.first[other], sections.last[other]);
                }
            }
        }
        for (std::uint32_t s = sections.first[block]; s <= sections.last[block]; ++s) {
            if (top > floor_[s]) {
                set(floor_[s], top);
            }
            set(left_[s], left_[s] - size_[block]);
        }
        touch(sections.first[block], sections.last[block]);
        if (rules_.lowest_unplaced) {
            // A section's unplaced blocks all sit at or above the lowest of their min_offsets.
            for (std::uint32_t s : touched_) {
                std::uint64_t lowest = kUnplaced;
                for (std::uint32_t b : sections.blocks_of(s)) {
                    if (offset_[b] == kUnplaced) {
                        lowest = std::min(lowest, min_offset_[b]);
                    }
                }
                if (lowest != kUnplaced && lowest > floor_[s]) {
                    set(floor_[s], lowest);
                }
            }
        }
        return meets_unplaced;
    }

    void touch(std::uint32_t first, std::uint32_t last) {
        for (std::uint32_t s = first; s <= last; ++s) {
            if (touched_at_[s] != epoch_) {
                touched_at_[s] = epoch_;
                touched_.push_back(s);
            }
        }
    }

    // The unplaced blocks of by_first_[begin, end) in groups that share no section.
    void split(std::uint32_t begin, std::uint32_t end, std::vector<Group>& groups) const {
        groups.clear();
        const Sections& s = instance_.sections;
        for (std::uint32_t i = begin; i < end; ++i) {
            const std::uint32_t b = by_first_[i];
            if (offset_[b] != kUnplaced) {
                continue;
            }
            if (groups.empty() || (rules_.split && s.first[b] > groups.back().last_section)) {
                if (!groups.empty()) {
                    groups.back().end = i;
                }
                groups.push_back({i, end, s.first[b], s.last[b]});
            } else {
                groups.back().last_section = std::max(groups.back().last_section, s.last[b]);
            }
        }
    }

    // Ranks the group's unplaced blocks (rank 0 is tried first among blocks of equal offset) by
    // the order's key, its contention read from what is left to place in each section now, as
    // a group that split off is a problem of its own.
    void rank_blocks(const Group& group) {
        ranked_.clear();
        for (std::uint32_t i = group.begin; i < group.end; ++i) {
            const std::uint32_t b = by_first_[i];
            if (offset_[b] != kUnplaced) {
                continue;
            }
            const Sections& s = instance_.sections;
            const std::uint64_t contention = *std::max_element(left_.begin() + s.first[b], left_.begin() + s.last[b] + 1);
            const auto width = static_cast<double>(instance_.blocks[b].last - instance_.blocks[b].first) + 1.0;
            const double area = width * static_cast<double>(size_[b]);
            const auto c = static_cast<double>(contention);
            switch (order_) {
            case Preorder::width_area_contention: ranked_.push_back({{width, area, c}, b}); break;
            case Preorder::contention_area_width: ranked_.push_back({{c, area, width}, b}); break;
            case Preorder::contention_width_area: ranked_.push_back({{c, width, area}, b}); break;
            }
        }
        // Larger keys first; equal keys in block order.
        std::ranges::sort(ranked_, [](const Ranked& x, const Ranked& y) { return x.key != y.key ? x.key > y.key : x.block < y.block; });
        for (std::size_t r = 0; r < ranked_.size(); ++r) {
            if (rank_[ranked_[r].block] != r) {
                set(rank_[ranked_[r].block], r);
            }
        }
    }

    std::uint64_t need(const Group& group, std::uint64_t above) const {
        std::uint64_t most = 0;
        for (std::uint32_t s = group.first_section; s <= group.last_section; ++s) {
            if (left_[s] > 0) {
                most = std::max(most, std::max(floor_[s], above) + left_[s]);
            }
        }
        return most;
    }

    // Places every unplaced block of by_first_[begin, end) within the capacity, offsets from
    // (last_offset, last_rank) on; false when none fits (or the budget ran out: stopped_).
    bool solve(std::uint32_t begin, std::uint32_t end, std::uint64_t last_offset, std::int64_t last_rank, std::size_t depth) {
        if (stopped_ || out_of_budget()) {
            stopped_ = true;
            return false;
        }
        ++nodes_;
        std::vector<Group>& groups = groups_[depth];
        split(begin, end, groups);
        if (groups.empty()) {
            return true;
        }
        // Every block still to place sits at or above last_offset, whichever group it is in.
        for (Group& group : groups) {
            group.need = need(group, last_offset);
            if (rules_.sections && group.need > capacity_) {
                return false;
            }
        }
        if (groups.size() > 1) {
            // Groups meet no more: each is searched on its own (its canonical order from offset
            // 0 again), the fullest first, so that a group that cannot fit is found before the
            // others are searched.
            std::ranges::stable_sort(groups, std::greater{}, &Group::need);
            for (std::size_t g = 0; g < groups.size(); ++g) {
                const Group group = groups[g];
                rank_blocks(group);
                if (!solve(group.begin, group.end, 0, kNoRank, depth + 1)) {
                    return false;
                }
            }
            return true;
        }
        const Group group = groups.front();
        std::uint64_t lowest_top = kUnplaced;  // the lowest top any unplaced block could have now
        for (std::uint32_t i = group.begin; i < group.end; ++i) {
            const std::uint32_t b = by_first_[i];
            if (offset_[b] == kUnplaced) {
                lowest_top = std::min(lowest_top, min_offset_[b] + size_[b]);
            }
        }
        std::vector<Candidate>& candidates = candidates_[depth];
        candidates.clear();
        for (std::uint32_t i = group.begin; i < group.end; ++i) {
            const std::uint32_t b = by_first_[i];
            const std::uint64_t offset = min_offset_[b];
            if (offset_[b] != kUnplaced || offset < last_offset ||
                (offset == last_offset && static_cast<std::int64_t>(rank_[b]) < last_rank)) {
                continue;  // placed, or it would come out of order
            }
            if ((rules_.dominance && offset >= lowest_top) || size_[b] > capacity_ || offset > capacity_ - size_[b]) {
                continue;
            }
            candidates.push_back({offset, rank_[b], b});
        }
        std::ranges::sort(candidates, {}, [](const Candidate& c) { return std::pair(c.offset, c.rank); });
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            const Candidate candidate = candidates[c];
            const std::size_t mark = trail_.size();
            const bool meets_unplaced = place(candidate.block, candidate.offset);
            if (solve(group.begin, group.end, candidate.offset, candidate.rank, depth + 1)) {
                return true;
            }
            undo_to(mark);
            if (stopped_ || (rules_.settled_blocks && !meets_unplaced)) {
                return false;
            }
        }
        return false;
    }

    const Instance& instance_;
    std::uint64_t capacity_;
    Preorder order_;
    Budget budget_;
    Rules rules_;
    std::vector<std::uint64_t> rank_;        // per block, within the group it is placed in
    std::vector<Ranked> ranked_;             // rank_blocks' working list
    std::vector<std::uint64_t> size_, alignment_;
    std::vector<std::uint64_t> offset_;      // kUnplaced until placed
    std::vector<std::uint64_t> min_offset_;  // the aligned top of the placed blocks each lives with
    std::vector<std::uint64_t> floor_;       // per section: the top of its placed blocks
    std::vector<std::uint64_t> left_;        // per section: the bytes of its unplaced blocks
    std::vector<std::uint32_t> by_first_;    // blocks by first section
    std::vector<std::uint64_t> touched_at_;  // per section: the last placement that touched it
    std::vector<std::uint32_t> touched_;     // the sections the last placement touched
    std::uint64_t epoch_ = 0;
    std::vector<Change> trail_;              // every change, undone in reverse on the way back
    std::vector<std::vector<Candidate>> candidates_;  // per depth of the search, reused
    std::vector<std::vector<Group>> groups_;
    std::uint64_t nodes_ = 0;
    bool stopped_ = false;
    bool cancelled_ = false;
};

} // namespace

FitResult search_fit(const Instance& instance, std::uint64_t capacity, Preorder order, const Budget& budget, const Rules& rules) {
    return FitSearch(instance, capacity, order, budget, rules).run();
}

} // namespace gallocsim::exact
