#pragma once
// The in-place-aware lower bound. The plain bound (analysis.hpp) lays out logical tensors,
// so ggml, which hands a parent's memory to its last consumer, can plan below it. Here
// ggml's own in-place decisions are taken as given: a chain of tensors that share memory
// (each took over its parent's bytes in place) is one block, live from the chain's first
// allocation to its last release. No plan that makes those decisions can need less than
// the peak of live aligned bytes over these blocks, and ggml's plan is never below it.

#include "simulator/analysis/analysis.hpp"

#include <span>
#include <string>
#include <vector>

namespace gallocsim {

// A node that took over its parent's memory in place, and that parent.
struct InPlacePair {
    TensorId node = kNoTensor;
    TensorId parent = kNoTensor;
    bool operator==(const InPlacePair&) const = default;
};
using InPlacePairs = std::span<const InPlacePair>;

// One problem per buffer type, as arena_problems, with each in-place chain merged into one
// block named "first+second+..." (its members in allocation order). A chain is as large as
// its smallest member (in-place reuse needs equal layouts, so normally all are equal; the
// smallest keeps the bound a bound when free_extra_space gave bytes back). Every member of a
// chain sits where its first member does: that member is the block's `tensor`.
std::vector<ArenaProblem> in_place_arena_problems(const GraphFile& file, const GraphLifetimes& lifetimes,
                                                  InPlacePairs in_place);

} // namespace gallocsim
