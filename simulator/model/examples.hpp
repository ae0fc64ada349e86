#pragma once
// Built-in example graphs, usable without a file. They are built with GraphBuilder, the
// way ggml code builds graphs, so node and leaf order are what ggml_build_forward_expand
// gives. Weights are external (`data: true`): the allocator plans activations only.

#include "simulator/model/graph_file.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <variant>
#include <vector>

namespace gallocsim {

struct ExampleInfo {
    std::string name;
    std::string description;
    std::vector<std::string> options;  // the parameters it takes (example_parameters() names), in the order listed
    // The value each of `options` takes when it is not given, in the same order, as the command
    // line writes it ("160", "f32", "cpu"; "off" for a switch), read from the example's
    // parameter struct (MlpParams, LlamaParams, Gpt2Params below), where the defaults are set.
    std::vector<std::string> defaults;
};

std::vector<ExampleInfo> list_examples();

// Which buffers a model example plans for.
enum class BufferSetup {
    cpu,    // one CPU buffer type, alignment 32
    cuda,   // one CUDA-like type: alignment 128, ggml-cuda's alloc size rule
    split,  // CUDA0 and CPU: inputs, the embedding tables and their lookups on the CPU (id 1), the rest on CUDA0
};

// Parameters from the command line or the GUI's example dialog; what is not given takes the
// example's default. Each field is reached through its entry of example_parameters().
struct ExampleOptions {
    std::optional<std::int64_t> layers;
    std::optional<std::int64_t> embd;     // model width
    std::optional<std::int64_t> heads;
    std::optional<std::int64_t> ff;       // feed-forward (hidden) width
    std::optional<std::int64_t> tokens;   // tokens (rows) in the batch
    std::optional<std::int64_t> vocab;
    std::optional<std::int64_t> outputs;  // llama: tokens whose logits are computed (llama.cpp's n_outputs)
    std::optional<DataType> weights;      // type of the weight matrices
    std::optional<BufferSetup> buffers;
    bool inplace = false;  // llama: rope, scale, soft_max, silu and the gate product in place (views)
    bool mask = false;     // llama: a kq_mask input given to soft_max
    bool clamp = false;    // llama: Q, K and V clamped after their projections (olmo's clamp_kqv)
};

// One parameter an example may take, the one description of it: the command line declares its
// flags from the table (example_parameters()), the GUI's example dialog builds its rows from it,
// `gallocsim examples` lists the parameters and their defaults through it (ExampleInfo), and each
// example reads its values through it, so none of them keeps a list of parameters of its own.
struct ExampleParameter {
    // How a value is written: a count ("160"), a ggml type name ("q4_0"), a buffer setup ("split"),
    // or a switch (on when given). The kinds are the alternatives of `Field`, in the same order.
    enum class Kind { count, type, buffers, toggle };
    using Field = std::variant<std::optional<std::int64_t> ExampleOptions::*, std::optional<DataType> ExampleOptions::*,
                               std::optional<BufferSetup> ExampleOptions::*, bool ExampleOptions::*>;

    std::string_view name;   // as the flag spells it after "--", and as the model's errors name it
    std::string_view help;   // the command line's help for the flag
    std::string_view label;  // the example dialog's row
    Field field;             // where ExampleOptions holds the value
    std::string_view values = {};      // a type's or setup's names, as an error about an unknown one lists them
    std::string_view zero_means = {};  // what a count of 0 stands for ("every token"), said after a default of 0

    constexpr Kind kind() const { return static_cast<Kind>(field.index()); }
};

// Every parameter, in the order the command line's help lists them.
std::span<const ExampleParameter> example_parameters();
const ExampleParameter* find_example_parameter(std::string_view name);
// Whether `options` gives the parameter (a switch: whether it is on).
bool is_given(const ExampleParameter& parameter, const ExampleOptions& options);
// Sets a type or a buffer setup from its name; false (and `options` untouched) for a name it does
// not know or a parameter of another kind.
bool set_named_value(const ExampleParameter& parameter, std::string_view name, ExampleOptions& options);

// llama.cpp's graph for a llama model, as the golden llama-*.json files have it:
// get_rows of the token embeddings; per layer rms_norm, mul by the norm weight, q/k/v
// mul_mat, reshape, rope, permute, kq mul_mat, scale, soft_max, kqv mul_mat, permute,
// cont, output projection, residual add, rms_norm, gated FFN (silu(gate) * up, down) and
// residual add; final norm and the output projection (flagged output). With fewer
// outputs than tokens, the last layer keeps only those rows (get_rows by inp_out_ids).
struct LlamaParams {
    std::int64_t layers = 1;
    std::int64_t embd = 64;
    std::int64_t heads = 4;
    std::int64_t ff = 160;
    std::int64_t tokens = 1;
    std::int64_t vocab = 256;
    std::int64_t outputs = 0;  // 0: every token
    DataType weights = DataType::f32;
    bool inplace = false;
    bool mask = false;
    bool clamp = false;
    BufferSetup buffers = BufferSetup::cpu;
};

// A GPT-2 style model: token and position embeddings; per block layer norm with gain and
// bias, a fused qkv projection whose q, k and v are strided views, causal mask
// (diag_mask_inf), soft_max, projection, residual, layer norm, MLP with gelu, residual.
struct Gpt2Params {
    std::int64_t layers = 1;
    std::int64_t embd = 64;
    std::int64_t heads = 4;
    std::int64_t ff = 256;
    std::int64_t tokens = 8;
    std::int64_t vocab = 256;
    DataType weights = DataType::f32;
    BufferSetup buffers = BufferSetup::cpu;
};

// A plain multi-layer perceptron: input rows of width embd, `layers` linear layers
// (embd -> ff -> ... -> ff -> embd) with bias and relu between them, soft_max at the end.
struct MlpParams {
    std::int64_t layers = 3;
    std::int64_t embd = 64;
    std::int64_t ff = 256;
    std::int64_t tokens = 8;
    DataType weights = DataType::f32;
    BufferSetup buffers = BufferSetup::cpu;
};

// The seed walkthrough's graph: inputs a and b (one f32 each), mul = a*b as output, in a
// 32-aligned CPU buffer.
GraphFile seed_example();
// The second graph of the sched-issue walkthrough: inputs c, a2, b2, ab = a2*b2,
// result = c*ab (not an output); the same tensors and plan as golden/seed-sched-issue.json.
GraphFile sched_issue_example();
GraphFile llama_example(const LlamaParams& params);
// The benchmarks' llama-style graph of about `nodes` nodes: whole layers of width 256, 8 heads,
// feed-forward 688 and 32 tokens, as many as come closest.
GraphFile llama_example_with_nodes(std::int64_t nodes);
GraphFile gpt2_example(const Gpt2Params& params);
GraphFile mlp_example(const MlpParams& params);

// The shapes of a real model, for an example of its family: `--preset llama-3.1-8b` asks about
// that model by name. Layers, width, heads, feed-forward width and vocabulary as the model's
// paper or config gives them; what the example does not model (grouped-query attention, a
// sliding window) is said in `note`.
struct ModelPreset {
    std::string_view name;
    std::string_view example;  // the example it shapes: llama or gpt2
    std::int64_t layers, embd, heads, ff, vocab;
    std::string_view note;
};
std::span<const ModelPreset> model_presets();
const ModelPreset* find_model_preset(std::string_view name);
std::string model_preset_names();  // "tinyllama-1.1b, llama-2-7b, …": for help and errors
// The options with the preset's shapes wherever they give none (an explicit flag wins).
ExampleOptions with_preset(ExampleOptions options, const ModelPreset& preset);

// Throws GraphFileError for an unknown name, an option the example does not take, or
// parameters ggml would reject (heads not dividing the width, rows not whole blocks of a
// quantized weight type...).
GraphFile make_example(const std::string& name, const ExampleOptions& options = {});

std::optional<BufferSetup> parse_buffer_setup(std::string_view name);

} // namespace gallocsim
