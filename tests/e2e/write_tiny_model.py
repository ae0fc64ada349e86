#!/usr/bin/env python3
"""Writes a tiny random-weight GGUF model that llama.cpp loads and runs.

The tokenizer comes from one of the vocab-only GGUF files that llama.cpp ships (in the
llama-cpp-python sdist, unpacked by .ci/install-upstream); the weights are random, so the
text it generates is noise, but the graphs llama.cpp plans for it are the real ones of the
architecture, only narrower and shallower.

    write_tiny_model.py ARCH OUT.gguf --vocab-dir DIR [--layers 2 --embd 64 --ff 128 --heads 4]
"""
import argparse
import pathlib
import sys

import gguf
import numpy as np

VOCAB_FILE = {"llama": "ggml-vocab-llama-spm.gguf", "gpt2": "ggml-vocab-gpt-2.gguf",
              "olmo": "ggml-vocab-gpt-neox.gguf"}


def copy_tokenizer(writer: gguf.GGUFWriter, vocab_path: pathlib.Path) -> int:
    """Copies every tokenizer.* key of a vocab-only GGUF; returns the vocabulary size."""
    reader = gguf.GGUFReader(vocab_path)
    vocab_size = 0
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        value = field.contents()
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(key, value, vtype, sub_type)
        if key == "tokenizer.ggml.tokens":
            vocab_size = len(value)
    if vocab_size == 0:
        sys.exit(f"{vocab_path}: no tokenizer.ggml.tokens")
    return vocab_size


def weight(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """numpy shape (rows, cols) is ggml's ne = [cols, rows]."""
    return (rng.standard_normal(shape) * 0.02).astype(np.float32)


def ones(n: int) -> np.ndarray:
    return np.ones(n, dtype=np.float32)


def llama_tensors(rng, args, vocab):
    e, f, kv = args.embd, args.ff, args.embd // args.heads * args.kv_heads
    yield "token_embd.weight", weight(rng, vocab, e)
    yield "output_norm.weight", ones(e)
    yield "output.weight", weight(rng, vocab, e)
    for i in range(args.layers):
        yield f"blk.{i}.attn_norm.weight", ones(e)
        yield f"blk.{i}.attn_q.weight", weight(rng, e, e)
        yield f"blk.{i}.attn_k.weight", weight(rng, kv, e)
        yield f"blk.{i}.attn_v.weight", weight(rng, kv, e)
        yield f"blk.{i}.attn_output.weight", weight(rng, e, e)
        yield f"blk.{i}.ffn_norm.weight", ones(e)
        yield f"blk.{i}.ffn_gate.weight", weight(rng, f, e)
        yield f"blk.{i}.ffn_up.weight", weight(rng, f, e)
        yield f"blk.{i}.ffn_down.weight", weight(rng, e, f)


def olmo_tensors(rng, args, vocab):
    """OLMo: llama's blocks without norm weights (its layer norm has no parameters)."""
    for name, tensor in llama_tensors(rng, args, vocab):
        if "norm" not in name:
            yield name, tensor


def gpt2_tensors(rng, args, vocab):
    e, f = args.embd, args.ff
    zeros = lambda n: np.zeros(n, dtype=np.float32)
    yield "token_embd.weight", weight(rng, vocab, e)
    yield "position_embd.weight", weight(rng, args.context, e)
    yield "output_norm.weight", ones(e)
    yield "output_norm.bias", zeros(e)
    yield "output.weight", weight(rng, vocab, e)
    for i in range(args.layers):
        yield f"blk.{i}.attn_norm.weight", ones(e)
        yield f"blk.{i}.attn_norm.bias", zeros(e)
        yield f"blk.{i}.attn_qkv.weight", weight(rng, 3 * e, e)
        yield f"blk.{i}.attn_qkv.bias", zeros(3 * e)
        yield f"blk.{i}.attn_output.weight", weight(rng, e, e)
        yield f"blk.{i}.attn_output.bias", zeros(e)
        yield f"blk.{i}.ffn_norm.weight", ones(e)
        yield f"blk.{i}.ffn_norm.bias", zeros(e)
        yield f"blk.{i}.ffn_up.weight", weight(rng, f, e)
        yield f"blk.{i}.ffn_up.bias", zeros(f)
        yield f"blk.{i}.ffn_down.weight", weight(rng, e, f)
        yield f"blk.{i}.ffn_down.bias", zeros(e)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("arch", choices=sorted(VOCAB_FILE))
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--vocab-dir", type=pathlib.Path, required=True,
                        help="folder with llama.cpp's ggml-vocab-*.gguf files")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--embd", type=int, default=64)
    parser.add_argument("--ff", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--context", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.arch == "gpt2":
        args.kv_heads = args.heads  # GPT-2 has no grouped-query attention

    writer = gguf.GGUFWriter(args.out, args.arch)
    writer.add_name(f"tiny-{args.arch}")
    vocab = copy_tokenizer(writer, args.vocab_dir / VOCAB_FILE[args.arch])
    writer.add_context_length(args.context)
    writer.add_embedding_length(args.embd)
    writer.add_block_count(args.layers)
    writer.add_feed_forward_length(args.ff)
    writer.add_head_count(args.heads)
    writer.add_head_count_kv(args.kv_heads)
    writer.add_vocab_size(vocab)
    if args.arch == "gpt2":
        writer.add_layer_norm_eps(1e-5)
    elif args.arch == "olmo":
        writer.add_layer_norm_eps(1e-5)
        writer.add_clamp_kqv(8.0)  # puts CLAMP nodes on q, k and v in every block
    else:
        writer.add_layer_norm_rms_eps(1e-5)
        writer.add_rope_dimension_count(args.embd // args.heads)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    rng = np.random.default_rng(args.seed)
    tensors = {"llama": llama_tensors, "gpt2": gpt2_tensors, "olmo": olmo_tensors}[args.arch]
    for name, tensor in tensors(rng, args, vocab):
        writer.add_tensor(name, tensor)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
