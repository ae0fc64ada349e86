#pragma once
// A recipe is a compact, byte-sized description of a ggml-like graph: buffer types and
// buffer ids, then a list of steps ("add a leaf", "RMS_NORM of the newest value", "view
// rows 2..4 of it", "write it into a KV cache"...). Building a recipe always succeeds
// and always gives a graph the graph-file validator accepts, whatever the bytes, so the
// same recipe drives rapidcheck (whose shrinking makes recipes small) and libFuzzer
// (which mutates raw bytes). Every field's 0 is its simplest choice.

#include "simulator/model/graph_file.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace gallocsim::fuzz {

// What a step adds. Listed from simplest to most involved: shrinking moves towards leaf.
enum class StepKind : std::uint8_t {
    leaf,           // a new op NONE tensor: constant, input, weight (maybe external), or param
    unary,          // SQR, SQRT, LOG, UNARY, SCALE, RMS_NORM, SOFT_MAX, ROPE, FILL
    binary,         // ADD, MUL, SUB, DIV with a same-shaped or broadcast operand
    inplace,        // ggml_*_inplace: the result is a view of its first operand
    view,           // VIEW of rows, columns, every other row, or a byte slice
    reshape,        // RESHAPE (after a CONT when the operand is not contiguous)
    permute,        // PERMUTE or TRANSPOSE
    cont,           // CONT
    mul_mat,        // MUL_MAT with a weight, or of two activations
    get_rows,       // GET_ROWS from an embedding table
    cpy_into_view,  // CPY into a view of a cache (ggml_cpy), or SET_ROWS into it
    cast,           // ggml_cast: a CPY that is its own destination
    reduce,         // SUM_ROWS, MEAN
    concat,         // CONCAT along dimension 0 or 1
};
inline constexpr int kStepKinds = 14;

struct Step {
    StepKind kind = StepKind::leaf;
    std::uint8_t operand = 0;  // earlier value, counted back from the newest
    std::uint8_t other = 0;    // a second operand (counted back likewise) or a second choice
    std::uint8_t variant = 0;  // which op, view, type... (depends on kind)
    std::array<std::uint8_t, 3> shape{};  // indices into the dimension tables, for new tensors
    std::uint8_t buffer = 0;   // buffer id of what this step adds, modulo the number of ids
    bool output = false;       // ggml_set_output on the result
    bool external = false;     // weights and caches: memory from outside (data: true)
    bool input = false;        // ggml_set_input on an op result (legal, unusual)
    bool empty = false;        // leafs: a zero-element tensor (ne[1] = 0)
    bool operator==(const Step&) const = default;
};

struct BufferTypeRecipe {
    std::uint8_t alignment = 0;  // 4 << (alignment % 6): 4 to 128 bytes
    std::uint8_t max_size = 0;   // index into kMaxSizes; 0: unbounded
    bool cuda = false;           // the `cuda` alloc-size rule instead of nbytes
    bool operator==(const BufferTypeRecipe&) const = default;
};

// Small maximum sizes, so that planning needs many chunks (up to the 16-chunk limit).
inline constexpr std::array<std::size_t, 8> kMaxSizes{0, 4096, 1024, 333, 256, 100, 64, 16};

struct Recipe {
    std::vector<BufferTypeRecipe> types;  // at least one is used even when empty
    std::vector<std::uint8_t> buffers;    // buffer id -> type (modulo); empty: one id per type
    std::vector<Step> steps;
    bool operator==(const Recipe&) const = default;
};

// The graph a recipe describes, as a graph file (so it can be saved and replayed).
GraphFile build_graph(const Recipe& recipe);

// Reads a recipe from raw bytes (libFuzzer): a header for the buffers, then steps.
Recipe decode_recipe(std::span<const std::uint8_t> bytes);

// One line per buffer type and step, for counterexamples.
void describe(const Recipe& recipe, std::ostream& out);

// One line per tensor ("t5 = ADD(t3, x1)  f32 [4, 3]  buffer 1  output").
void describe_graph(const GraphFile& file, std::ostream& out);

std::string_view step_kind_name(StepKind kind);

} // namespace gallocsim::fuzz
