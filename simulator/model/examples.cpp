#include "simulator/model/examples.hpp"

#include "reference/builder.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <sstream>
#include <type_traits>
#include <variant>

namespace gallocsim {

namespace {

[[noreturn]] void reject(const std::string& example, const std::string& problem) {
    throw GraphFileError("example \"" + example + "\": " + problem);
}

void check_range(const std::string& example, const char* parameter, std::int64_t value, std::int64_t low, std::int64_t high) {
    if (value < low || value > high) {
        reject(example, std::string(parameter) + " must be between " + std::to_string(low) + " and " + std::to_string(high) +
                            ", got " + std::to_string(value));
    }
}

// ggml stores a quantized row as whole blocks, so a weight's row length must be a multiple of the block.
void check_rows(const std::string& example, const char* parameter, std::int64_t value, DataType type) {
    if (value % block_size(type) != 0) {
        reject(example, std::string(parameter) + " " + std::to_string(value) + " is not a multiple of " +
                            std::string(type_name(type)) + "'s block size " + std::to_string(block_size(type)) +
                            " (it is the row length of a weight matrix)");
    }
}

std::string buffer_setup_name(BufferSetup setup) {
    switch (setup) {
    case BufferSetup::cpu: return "cpu";
    case BufferSetup::cuda: return "cuda";
    case BufferSetup::split: return "split";
    }
    return "cpu";
}

// A graph file under construction: buffer types for the setup, a builder on its context,
// and helpers for the two kinds of leaf a model has.
class ModelFile {
public:
    ModelFile(std::string name, std::string description, BufferSetup setup) : setup_(setup) {
        file_.name = std::move(name);
        file_.description = std::move(description);
        switch (setup) {
        case BufferSetup::cpu:
            file_.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
            break;
        case BufferSetup::cuda:
            file_.buffer_types.push_back({"CUDA0", 128, std::nullopt, AllocSizeRule::cuda});
            break;
        case BufferSetup::split:
            file_.buffer_types.push_back({"CUDA0", 128, std::nullopt, AllocSizeRule::cuda});
            file_.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
            break;
        }
        for (std::size_t i = 0; i < file_.buffer_types.size(); ++i) {
            file_.buffers.push_back(static_cast<int>(i));
        }
    }

    GraphBuilder& build() { return builder_; }

    // Weights live in a buffer of their own, outside the allocator.
    Tensor& weight(std::string name, DataType type, const Shape& ne) {
        Tensor& t = builder_.new_tensor(type, ne, std::move(name));
        file_.mark_external(t);
        return t;
    }

    Tensor& input(std::string name, DataType type, const Shape& ne) {
        Tensor& t = builder_.new_tensor(type, ne, std::move(name));
        set_input(t);
        return t;
    }

    // Expands the graph from its result; the result is flagged output unless told otherwise.
    GraphFile finish(Tensor& result, bool keep_result = true) {
        if (keep_result) {
            set_output(result);
        }
        build_forward_expand(file_.graph, result);
        if (setup_ == BufferSetup::split) {
            assign_split_ids();
        }
        return std::move(file_);
    }

private:
    // Embedding lookups read a table on the host, so they and every input run on the CPU
    // (buffer id 1), as llama.cpp's scheduler puts them; everything else on CUDA0 (id 0).
    bool is_embedding_lookup(const Tensor& t) const {
        return t.op == Op::GET_ROWS && t.src[0] != nullptr && file_.is_external(*t.src[0]);
    }

    void assign_split_ids() {
        const auto& nodes = file_.graph.nodes;
        for (const Tensor* leaf : file_.graph.leafs) {
            const bool table = std::ranges::any_of(nodes, [&](const Tensor* n) { return is_embedding_lookup(*n) && n->src[0] == leaf; });
            file_.leaf_buffer_ids.push_back(leaf->has_flag(TensorFlag::input) || table ? 1 : 0);
        }
        for (const Tensor* node : nodes) {
            file_.node_buffer_ids.push_back(is_embedding_lookup(*node) ? 1 : 0);
        }
    }

    GraphFile file_;
    GraphBuilder builder_{file_.context};
    BufferSetup setup_;
};

Tensor& named(Tensor& t, std::string name) {
    t.name = std::move(name);
    return t;
}

Shape shape(std::int64_t ne0, std::int64_t ne1 = 1, std::int64_t ne2 = 1, std::int64_t ne3 = 1) {
    return {ne0, ne1, ne2, ne3};
}

std::string layer_name(const char* what, std::int64_t layer) {
    return std::string(what) + "-" + std::to_string(layer);
}

std::string weight_name(std::int64_t layer, const char* what) {
    return "blk." + std::to_string(layer) + "." + what + ".weight";
}

} // namespace

std::optional<BufferSetup> parse_buffer_setup(std::string_view name) {
    for (BufferSetup setup : {BufferSetup::cpu, BufferSetup::cuda, BufferSetup::split}) {
        if (buffer_setup_name(setup) == name) {
            return setup;
        }
    }
    return std::nullopt;
}

namespace {

// The one list of example parameters (ExampleParameter); the help and labels are the words the
// command line and the dialog show.
constexpr ExampleParameter kParameters[] = {
    {.name = "layers", .help = "transformer blocks / linear layers", .label = "layers", .field = &ExampleOptions::layers},
    {.name = "embd", .help = "model width", .label = "model width (embd)", .field = &ExampleOptions::embd},
    {.name = "heads", .help = "attention heads", .label = "attention heads", .field = &ExampleOptions::heads},
    {.name = "ff", .help = "feed-forward (hidden) width", .label = "feed-forward width", .field = &ExampleOptions::ff},
    {.name = "tokens", .help = "tokens in the batch", .label = "tokens in the batch", .field = &ExampleOptions::tokens},
    {.name = "vocab", .help = "vocabulary size", .label = "vocabulary", .field = &ExampleOptions::vocab},
    {.name = "outputs",
     .help = "llama: tokens whose logits are computed",
     .label = "tokens with logits",
     .field = &ExampleOptions::outputs,
     .zero_means = "every token"},
    {.name = "weights",
     .help = "weight type (f32, f16, q4_0, q8_0, q4_k, ...)",
     .label = "weight type",
     .field = &ExampleOptions::weights,
     .values = "f32, f16, q4_0, q8_0, q4_k, ..."},
    {.name = "buffers",
     .help = "cpu, cuda or split (CUDA0 + CPU)",
     .label = "buffers",
     .field = &ExampleOptions::buffers,
     .values = "cpu, cuda or split"},
    {.name = "inplace",
     .help = "llama: in-place rope, scale, soft_max, silu, gate product",
     .label = "in-place ops (views)",
     .field = &ExampleOptions::inplace},
    {.name = "mask", .help = "llama: a kq_mask input for soft_max", .label = "attention mask input", .field = &ExampleOptions::mask},
    {.name = "clamp",
     .help = "llama: Q, K and V clamped after their projections (olmo's clamp_kqv)",
     .label = "clamped Q, K, V (olmo's clamp_kqv)",
     .field = &ExampleOptions::clamp},
};

} // namespace

std::span<const ExampleParameter> example_parameters() {
    return kParameters;
}

const ExampleParameter* find_example_parameter(std::string_view name) {
    const auto found = std::ranges::find(kParameters, name, &ExampleParameter::name);
    return found == std::end(kParameters) ? nullptr : &*found;
}

bool is_given(const ExampleParameter& parameter, const ExampleOptions& options) {
    // An optional's bool is whether it holds a value; a switch's is whether it is on.
    return std::visit([&](auto field) { return static_cast<bool>(options.*field); }, parameter.field);
}

bool set_named_value(const ExampleParameter& parameter, std::string_view name, ExampleOptions& options) {
    if (const auto* type = std::get_if<std::optional<DataType> ExampleOptions::*>(&parameter.field)) {
        const std::optional<DataType> parsed = parse_type(name);
        if (parsed) {
            options.**type = parsed;
        }
        return parsed.has_value();
    }
    if (const auto* setup = std::get_if<std::optional<BufferSetup> ExampleOptions::*>(&parameter.field)) {
        const std::optional<BufferSetup> parsed = parse_buffer_setup(name);
        if (parsed) {
            options.**setup = parsed;
        }
        return parsed.has_value();
    }
    return false;
}

// Written out by hand, as the spec's example is: no compute flag on mul.
GraphFile seed_example() {
    GraphFile file;
    file.name = "seed-mul";
    file.description = "two 1x1 f32 inputs, mul = a*b";
    file.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
    file.buffers = {0};
    auto make_input = [&](const char* name) -> Tensor& {
        Tensor t;
        t.name = name;
        t.ne = {1, 1, 1, 1};
        t.nb = contiguous_strides(t.type, t.ne);
        t.flags.set(TensorFlag::input);
        return file.context.add(std::move(t));
    };
    Tensor& a = make_input("a");
    Tensor& b = make_input("b");
    Tensor mul;
    mul.name = "mul";
    mul.ne = a.ne;
    mul.nb = a.nb;
    mul.op = Op::MUL;
    mul.src[0] = &a;
    mul.src[1] = &b;
    mul.flags.set(TensorFlag::output);
    Tensor& result = file.context.add(std::move(mul));
    file.graph.leafs = {&a, &b};
    file.graph.nodes = {&result};
    return file;
}

GraphFile sched_issue_example() {
    ModelFile model("seed-sched-issue",
                    "second graph of the sched-issue example on its own: inputs a2, b2, c (1 f32 each), ab = a2*b2, "
                    "result = c*ab (result not flagged output); leafs come out as c, a2, b2",
                    BufferSetup::cpu);
    GraphBuilder& b = model.build();
    Tensor& a2 = model.input("a2", DataType::f32, shape(1));
    Tensor& b2 = model.input("b2", DataType::f32, shape(1));
    Tensor& c = model.input("c", DataType::f32, shape(1));
    Tensor& ab = named(b.mul(a2, b2), "ab");
    // As in the walkthrough, the result is not flagged output.
    return model.finish(named(b.mul(c, ab), "result"), /*keep_result=*/false);
}

namespace {

// What the transformers (llama, gpt2) check, in this order: each size in its range (layers up
// to `max_layers`; llama's outputs up to its tokens), heads dividing embd, and the weights'
// rows in whole quantization blocks.
template <typename Params>
void check_transformer(const std::string& example, std::int64_t max_layers, const Params& p) {
    check_range(example, "layers", p.layers, 1, max_layers);
    check_range(example, "embd", p.embd, 1, 1 << 20);
    check_range(example, "heads", p.heads, 1, 4096);
    check_range(example, "ff", p.ff, 1, 1 << 20);
    check_range(example, "tokens", p.tokens, 1, 1 << 16);
    check_range(example, "vocab", p.vocab, 1, 1 << 20);
    if constexpr (requires { p.outputs; }) {
        check_range(example, "outputs", p.outputs, 0, p.tokens);
    }
    if (p.embd % p.heads != 0) {
        reject(example, "heads (" + std::to_string(p.heads) + ") does not divide embd (" + std::to_string(p.embd) + ")");
    }
    check_rows(example, "embd", p.embd, p.weights);
    check_rows(example, "ff", p.ff, p.weights);
}

// A transformer's graph name: every shape parameter in it, so that a header never hides a
// default (n_vocab 256).
template <typename Params>
std::string transformer_name(const std::string& example, const Params& p) {
    return example + "-l" + std::to_string(p.layers) + "-e" + std::to_string(p.embd) + "-h" + std::to_string(p.heads) +
           "-f" + std::to_string(p.ff) + "-v" + std::to_string(p.vocab) + "-t" + std::to_string(p.tokens);
}

} // namespace

GraphFile llama_example(const LlamaParams& p) {
    const std::string example = "llama";
    // Up to ~120,000 nodes: the planner benchmark goes to 100,000.
    check_transformer(example, 4096, p);

    std::ostringstream description;
    description << "llama-style transformer: " << (p.inplace ? "inplace=True, " : "") << (p.mask ? "mask=True, " : "")
                << (p.clamp ? "clamp_kqv=8, " : "")
                << "n_embd=" << p.embd << ", n_ff=" << p.ff << ", n_head=" << p.heads << ", n_layer=" << p.layers
                << (p.outputs > 0 && p.outputs < p.tokens ? ", n_outputs=" + std::to_string(p.outputs) : "")
                << ", n_tokens=" << p.tokens << ", n_vocab=" << p.vocab << ", wtype=" << type_name(p.weights)
                << "; buffers=" << buffer_setup_name(p.buffers);
    ModelFile model(transformer_name(example, p), description.str(), p.buffers);
    GraphBuilder& b = model.build();
    const DataType f32 = DataType::f32;
    const DataType i32 = DataType::i32;
    const std::int64_t head_dim = p.embd / p.heads;
    const float kq_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    const bool select_outputs = p.outputs > 0 && p.outputs < p.tokens;

    Tensor& token_embd = model.weight("token_embd.weight", p.weights, shape(p.embd, p.vocab));
    Tensor& inp_tokens = model.input("inp_tokens", i32, shape(p.tokens));
    Tensor* inpL = &named(b.get_rows(token_embd, inp_tokens), "inp_embd");
    Tensor& inp_pos = model.input("inp_pos", i32, shape(p.tokens));
    Tensor* out_ids = select_outputs ? &model.input("inp_out_ids", i32, shape(p.outputs)) : nullptr;
    Tensor* kq_mask = p.mask ? &model.input("kq_mask", f32, shape(p.tokens, p.tokens)) : nullptr;

    for (std::int64_t il = 0; il < p.layers; ++il) {
        auto name = [&](const char* what) { return layer_name(what, il); };
        Tensor& attn_norm_w = model.weight(weight_name(il, "attn_norm"), f32, shape(p.embd));
        Tensor& wq = model.weight(weight_name(il, "attn_q"), p.weights, shape(p.embd, p.embd));
        Tensor& wk = model.weight(weight_name(il, "attn_k"), p.weights, shape(p.embd, p.embd));
        Tensor& wv = model.weight(weight_name(il, "attn_v"), p.weights, shape(p.embd, p.embd));
        Tensor& wo = model.weight(weight_name(il, "attn_output"), p.weights, shape(p.embd, p.embd));

        Tensor& norm = named(b.rms_norm(*inpL), name("norm"));
        Tensor& attn_norm = named(b.mul(norm, attn_norm_w), name("attn_norm"));
        // olmo's clamp_kqv: each projection clamped to [-8, 8], a new tensor each (llama.cpp
        // 0c1e570 builds ggml_clamp so, and lets it run in place).
        auto projection = [&](Tensor& w, const char* what) -> Tensor& {
            Tensor& projected = named(b.mul_mat(w, attn_norm), name(what));
            return p.clamp ? named(b.clamp(projected, -8.0f, 8.0f), projected.name + " (clamp)") : projected;
        };
        Tensor& q = projection(wq, "Qcur");
        Tensor& k = projection(wk, "Kcur");
        Tensor& v = projection(wv, "Vcur");
        const Shape heads_shape = shape(head_dim, p.heads, p.tokens);
        Tensor& q_heads = b.reshape(q, heads_shape);
        Tensor& k_heads = b.reshape(k, heads_shape);
        Tensor& q_rope = named(p.inplace ? b.rope_inplace(q_heads, inp_pos) : b.rope(q_heads, inp_pos), q.name + " (rope)");
        Tensor& k_rope = named(p.inplace ? b.rope_inplace(k_heads, inp_pos) : b.rope(k_heads, inp_pos), k.name + " (rope)");
        Tensor& q_perm = named(b.permute(q_rope, 0, 2, 1, 3), name("q"));
        Tensor& k_perm = named(b.permute(k_rope, 0, 2, 1, 3), name("k"));
        Tensor& kq = named(b.mul_mat(k_perm, q_perm), name("kq"));
        Tensor& kq_scaled = named(p.inplace ? b.scale_inplace(kq, kq_scale) : b.scale(kq, kq_scale), name("kq_scaled"));
        Tensor& kq_soft_max = named(p.inplace ? b.soft_max_inplace(kq_scaled, kq_mask) : b.soft_max(kq_scaled, kq_mask),
                                    name("kq_soft_max"));
        Tensor& v_heads = b.reshape(v, heads_shape);
        Tensor& v_perm = named(b.permute(v_heads, 1, 2, 0, 3), name("v") + " (permuted)");
        Tensor& v_cont = named(b.cont(v_perm), name("v"));
        Tensor& kqv = named(b.mul_mat(v_cont, kq_soft_max), name("kqv"));
        Tensor& merged = named(b.permute(kqv, 0, 2, 1, 3), name("kqv_merged"));
        Tensor& merged_cont = named(b.cont(merged, shape(p.embd, p.tokens)), name("kqv_merged_cont"));
        Tensor* attn_out = &named(b.mul_mat(wo, merged_cont), name("attn_out"));
        if (select_outputs && il == p.layers - 1) {
            // Only the rows whose logits are wanted go on through the last layer.
            attn_out = &named(b.get_rows(*attn_out, *out_ids), name("attn_out_sel"));
            inpL = &named(b.get_rows(*inpL, *out_ids), name("inpL_sel"));
        }
        Tensor& ffn_inp = named(b.add(*attn_out, *inpL), name("ffn_inp"));

        Tensor& ffn_norm_w = model.weight(weight_name(il, "ffn_norm"), f32, shape(p.embd));
        Tensor& w_gate = model.weight(weight_name(il, "ffn_gate"), p.weights, shape(p.embd, p.ff));
        Tensor& w_up = model.weight(weight_name(il, "ffn_up"), p.weights, shape(p.embd, p.ff));
        Tensor& w_down = model.weight(weight_name(il, "ffn_down"), p.weights, shape(p.ff, p.embd));
        Tensor& ffn_norm_raw = named(b.rms_norm(ffn_inp), name("ffn_norm_raw"));
        Tensor& ffn_norm = named(b.mul(ffn_norm_raw, ffn_norm_w), name("ffn_norm"));
        Tensor& gate = named(b.mul_mat(w_gate, ffn_norm), name("ffn_gate"));
        Tensor& up = named(b.mul_mat(w_up, ffn_norm), name("ffn_up"));
        Tensor& silu = named(p.inplace ? b.unary_inplace(gate, UnaryOp::SILU) : b.unary(gate, UnaryOp::SILU), name("ffn_silu"));
        Tensor& gated = named(p.inplace ? b.binary_inplace(Op::MUL, silu, up) : b.mul(silu, up), name("ffn_gate_par"));
        Tensor& ffn_out = named(b.mul_mat(w_down, gated), name("ffn_out"));
        inpL = &named(b.add(ffn_out, ffn_inp), name("l_out"));
    }

    Tensor& output_norm_w = model.weight("output_norm.weight", f32, shape(p.embd));
    Tensor& output_w = model.weight("output.weight", p.weights, shape(p.embd, p.vocab));
    Tensor& result_norm_raw = named(b.rms_norm(*inpL), "result_norm_raw");
    Tensor& result_norm = named(b.mul(result_norm_raw, output_norm_w), "result_norm");
    return model.finish(named(b.mul_mat(output_w, result_norm), "result_output"));
}

GraphFile llama_example_with_nodes(std::int64_t nodes) {
    LlamaParams params;
    params.embd = 256;
    params.heads = 8;
    params.ff = 688;
    params.tokens = 32;
    auto count = [&](std::int64_t layers) {
        params.layers = layers;
        return static_cast<std::int64_t>(llama_example(params).graph.nodes.size());
    };
    const std::int64_t per_layer = count(2) - count(1);
    params.layers = std::max<std::int64_t>(1, (nodes - (count(1) - per_layer)) / per_layer);
    return llama_example(params);
}

GraphFile gpt2_example(const Gpt2Params& p) {
    const std::string example = "gpt2";
    check_transformer(example, 512, p);

    std::ostringstream description;
    description << "GPT-2 style transformer: n_embd=" << p.embd << ", n_ff=" << p.ff << ", n_head=" << p.heads
                << ", n_layer=" << p.layers << ", n_tokens=" << p.tokens << ", n_vocab=" << p.vocab
                << ", wtype=" << type_name(p.weights) << "; buffers=" << buffer_setup_name(p.buffers);
    ModelFile model(transformer_name(example, p), description.str(), p.buffers);
    GraphBuilder& b = model.build();
    const DataType f32 = DataType::f32;
    const std::int64_t head_dim = p.embd / p.heads;
    const float kq_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));

    // Token embeddings double as the output head (GPT-2 ties them).
    Tensor& wte = model.weight("wte", p.weights, shape(p.embd, p.vocab));
    Tensor& wpe = model.weight("wpe", f32, shape(p.embd, p.tokens));
    Tensor& inp_tokens = model.input("inp_tokens", DataType::i32, shape(p.tokens));
    Tensor& inp_pos = model.input("inp_pos", DataType::i32, shape(p.tokens));
    Tensor& tok_embd = named(b.get_rows(wte, inp_tokens), "tok_embd");
    Tensor& pos_embd = named(b.get_rows(wpe, inp_pos), "pos_embd");
    Tensor* inpL = &named(b.add(tok_embd, pos_embd), "inp_embd");

    // Layer norm with gain and bias, and a linear layer with bias, as the GPT-2 example
    // writes them; `suffix` is the layer's ("-0") or empty.
    auto layer_norm = [&](Tensor& x, Tensor& gain, Tensor& bias, const std::string& base, const std::string& suffix) -> Tensor& {
        Tensor& normed = named(b.norm(x), base + "_norm" + suffix);
        Tensor& scaled = named(b.mul(normed, gain), base + "_scaled" + suffix);
        return named(b.add(scaled, bias), base + suffix);
    };
    auto linear = [&](Tensor& w, Tensor& bias, Tensor& x, const std::string& base, const std::string& suffix) -> Tensor& {
        Tensor& product = named(b.mul_mat(w, x), base + suffix);
        return named(b.add(product, bias), base + "_b" + suffix);
    };

    for (std::int64_t il = 0; il < p.layers; ++il) {
        auto name = [&](const char* what) { return layer_name(what, il); };
        auto w = [&](const char* what) { return "h." + std::to_string(il) + "." + what; };
        const std::string suffix = "-" + std::to_string(il);
        Tensor& ln_1_g = model.weight(w("ln_1.g"), f32, shape(p.embd));
        Tensor& ln_1_b = model.weight(w("ln_1.b"), f32, shape(p.embd));
        Tensor& attn_w = model.weight(w("attn.c_attn.w"), p.weights, shape(p.embd, 3 * p.embd));
        Tensor& attn_b = model.weight(w("attn.c_attn.b"), f32, shape(3 * p.embd));
        Tensor& proj_w = model.weight(w("attn.c_proj.w"), p.weights, shape(p.embd, p.embd));
        Tensor& proj_b = model.weight(w("attn.c_proj.b"), f32, shape(p.embd));
        Tensor& ln_2_g = model.weight(w("ln_2.g"), f32, shape(p.embd));
        Tensor& ln_2_b = model.weight(w("ln_2.b"), f32, shape(p.embd));
        Tensor& fc_w = model.weight(w("mlp.c_fc.w"), p.weights, shape(p.embd, p.ff));
        Tensor& fc_b = model.weight(w("mlp.c_fc.b"), f32, shape(p.ff));
        Tensor& mlp_proj_w = model.weight(w("mlp.c_proj.w"), p.weights, shape(p.ff, p.embd));
        Tensor& mlp_proj_b = model.weight(w("mlp.c_proj.b"), f32, shape(p.embd));

        Tensor& ln_1 = layer_norm(*inpL, ln_1_g, ln_1_b, "ln_1", suffix);
        Tensor& qkv = linear(attn_w, attn_b, ln_1, "qkv", suffix);
        // q, k and v are column blocks of the fused projection: strided views, no copies.
        const std::size_t row = qkv.nb[1];
        const std::size_t block = static_cast<std::size_t>(p.embd) * type_size(f32);
        const std::array<std::size_t, 3> strides{static_cast<std::size_t>(head_dim) * type_size(f32), row,
                                                 row * static_cast<std::size_t>(p.tokens)};
        const Shape heads_shape = shape(head_dim, p.heads, p.tokens);
        Tensor& q = named(b.view(qkv, heads_shape, strides, 0), name("Qcur"));
        Tensor& k = named(b.view(qkv, heads_shape, strides, block), name("Kcur"));
        Tensor& v = named(b.view(qkv, heads_shape, strides, 2 * block), name("Vcur"));
        Tensor& q_perm = named(b.permute(q, 0, 2, 1, 3), name("Q"));
        Tensor& k_perm = named(b.permute(k, 0, 2, 1, 3), name("K"));
        Tensor& kq = named(b.mul_mat(k_perm, q_perm), name("KQ"));
        Tensor& kq_scaled = named(b.scale(kq, kq_scale), name("KQ_scaled"));
        Tensor& kq_masked = named(b.diag_mask_inf(kq_scaled, 0), name("KQ_masked"));
        Tensor& kq_soft_max = named(b.soft_max(kq_masked), name("KQ_soft_max"));
        Tensor& v_trans = named(b.cont(named(b.permute(v, 1, 2, 0, 3), name("V_perm"))), name("V_trans"));
        Tensor& kqv = named(b.mul_mat(v_trans, kq_soft_max), name("KQV"));
        Tensor& merged = named(b.permute(kqv, 0, 2, 1, 3), name("KQV_merged"));
        Tensor& attn = named(b.cont(merged, shape(p.embd, p.tokens)), name("attn"));
        Tensor& attn_proj = linear(proj_w, proj_b, attn, "attn_proj", suffix);
        Tensor& ffn_inp = named(b.add(attn_proj, *inpL), name("ffn_inp"));

        Tensor& ln_2 = layer_norm(ffn_inp, ln_2_g, ln_2_b, "ln_2", suffix);
        Tensor& fc = linear(fc_w, fc_b, ln_2, "fc", suffix);
        Tensor& gelu = named(b.unary(fc, UnaryOp::GELU), name("gelu"));
        Tensor& mlp_out = linear(mlp_proj_w, mlp_proj_b, gelu, "mlp_proj", suffix);
        inpL = &named(b.add(mlp_out, ffn_inp), name("l_out"));
    }

    Tensor& ln_f_g = model.weight("ln_f.g", f32, shape(p.embd));
    Tensor& ln_f_b = model.weight("ln_f.b", f32, shape(p.embd));
    Tensor& ln_f = layer_norm(*inpL, ln_f_g, ln_f_b, "ln_f", "");
    return model.finish(named(b.mul_mat(wte, ln_f), "logits"));
}

GraphFile mlp_example(const MlpParams& p) {
    const std::string example = "mlp";
    check_range(example, "layers", p.layers, 1, 512);
    check_range(example, "embd", p.embd, 1, 1 << 20);
    check_range(example, "ff", p.ff, 1, 1 << 20);
    check_range(example, "tokens", p.tokens, 1, 1 << 16);
    check_rows(example, "embd", p.embd, p.weights);
    if (p.layers > 1) {
        check_rows(example, "ff", p.ff, p.weights);
    }
    std::ostringstream description;
    description << "multi-layer perceptron: n_layer=" << p.layers << ", n_embd=" << p.embd << ", n_ff=" << p.ff
                << ", n_tokens=" << p.tokens << ", wtype=" << type_name(p.weights)
                << "; buffers=" << buffer_setup_name(p.buffers);
    ModelFile model("mlp-l" + std::to_string(p.layers) + "-e" + std::to_string(p.embd) + "-f" + std::to_string(p.ff) +
                        "-t" + std::to_string(p.tokens),
                    description.str(), p.buffers);
    GraphBuilder& b = model.build();
    Tensor* x = &model.input("input", DataType::f32, shape(p.embd, p.tokens));
    std::int64_t width = p.embd;
    for (std::int64_t l = 0; l < p.layers; ++l) {
        const bool last = l == p.layers - 1;
        const std::int64_t out = last ? p.embd : p.ff;
        const std::string fc = "fc" + std::to_string(l);
        Tensor& w = model.weight(fc + ".weight", p.weights, shape(width, out));
        Tensor& bias = model.weight(fc + ".bias", DataType::f32, shape(out));
        Tensor& product = named(b.mul_mat(w, *x), fc);
        x = &named(b.add(product, bias), fc + "_b");
        if (!last) {
            x = &named(b.unary(*x, UnaryOp::RELU), "relu" + std::to_string(l));
        }
        width = out;
    }
    return model.finish(named(b.soft_max(*x), "probs"));
}

namespace {

// From the models' papers and configs (config.json on their model cards).
constexpr ModelPreset kPresets[] = {
    {"tinyllama-1.1b", "llama", 22, 2048, 32, 5632, 32000, "4 KV heads in the model; the example gives every head its own K and V"},
    {"llama-2-7b", "llama", 32, 4096, 32, 11008, 32000, ""},
    {"llama-2-13b", "llama", 40, 5120, 40, 13824, 32000, ""},
    {"llama-3.1-8b", "llama", 32, 4096, 32, 14336, 128256, "8 KV heads in the model; the example gives every head its own K and V"},
    {"mistral-7b", "llama", 32, 4096, 32, 14336, 32000, "8 KV heads in the model; the example gives every head its own K and V"},
    {"gpt2", "gpt2", 12, 768, 12, 3072, 50257, ""},
    {"gpt2-xl", "gpt2", 48, 1600, 25, 6400, 50257, ""},
};

} // namespace

std::span<const ModelPreset> model_presets() { return kPresets; }

const ModelPreset* find_model_preset(std::string_view name) {
    const auto found = std::ranges::find(kPresets, name, &ModelPreset::name);
    return found == std::end(kPresets) ? nullptr : &*found;
}

std::string model_preset_names() {
    std::string names;
    for (const ModelPreset& preset : kPresets) {
        names += (names.empty() ? "" : ", ") + std::string(preset.name);
    }
    return names;
}

ExampleOptions with_preset(ExampleOptions options, const ModelPreset& preset) {
    options.layers = options.layers.value_or(preset.layers);
    options.embd = options.embd.value_or(preset.embd);
    options.heads = options.heads.value_or(preset.heads);
    options.ff = options.ff.value_or(preset.ff);
    options.vocab = options.vocab.value_or(preset.vocab);
    return options;
}

namespace {

// Where an example's parameter struct (MlpParams, LlamaParams, Gpt2Params) keeps the value of one
// parameter of the table: a member of the parameter's kind, the alternatives in Field's order.
template <typename Params>
using ParamsField = std::variant<std::int64_t Params::*, DataType Params::*, BufferSetup Params::*, bool Params::*>;

// A parameter an example takes: its name in kParameters and where the example reads it.
template <typename Params>
struct Takes {
    std::string_view parameter;
    ParamsField<Params> member;
};

// Every parameter an example takes is in the table, with the kind the example reads: a wrong
// name or kind does not compile.
template <typename Params, std::size_t N>
constexpr bool all_in_table(const Takes<Params> (&takes)[N]) {
    return std::ranges::all_of(takes, [](const Takes<Params>& take) {
        const auto found = std::ranges::find(kParameters, take.parameter, &ExampleParameter::name);
        return found != std::end(kParameters) && found->field.index() == take.member.index();
    });
}

// What each model example takes, in the order `gallocsim examples` and the dialog list them.
constexpr Takes<MlpParams> kMlpTakes[] = {
    {"layers", &MlpParams::layers}, {"embd", &MlpParams::embd},         {"ff", &MlpParams::ff},
    {"tokens", &MlpParams::tokens}, {"weights", &MlpParams::weights}, {"buffers", &MlpParams::buffers},
};
constexpr Takes<LlamaParams> kLlamaTakes[] = {
    {"layers", &LlamaParams::layers},   {"embd", &LlamaParams::embd},       {"heads", &LlamaParams::heads},
    {"ff", &LlamaParams::ff},           {"tokens", &LlamaParams::tokens},   {"vocab", &LlamaParams::vocab},
    {"weights", &LlamaParams::weights}, {"buffers", &LlamaParams::buffers}, {"outputs", &LlamaParams::outputs},
    {"inplace", &LlamaParams::inplace}, {"mask", &LlamaParams::mask},       {"clamp", &LlamaParams::clamp},
};
constexpr Takes<Gpt2Params> kGpt2Takes[] = {
    {"layers", &Gpt2Params::layers}, {"embd", &Gpt2Params::embd},       {"heads", &Gpt2Params::heads},
    {"ff", &Gpt2Params::ff},         {"tokens", &Gpt2Params::tokens},   {"vocab", &Gpt2Params::vocab},
    {"weights", &Gpt2Params::weights}, {"buffers", &Gpt2Params::buffers},
};
static_assert(all_in_table(kMlpTakes) && all_in_table(kLlamaTakes) && all_in_table(kGpt2Takes));

const ExampleParameter& parameter_named(std::string_view name) {
    return *find_example_parameter(name);  // there: all_in_table
}

// A value as the command line writes it ("160", "f32", "cpu", "off").
std::string value_text(const ExampleParameter& parameter, std::int64_t count) {
    const std::string text = std::to_string(count);
    return count == 0 && !parameter.zero_means.empty() ? text + " (" + std::string(parameter.zero_means) + ")" : text;
}
std::string value_text(const ExampleParameter&, DataType type) {
    return std::string(type_name(type));
}
std::string value_text(const ExampleParameter&, BufferSetup setup) {
    return buffer_setup_name(setup);
}
std::string value_text(const ExampleParameter&, bool on) {
    return on ? "on" : "off";
}

// The value `options` gives for the parameter, if it gives one, into `value` (a switch given turns it on).
template <typename T>
void take_given(const ExampleParameter& parameter, const ExampleOptions& options, T& value) {
    if constexpr (std::is_same_v<T, bool>) {
        if (options.*std::get<bool ExampleOptions::*>(parameter.field)) {
            value = true;
        }
    } else if (const std::optional<T>& given = options.*std::get<std::optional<T> ExampleOptions::*>(parameter.field)) {
        value = *given;
    }
}

// A built-in example: what `gallocsim examples` says of it, and how it is made from the options.
struct Example {
    ExampleInfo info;
    std::function<GraphFile(const ExampleOptions&)> make;
};

Example fixed_example(std::string name, std::string description, GraphFile (*make)()) {
    return {{std::move(name), std::move(description), {}, {}}, [make](const ExampleOptions&) { return make(); }};
}

// An example with parameters: its parameter struct's defaults (set there, once), and what the
// options give over them.
template <typename Params>
Example model_example(std::string name, std::string description, std::span<const Takes<Params>> takes,
                      GraphFile (*build)(const Params&)) {
    Example example{{std::move(name), std::move(description), {}, {}}, {}};
    // Static, so zero-filled before its member initializers run: GCC cannot tell that a member
    // pointer of a kind the struct has none of (MlpParams' switches) is never followed, and warns
    // of padding read uninitialized.
    static const Params defaults;
    for (const Takes<Params>& take : takes) {
        const ExampleParameter& parameter = parameter_named(take.parameter);
        example.info.options.emplace_back(parameter.name);
        example.info.defaults.push_back(
            std::visit([&](auto member) { return value_text(parameter, defaults.*member); }, take.member));
    }
    example.make = [takes, build](const ExampleOptions& options) {
        Params params;
        for (const Takes<Params>& take : takes) {
            std::visit([&](auto member) { take_given(parameter_named(take.parameter), options, params.*member); }, take.member);
        }
        return build(params);
    };
    return example;
}

const std::vector<Example>& examples() {
    static const std::vector<Example> all{
        fixed_example("seed", "the seed walkthrough: inputs a, b (1 x f32), mul = a*b, one 32-aligned CPU buffer",
                      seed_example),
        fixed_example("sched-issue", "inputs c, a2, b2 (1 x f32), ab = a2*b2, result = c*ab (not an output)",
                      sched_issue_example),
        model_example<MlpParams>("mlp", "multi-layer perceptron: linear layers with bias and relu, soft_max", kMlpTakes,
                                 mlp_example),
        model_example<LlamaParams>("llama",
                                   "llama.cpp-style transformer: RMS norm, RoPE attention, silu-gated feed-forward",
                                   kLlamaTakes, llama_example),
        model_example<Gpt2Params>("gpt2",
                                  "GPT-2 style transformer: layer norm, fused qkv as strided views, causal mask, gelu MLP",
                                  kGpt2Takes, gpt2_example),
    };
    return all;
}

// Rejects options the example does not read, so a typo does not pass unnoticed.
void check_options(const ExampleInfo& info, const ExampleOptions& options) {
    for (const ExampleParameter& parameter : kParameters) {
        if (is_given(parameter, options) && std::ranges::find(info.options, parameter.name) == info.options.end()) {
            reject(info.name, "does not take " + std::string(parameter.name));
        }
    }
}

} // namespace

std::vector<ExampleInfo> list_examples() {
    std::vector<ExampleInfo> infos;
    for (const Example& example : examples()) {
        infos.push_back(example.info);
    }
    return infos;
}

GraphFile make_example(const std::string& name, const ExampleOptions& options) {
    const auto& all = examples();
    const auto example = std::ranges::find_if(all, [&](const Example& e) { return e.info.name == name; });
    if (example == all.end()) {
        throw GraphFileError("unknown example \"" + name + "\" (see `gallocsim examples`)");
    }
    check_options(example->info, options);
    return example->make(options);
}

} // namespace gallocsim
