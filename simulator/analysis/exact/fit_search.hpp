#pragma once
// "Do these blocks fit in C bytes?", answered exactly: a plan, a proof that none exists, or
// "stopped" when the budget ran out first. The rules are those of MiniMalloc (Moffitt, ASPLOS
// 2023), written here from the paper's ideas:
//
// - canonical plans: push every block down as far as it goes and the plan gets no higher, so
//   some best plan has every block resting on a block it lives with (or at 0). Taken in order
//   of offset, each such block's offset is the aligned top of the blocks before it that it
//   lives with, so the search only chooses the order; offsets never decrease along it, and
//   equal offsets go in a fixed rank order, so each plan is met once;
// - dominance: a block placed at or above where another unplaced block would end if placed
//   now leaves a gap below that block, so the plan is not canonical: cut;
// - sections: the unplaced blocks of a section all sit above its placed blocks, above the
//   current offset and above the lowest offset any of them can still take, stacked; if they
//   cannot fit below C, cut;
// - splitting: once no unplaced block spans a step between two groups of unplaced blocks, the
//   groups no longer meet, and each is solved on its own, once (a sum of searches, not a
//   product);
// - a block that lives with no unplaced block ends up where it is whatever comes next: if
//   nothing fits after it, nothing fits after its siblings either.

#include "simulator/analysis/analysis.hpp"
#include "simulator/analysis/exact/sections.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <vector>

namespace gallocsim::exact {

// The blocks a search places: those with bytes, with their sweep and neighbours, made once
// for every capacity tried.
struct Instance {
    std::vector<LiveBlock> blocks;
    std::vector<std::size_t> index_in_problem;  // per block, its index in the problem given
    Sections sections;
    Neighbours neighbours;
};

Instance make_instance(const ArenaProblem& problem);

// The order in which blocks of equal offset are tried: the key's letters, most significant
// first, each larger first. C: the bytes of the fullest section the block is in (contention);
// W: its lifetime's length; A: its bytes times that length (area). Different keys fail on
// different instances, so the planner alternates them.
enum class Preorder { width_area_contention, contention_area_width, contention_width_area };

// Each rule can be switched off for tests that check it changes no answer.
struct Rules {
    bool dominance = true;
    bool sections = true;
    bool split = true;
    bool settled_blocks = true;  // the last rule above
    bool lowest_unplaced = true; // a section's floor is at least its unplaced blocks' lowest min_offset
};

struct Budget {
    std::uint64_t node_limit = 0;  // 0: none
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    std::stop_token stop{};
    std::function<void(std::uint64_t nodes)> every_1024_nodes{};  // progress reports, from the searching thread
};

enum class Answer { fits, cannot_fit, stopped };

struct FitResult {
    Answer answer = Answer::stopped;
    std::vector<std::uint64_t> offsets;  // per block of the instance, when it fits
    std::uint64_t height = 0;            // the highest block end, when it fits
    std::uint64_t nodes = 0;
    bool cancelled = false;  // stopped by the stop token rather than by the budget
};

FitResult search_fit(const Instance& instance, std::uint64_t capacity, Preorder order, const Budget& budget,
                     const Rules& rules = {});

} // namespace gallocsim::exact
