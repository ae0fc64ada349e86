#include "simulator/executor/llama_graph.hpp"

#include "reference/builder.hpp"

#include <cmath>
#include <string>

namespace gallocsim {
namespace {

class LlamaBuilder {
public:
    LlamaBuilder(LlamaGraph& out, const LlamaShape& shape) : b_(out.context), shape_(shape) {}

    Tensor& weight(std::initializer_list<std::int64_t> ne, const std::string& name, bool matrix = true) {
        return b_.new_tensor(matrix ? shape_.weight_type : DataType::f32, ne, name);
    }

    Tensor& input(DataType type, std::initializer_list<std::int64_t> ne, const std::string& name) {
        Tensor& t = b_.new_tensor(type, ne, name);
        set_input(t);
        return t;
    }

    Tensor& norm(Tensor& x, const std::string& weight_name) {
        return b_.mul(b_.rms_norm(x, 1e-5f), weight({shape_.n_embd}, weight_name, false));
    }

    Tensor& attention(Tensor& x, Tensor& positions, Tensor& mask, const std::string& layer) {
        const std::int64_t head = shape_.n_embd / shape_.n_head;
        const std::int64_t tokens = shape_.n_tokens;
        Tensor& cur = norm(x, layer + ".attn_norm.weight");
        auto project = [&](const char* name) -> Tensor& {
            return b_.mul_mat(weight({shape_.n_embd, shape_.n_embd}, layer + "." + name + ".weight"), cur);
        };
        Tensor& q = b_.rope(b_.reshape(project("attn_q"), {head, shape_.n_head, tokens, 1}), positions);
        Tensor& k = b_.rope(b_.reshape(project("attn_k"), {head, shape_.n_head, tokens, 1}), positions);
        Tensor& v = project("attn_v");
        Tensor& kq = b_.mul_mat(b_.permute(k, 0, 2, 1, 3), b_.permute(q, 0, 2, 1, 3));  // [tokens, tokens, heads]
        Tensor& weights = b_.soft_max(kq, &mask, 1.0f / std::sqrt(static_cast<float>(head)));
        Tensor& v_t = b_.cont(b_.permute(b_.reshape(v, {head, shape_.n_head, tokens, 1}), 1, 2, 0, 3));
        Tensor& kqv = b_.mul_mat(v_t, weights);  // [head, tokens, heads]
        Tensor& merged = b_.reshape(b_.cont(b_.permute(kqv, 0, 2, 1, 3)), {shape_.n_embd, tokens, 1, 1});
        return b_.add(b_.mul_mat(weight({shape_.n_embd, shape_.n_embd}, layer + ".attn_output.weight"), merged), x);
    }

    Tensor& feed_forward(Tensor& x, const std::string& layer) {
        Tensor& cur = norm(x, layer + ".ffn_norm.weight");
        Tensor& gate = b_.unary(b_.mul_mat(weight({shape_.n_embd, shape_.n_ff}, layer + ".ffn_gate.weight"), cur), UnaryOp::SILU);
        Tensor& up = b_.mul_mat(weight({shape_.n_embd, shape_.n_ff}, layer + ".ffn_up.weight"), cur);
        Tensor& down = b_.mul_mat(weight({shape_.n_ff, shape_.n_embd}, layer + ".ffn_down.weight"), b_.mul(gate, up));
        return b_.add(down, x);
    }

    Tensor& forward() {
        Tensor& tokens = input(DataType::i32, {shape_.n_tokens}, "inp_tokens");
        Tensor& positions = input(DataType::i32, {shape_.n_tokens}, "inp_pos");
        Tensor& mask = input(DataType::f32, {shape_.n_tokens, shape_.n_tokens}, "kq_mask");
        Tensor* x = &b_.get_rows(weight({shape_.n_embd, shape_.n_vocab}, "token_embd.weight"), tokens);
        for (std::int64_t l = 0; l < shape_.n_layer; ++l) {
            const std::string layer = "blk." + std::to_string(l);
            x = &feed_forward(attention(*x, positions, mask, layer), layer);
        }
        Tensor& logits = b_.mul_mat(weight({shape_.n_embd, shape_.n_vocab}, "output.weight"), norm(*x, "output_norm.weight"));
        logits.name = "result_output";
        set_output(logits);
        return logits;
    }

private:
    GraphBuilder b_;
    LlamaShape shape_;
};

} // namespace

LlamaGraph build_llama_graph(const LlamaShape& shape) {
    LlamaGraph out;
    LlamaBuilder builder(out, shape);
    out.logits = &builder.forward();
    build_forward_expand(out.graph, *out.logits);
    return out;
}

} // namespace gallocsim
