#pragma once
// A plan checker that knows nothing of how the plan was made: given what must be placed
// (each tensor's bytes and the steps it is live), where the plan put it (buffer, chunk,
// offset) and what each buffer allows, it lists every rule the plan breaks.
//
// Rules: every tensor placed exactly once, and only known tensors; offsets aligned;
// offset + size (rounded up to the alignment) inside its chunk; chunk sizes equal to
// their high-water marks (optional); no chunk larger than max_size unless one tensor in
// it needs more, or it is the last chunk ggml may make (which is unbounded); and no two
// tensors live at the same step share a byte (half-open byte ranges, so partial overlaps
// count), except pairs the caller allows (an in-place child with its parent, a view with
// its root).
//
// A tensor is its index in PlanToCheck::tensors: placements and allowed pairs refer to it
// so; its name is only what the messages call it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim {

inline constexpr std::size_t kNoCheckedTensor = SIZE_MAX;

struct CheckedTensor {
    std::string name;  // for the messages
    int first = 0;  // first step live
    int last = 0;   // last step live, inclusive
    std::size_t size = 0;
    std::size_t alignment = 0;  // its offset's alignment; 0: the buffer's
};

struct CheckedPlacement {
    std::size_t tensor = 0;  // its index in PlanToCheck::tensors
    int buffer = 0;
    int chunk = 0;
    std::size_t offset = 0;
};

struct CheckedBuffer {
    std::string name;
    std::size_t alignment = 1;  // offsets, and sizes rounded up to it for the chunk checks
    std::size_t max_size = SIZE_MAX;
    std::vector<std::size_t> chunk_sizes;
    int chunk_limit = 16;  // GGML_VBUFFER_MAX_CHUNKS: ggml lets the last of these grow without bound
};

struct PlanToCheck {
    std::vector<CheckedTensor> tensors;
    std::vector<CheckedPlacement> placements;
    std::vector<CheckedBuffer> buffers;  // indexed by CheckedPlacement::buffer
    std::vector<std::pair<std::size_t, std::size_t>> may_share;  // tensors allowed to overlap, either order
    bool check_high_water = true;  // chunk sizes must equal the end of their highest tensor
};

enum class ViolationKind {
    unplaced,          // a tensor has no placement
    placed_twice,      // a tensor has more than one placement
    unknown_tensor,    // a placement for a tensor that is not in the list
    bad_address,       // no such buffer or chunk
    misaligned,        // offset not a multiple of the buffer's alignment
    outside_chunk,     // offset + aligned size past the chunk's end
    chunk_not_tight,   // chunk size differs from its high-water mark
    chunk_too_large,   // chunk above max_size with no tensor that needs it
    too_many_chunks,   // more chunks than ggml can make
    overlap,           // two tensors live at the same step share bytes
};

struct Violation {
    ViolationKind kind;
    // The tensors by index in the plan's list: kNoCheckedTensor for a chunk-level violation (and
    // `other` but for an overlap); for unknown_tensor, the index the placement gave.
    std::size_t tensor = kNoCheckedTensor;
    std::size_t other = kNoCheckedTensor;
    std::string message;
    // The same tensors as the reports show them: their names ("" where there is none).
    std::string tensor_name;
    std::string other_name;
};

std::vector<Violation> check_plan(const PlanToCheck& plan);

std::string violation_kind_name(ViolationKind kind);

} // namespace gallocsim
