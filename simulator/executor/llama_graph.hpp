#pragma once
// A llama-style forward pass built with GraphBuilder, small enough to execute: token
// embedding GET_ROWS, then per layer RMS_NORM and norm weight, q/k/v MUL_MAT, RESHAPE,
// ROPE, PERMUTE, kq MUL_MAT, SOFT_MAX with a mask and 1/sqrt(head size), kqv MUL_MAT,
// PERMUTE, CONT, output MUL_MAT, residual ADD, FFN gate/up MUL_MAT, SILU, MUL, down
// MUL_MAT, residual ADD; final norm and output MUL_MAT. Weights are leafs without data,
// so the allocator places them too; the logits are the graph's output.

#include "reference/tensor.hpp"

#include <cstdint>

namespace gallocsim {

struct LlamaShape {
    std::int64_t n_embd = 64;
    std::int64_t n_head = 4;
    std::int64_t n_ff = 160;
    std::int64_t n_layer = 1;
    std::int64_t n_tokens = 4;
    std::int64_t n_vocab = 128;
    DataType weight_type = DataType::f32;  // the matrices; norms stay f32
};

// Move-only: the graph points into the context.
struct LlamaGraph {
    Context context;
    Graph graph;
    Tensor* logits = nullptr;
};

LlamaGraph build_llama_graph(const LlamaShape& shape);

} // namespace gallocsim
