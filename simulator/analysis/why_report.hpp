#pragma once
// The answer to "why is this buffer this big", as data: `why` prints it as text and JSON, the GUI's
// Peak panel as HTML, and neither works any of it out again. Per buffer: where its high-water mark
// was set and what was live then (the trace's BufferPeak), its buffer type's bound and best
// offline planner (the comparison's arena), what each of the largest live tensors costs on its
// own (ggml's plan made again with that tensor outside the buffer), and each hole below the mark
// told by its bytes: whose memory they last were, the free that gave them back, the request that
// went past the hole to the tail, and what each tensor that made it costs. The sentences are
// here too; front ends only lay them out.

#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/what_if.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/scheduler_splits.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

// How many of the largest tensors live at a high-water mark get their own what-if plan: each
// costs one plan of the graph, and past the few largest the answer is nearly always "nothing".
inline constexpr std::size_t kCostedTensors = 5;

// How many of a hole's tensors get a what-if plan: a hole is nearly always one or two blocks.
inline constexpr std::size_t kCostedHoleMakers = 3;

// A tensor whose memory makes up part of a hole (the last holder of some of its bytes).
struct HoleMaker {
    TensorId tensor = kNoTensor;
    std::size_t bytes = 0;  // of the hole's
    // The buffer's size with the tensor outside it; none when not asked (past kCostedHoleMakers
    // or kCostedTensors holes) or when that plan failed (`costed` tells which).
    std::optional<std::size_t> size_without;
    bool costed = false;
};

struct HoleAnswer {
    const PeakHole* hole = nullptr;
    std::vector<HoleMaker> makers;  // the most bytes first
};

// Live bytes at a high-water mark grouped one way (by op, by layer), as llama.cpp's memory
// print and PyTorch's memory_viz split a peak.
struct LiveGroup {
    std::string name;  // "MUL_MAT", "leaf"; "layer 3", "no layer"
    std::size_t bytes = 0;
    std::size_t tensors = 0;
};

struct BufferAnswer {
    const BufferPeak* peak = nullptr;
    const BufferTypeSpec* type = nullptr;
    const ArenaComparison* arena = nullptr;  // its buffer type's bound and planners (none: no tensor there)
    // Per live tensor (peak->live's order, the largest first, at most kCostedTensors): the
    // buffer's size if that tensor lived outside it (buffer_sizes_without); none when that plan failed.
    std::vector<std::optional<std::size_t>> size_without;
    std::vector<HoleAnswer> holes;  // peak->holes' order; the kCostedTensors largest have what-ifs
    std::vector<LiveGroup> live_by_op;     // the most bytes first
    std::vector<LiveGroup> live_by_layer;  // layers in order, then "no layer"; empty when no name carries one

    // In-place-aware, over the whole buffer type.
    std::size_t lower_bound() const { return arena != nullptr ? arena->lower_bound.bytes : 0; }
    // The best other planner on the same merged blocks.
    std::size_t best_alternative() const { return arena != nullptr ? arena->best_alternative().outcome.plan.size : 0; }
    std::string best_planner() const { return arena != nullptr ? std::string(arena->best_alternative().planner->title) : ""; }
    // The bound and the best plan of the same blocks, in words, as every front end gives them:
    // "in-place-aware lower bound (CPU): 292.01 MiB (306192384 bytes); best plan of the same
    // blocks, exact search: 292.01 MiB (306192384 bytes), optimal (proven: it meets the peak of
    // live bytes)". Empty when no tensor is there.
    std::string bound_text() const;
    // What live tensor `i` (peak->live's order) costs, in words, or empty when it was not asked.
    std::string without_text(std::size_t i) const;
};

// The layer a tensor's name gives, as llama.cpp names them ("attn_norm-3", "Qcur-3#2",
// "cache_k_l3 (view)" has none: the number must follow a '-' at the end of the name proper).
std::optional<int> layer_of_name(std::string_view name);
// "MUL_MAT 256.00 MiB (1 tensor), leaf 20.01 MiB (6 tensors), ..."
std::string live_groups_text(const std::vector<LiveGroup>& groups);
// The line about the split by layer: the groups, or why there are none.
std::string live_by_layer_text(const BufferAnswer& answer);

// The words for hole `i` of an answer, each a line (the front ends indent and lay them out):
//   "chunk 0 [29370368, 46147584): 16.00 MiB (16777216 bytes)"
std::string hole_title(const PeakHole& hole);
//   "[29370368, 37758976) 8.00 MiB: attn_norm-0's memory, given back at event 2395 (node step 21)"
std::string hole_bytes_text(const Trace& trace, const HoleBytes& run);
//   "it stayed a hole: the next request that grew the buffer, kq-0 (256.00 MiB, event 2445), is larger"
std::string hole_stays_text(const Trace& trace, const PeakHole& hole);
//   "without attn_norm-0: 300.01 MiB (saves 8.00 MiB)", one per costed maker
std::vector<std::string> hole_what_if_texts(const Trace& trace, const BufferAnswer& answer, std::size_t i);

// An answer in words, every sentence of it, as each front end lays it out: `why` as indented
// lines, the GUI's Peak panel as headings, paragraphs, a table and lists (starting each
// sentence with a capital). Nothing here is worded by a front end again.
struct LiveTensorWords {
    TensorId tensor = kNoTensor;
    std::string op;       // "MUL_MAT", "leaf"
    std::string split;    // "split #2" where ggml's scheduler cut the graph, else empty
    std::size_t bytes = 0;
    std::string kept_by;  // lifetime_end_text: what keeps it alive
    std::string without;  // without_text: what it costs, or empty when not asked
};

struct HoleWords {
    std::string title;               // hole_title
    std::vector<std::string> lines;  // its bytes, why it stayed a hole, the what-ifs
};

struct BufferWords {
    std::string title;        // "buffer 0 (CPU, alignment 32): 1024 bytes (1.00 KiB)", its chunks when several
    std::string empty;        // "no tensor in it ever took a byte", and then nothing below is set
    std::string high_water;   // "its high-water mark was set at event 9 of 20 (node-allocated), node step 3 of 5 (mul running)"
    std::string live;         // "live then: 3 tensors, 96 bytes"
    std::vector<LiveTensorWords> live_tensors;  // peak->live's order
    std::string live_by_op;     // "live then by op: ..."
    std::string live_by_layer;  // "live then by layer: ..."
    std::string holes;          // "holes below the high-water mark then: 1 hole, 32 bytes"
    std::vector<HoleWords> hole_list;
    std::string bound;     // bound_text(), empty when no tensor is there
    std::string bound_at;  // "the bound is reached at node step 3 (...)", with `bound`
    std::string verdict;   // what the allocator's choices cost over the bound, or that the plan meets it; with `bound`
};

BufferWords buffer_words(const Trace& trace, const GraphLifetimes& lifetimes, const SchedulerSplits& splits,
                         const BufferAnswer& answer);

// Each buffer's answer; `trace`, `peaks` and `comparison` come from ggml's plan of `file` under
// `profile`. `file` is planned again once per costed tensor (a bare plan each: no trace; a tensor
// asked about twice is planned once), on the working copy of `plan_run` when given (that plan's
// run, its places read already: PlansWithout takes it) and else on a copy of its own.
std::vector<BufferAnswer> why_answers(const GraphFile& file, const AllocatorProfile& profile, const Trace& trace,
                                      const Comparison& comparison, const std::vector<BufferPeak>& peaks,
                                      PlanRun plan_run = {});

// The tensors whose memory makes up a hole, the most bytes first (ties: the lower address).
std::vector<HoleMaker> hole_makers(const PeakHole& hole);

} // namespace gallocsim
