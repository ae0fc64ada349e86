#!/usr/bin/env python3
"""Writes a GGUF file with a real model's hyperparameters, tensor names, shapes and types, and no weights.

The tensor-info section is real; the data section is a hole: the file is extended to its
full size without writing it (a sparse file, a few MB on disk). llama.cpp creates a context on
it and reserves its compute graphs, which need no weights (../shared/upstream-versions.md,
"Real-size models without their weights"). The tokenizer is copied from the vocab-only GGUF
llama.cpp ships for the model's family, its token list padded or cut to the model's vocabulary
(only its size reaches the graphs: the logits' rows).

    write_real_shape.py MODEL OUT.gguf --vocab-dir DIR [--weights TYPE]   (MODEL: see --list)
    write_real_shape.py --reserve-args MODEL    (the options reserve.py needs for it, e.g. --embedding)
"""
import argparse
import os
import pathlib
import sys

import gguf
import numpy as np

# Shapes as the models' configs give them (config.json on their model cards). family picks the
# tensor generator; vocab (when given) pads or cuts the vocab file's token list to the model's.
MODELS = {
    "llama-3.1-8b": dict(arch="llama", family="llama", vocab_file="ggml-vocab-llama-bpe.gguf", layers=32, embd=4096,
                         heads=32, kv_heads=8, ff=14336, context=131072, rope_base=500000.0, weights="Q4_0"),
    "mistral-7b": dict(arch="llama", family="llama", vocab_file="ggml-vocab-llama-spm.gguf", layers=32, embd=4096,
                       heads=32, kv_heads=8, ff=14336, context=32768, rope_base=1000000.0, weights="Q4_0"),
    # Q3_K, not Q4_0: llama.cpp repacks Q4_0 (and Q2_K, Q4_K, ...) weights into anonymous memory on
    # this CPU, 26 GB for Mixtral; Q3_K weights stay in the mapped hole. The graphs do not depend on it.
    "mixtral-8x7b": dict(arch="llama", family="llama", vocab_file="ggml-vocab-llama-spm.gguf", layers=32, embd=4096,
                         heads=32, kv_heads=8, ff=14336, context=32768, rope_base=1000000.0, weights="Q3_K",
                         experts=8, experts_used=2),
    "qwen2.5-7b": dict(arch="qwen2", family="llama", vocab_file="ggml-vocab-qwen2.gguf", vocab=152064, layers=28,
                       embd=3584, heads=28, kv_heads=4, ff=18944, context=32768, rope_base=1000000.0, weights="Q4_0",
                       qkv_bias=True, norm_eps=1e-6),
    # Gemma 2's own tokenizer is not among llama.cpp's vocab files: llama's SentencePiece one, padded.
    "gemma-2-9b": dict(arch="gemma2", family="llama", vocab_file="ggml-vocab-llama-spm.gguf", vocab=256000, layers=42,
                       embd=3584, heads=16, kv_heads=8, head_dim=256, ff=14336, context=8192, rope_base=10000.0,
                       weights="Q4_0", tied=True, post_norms=True, sliding_window=4096, attn_softcap=50.0,
                       final_softcap=30.0, norm_eps=1e-6),
    "phi-3-mini": dict(arch="phi3", family="llama", vocab_file="ggml-vocab-phi-3.gguf", layers=32, embd=3072,
                       heads=32, kv_heads=32, ff=8192, context=4096, rope_base=10000.0, weights="Q4_0",
                       fused=True),
    "mamba-2.8b": dict(arch="mamba", family="mamba", vocab_file="ggml-vocab-gpt-neox.gguf", vocab=50280, layers=64,
                       embd=2560, d_inner=5120, d_state=16, d_conv=4, dt_rank=160, context=2**20, weights="Q4_0"),
    "bge-base-en-v1.5": dict(arch="bert", family="bert", vocab_file="ggml-vocab-bert-bge.gguf", layers=12, embd=768,
                             heads=12, kv_heads=12, ff=3072, context=512, weights="F16", norm_eps=1e-12,
                             reserve=["--embedding"]),
    # Not a real model: the tests' small shape (tests/predict), llama's graph at a width of 256, in
    # Q4_0 as most of the real shapes are. Not in the corpus.
    "tiny-llama": dict(arch="llama", family="llama", vocab_file="ggml-vocab-llama-spm.gguf", layers=2, embd=256,
                       heads=4, kv_heads=2, ff=512, context=4096, rope_base=10000.0, weights="Q4_0"),
}


def llama_tensors(m, vocab):
    """Decoder transformers (llama, qwen2, gemma2, phi3; MoE when experts): (name, ne as ggml orders it, type)."""
    e, f, hd = m["embd"], m["ff"], m.get("head_dim", m["embd"] // m["heads"])
    q, kv, n_exp = hd * m["heads"], hd * m["kv_heads"], m.get("experts", 0)
    w, f32 = m["weights"], "F32"
    yield "token_embd.weight", (e, vocab), w
    yield "output_norm.weight", (e,), f32
    if not m.get("tied"):
        yield "output.weight", (e, vocab), w
    for i in range(m["layers"]):
        b = f"blk.{i}."
        yield b + "attn_norm.weight", (e,), f32
        if m.get("fused"):
            yield b + "attn_qkv.weight", (e, q + 2 * kv), w
        else:
            for name, n in (("q", q), ("k", kv), ("v", kv)):
                yield b + f"attn_{name}.weight", (e, n), w
                if m.get("qkv_bias"):
                    yield b + f"attn_{name}.bias", (n,), f32
        yield b + "attn_output.weight", (q, e), w
        if m.get("post_norms"):
            yield b + "post_attention_norm.weight", (e,), f32
        yield b + "ffn_norm.weight", (e,), f32
        if n_exp:
            yield b + "ffn_gate_inp.weight", (e, n_exp), f32
            yield b + "ffn_gate_exps.weight", (e, f, n_exp), w
            yield b + "ffn_up_exps.weight", (e, f, n_exp), w
            yield b + "ffn_down_exps.weight", (f, e, n_exp), w
        elif m.get("fused"):
            yield b + "ffn_up.weight", (e, 2 * f), w   # gate and up in one
            yield b + "ffn_down.weight", (f, e), w
        else:
            yield b + "ffn_gate.weight", (e, f), w
            yield b + "ffn_up.weight", (e, f), w
            yield b + "ffn_down.weight", (f, e), w
        if m.get("post_norms"):
            yield b + "post_ffw_norm.weight", (e,), f32


def mamba_tensors(m, vocab):
    e, d_in, d_st, dt = m["embd"], m["d_inner"], m["d_state"], m["dt_rank"]
    w, f32 = m["weights"], "F32"
    yield "token_embd.weight", (e, vocab), w   # tied: no output.weight
    yield "output_norm.weight", (e,), f32
    for i in range(m["layers"]):
        b = f"blk.{i}."
        yield b + "attn_norm.weight", (e,), f32
        yield b + "ssm_in.weight", (e, 2 * d_in), w
        yield b + "ssm_conv1d.weight", (m["d_conv"], d_in), f32
        yield b + "ssm_conv1d.bias", (d_in,), f32
        yield b + "ssm_x.weight", (d_in, dt + 2 * d_st), w
        yield b + "ssm_dt.weight", (dt, d_in), w
        yield b + "ssm_dt.bias", (d_in,), f32
        yield b + "ssm_a", (d_st, d_in), f32
        yield b + "ssm_d", (d_in,), f32
        yield b + "ssm_out.weight", (d_in, e), w


def bert_tensors(m, vocab):
    e, f, w, f32 = m["embd"], m["ff"], m["weights"], "F32"
    yield "token_embd.weight", (e, vocab), w
    yield "token_types.weight", (e, 2), f32
    yield "position_embd.weight", (e, m["context"]), f32
    yield "token_embd_norm.weight", (e,), f32
    yield "token_embd_norm.bias", (e,), f32
    for i in range(m["layers"]):
        b = f"blk.{i}."
        for name, ne_in, ne_out in (("attn_q", e, e), ("attn_k", e, e), ("attn_v", e, e), ("attn_output", e, e),
                                    ("ffn_up", e, f), ("ffn_down", f, e)):
            yield b + name + ".weight", (ne_in, ne_out), w
            yield b + name + ".bias", (ne_out,), f32
            if name in ("attn_output", "ffn_down"):
                norm = "attn_output_norm" if name == "attn_output" else "layer_output_norm"
                yield b + norm + ".weight", (e,), f32
                yield b + norm + ".bias", (e,), f32


TENSORS = {"llama": llama_tensors, "mamba": mamba_tensors, "bert": bert_tensors}


def copy_tokenizer(writer, vocab_path, size=None):
    """Copies every tokenizer.* key of a vocab-only GGUF, the per-token arrays padded ([PADn], unused)
    or cut to size; returns the vocabulary size."""
    reader = gguf.GGUFReader(vocab_path)
    fields = reader.fields
    if "tokenizer.ggml.tokens" not in fields:
        sys.exit(f"{vocab_path}: no tokenizer.ggml.tokens")
    n = len(fields["tokenizer.ggml.tokens"].contents())
    size = size or n
    pad = {"tokenizer.ggml.tokens": lambda i: f"[PAD{i}]", "tokenizer.ggml.token_type": lambda i: 5,  # UNUSED
           "tokenizer.ggml.scores": lambda i: -1000.0}
    for key, field in fields.items():
        if not key.startswith("tokenizer."):
            continue
        value = field.contents()
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        if key in pad:
            value = value[:size] + [pad[key](i) for i in range(n, size)]
        writer.add_key_value(key, value, vtype, sub_type)
    return size


def tensor_type(ne, type_name):
    """The model's weight type, or F16 where a row is no whole number of its blocks (mamba's dt rank 160 in K-quants)."""
    block = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[type_name]][0]
    return type_name if ne[0] % block == 0 else "F16"


def nbytes(ne, type_name):
    qtype = gguf.GGMLQuantizationType[type_name]
    block, type_size = gguf.GGML_QUANT_SIZES[qtype]
    rows = 1
    for n in ne[1:]:
        rows *= n
    return rows * (ne[0] // block) * type_size


def write_hparams(writer, m, vocab):
    mamba = m["family"] == "mamba"
    writer.add_context_length(m["context"])
    writer.add_embedding_length(m["embd"])
    writer.add_block_count(m["layers"])
    writer.add_feed_forward_length(0 if mamba else m["ff"])
    writer.add_head_count(0 if mamba else m["heads"])
    if not mamba:
        writer.add_head_count_kv(m["kv_heads"])
    writer.add_vocab_size(vocab)
    if mamba:
        writer.add_ssm_conv_kernel(m["d_conv"])
        writer.add_ssm_inner_size(m["d_inner"])
        writer.add_ssm_state_size(m["d_state"])
        writer.add_ssm_time_step_rank(m["dt_rank"])
    if m["family"] == "bert":
        writer.add_layer_norm_eps(m["norm_eps"])
        writer.add_causal_attention(False)
        writer.add_pooling_type(gguf.PoolingType.CLS)
        return
    writer.add_layer_norm_rms_eps(m.get("norm_eps", 1e-5))
    if mamba:
        return
    hd = m.get("head_dim", m["embd"] // m["heads"])
    if "head_dim" in m:
        writer.add_key_length(hd)
        writer.add_value_length(hd)
    writer.add_rope_dimension_count(hd)
    writer.add_rope_freq_base(m["rope_base"])
    if "experts" in m:
        writer.add_expert_count(m["experts"])
        writer.add_expert_used_count(m["experts_used"])
    if "sliding_window" in m:
        writer.add_sliding_window(m["sliding_window"])
        writer.add_attn_logit_softcapping(m["attn_softcap"])
        writer.add_final_logit_softcapping(m["final_softcap"])


FILE_TYPES = {"F32": "ALL_F32", "F16": "MOSTLY_F16", "Q3_K": "MOSTLY_Q3_K_M", "Q4_K": "MOSTLY_Q4_K_M",
              "Q5_K": "MOSTLY_Q5_K_M", "Q2_K": "MOSTLY_Q2_K"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", choices=sorted(MODELS))
    parser.add_argument("out", nargs="?", type=pathlib.Path)
    parser.add_argument("--vocab-dir", type=pathlib.Path, help="folder with llama.cpp's ggml-vocab-*.gguf files")
    parser.add_argument("--weights", help="weight type instead of the model's (Q4_0, Q3_K, F16, ...)")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    parser.add_argument("--reserve-args", action="store_true", help="print the options reserve.py needs for MODEL")
    args = parser.parse_args()
    if args.reserve_args:
        print(" ".join(MODELS[args.model].get("reserve", [])) if args.model else parser.error("give MODEL"))
        return
    if args.list or args.model is None:
        for name, m in MODELS.items():
            if m["family"] == "mamba":
                shape = f"d_inner {m['d_inner']}, d_state {m['d_state']}, dt rank {m['dt_rank']}"
            else:
                shape = f"{m['heads']} heads ({m['kv_heads']} KV), feed-forward {m['ff']}"
                shape += f" x {m['experts']} experts ({m['experts_used']} used)" if "experts" in m else ""
            print(f"{name}: {m['arch']}, {m['layers']} layers, width {m['embd']}, {shape}, {m['weights']}")
        return
    if args.out is None or args.vocab_dir is None:
        parser.error("give MODEL OUT.gguf --vocab-dir DIR")
    m = dict(MODELS[args.model])
    if args.weights:
        m["weights"] = args.weights
    writer = gguf.GGUFWriter(args.out, m["arch"])
    writer.add_name(f"{args.model} (shapes only)")
    vocab = copy_tokenizer(writer, args.vocab_dir / m["vocab_file"], m.get("vocab"))
    write_hparams(writer, m, vocab)
    writer.add_file_type(gguf.LlamaFileType[FILE_TYPES.get(m["weights"], f"MOSTLY_{m['weights']}")])

    total = padded = 0
    alignment = 32  # gguf's default: each tensor's data starts aligned
    for name, ne, type_name in TENSORS[m["family"]](m, vocab):
        type_name = tensor_type(ne, type_name)
        size = nbytes(ne, type_name)
        # gguf takes numpy's order (rows first), the row given in bytes.
        qtype = gguf.GGMLQuantizationType[type_name]
        block, type_size = gguf.GGML_QUANT_SIZES[qtype]
        shape_bytes = list(reversed(ne))
        shape_bytes[-1] = ne[0] // block * type_size
        writer.add_tensor_info(name, shape_bytes, np.dtype(np.uint8), size, raw_dtype=qtype)
        total += size
        padded += -(-size // alignment) * alignment
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    # The data section: a hole as large as the weights.
    with open(args.out, "r+b") as out:
        out.seek(0, os.SEEK_END)
        start = out.tell()
        start += -start % alignment
        out.truncate(start + padded)
    print(f"{args.out}: {args.model}, {total / 2**30:.2f} GiB of weights as a hole")


if __name__ == "__main__":
    main()
