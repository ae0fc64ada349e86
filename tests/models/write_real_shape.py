#!/usr/bin/env python3
"""Writes a GGUF file with a real model's hyperparameters, tensor names, shapes and types, and no weights.

The tensor-info section is real; the data section is a hole: the file is extended to its
full size without writing it (a sparse file, a few MB on disk). llama.cpp creates a context on
it and reserves its compute graphs, which need no weights (../shared/upstream-versions.md,
"Real-size models without their weights"). The tokenizer is copied from the vocab-only GGUF
llama.cpp ships for the model's family.

    write_real_shape.py MODEL OUT.gguf --vocab-dir DIR        (MODEL: see --list)
"""
import argparse
import os
import pathlib
import sys

import gguf
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "e2e"))
from write_tiny_model import copy_tokenizer  # noqa: E402  (the tokenizer of a vocab-only GGUF, as the tiny models take it)

# Shapes as the models' configs give them (config.json on their model cards).
MODELS = {
    "llama-3.1-8b": dict(arch="llama", vocab_file="ggml-vocab-llama-bpe.gguf", layers=32, embd=4096, heads=32,
                         kv_heads=8, ff=14336, context=131072, rope_base=500000.0, weights="Q4_0"),
    "mistral-7b": dict(arch="llama", vocab_file="ggml-vocab-llama-spm.gguf", layers=32, embd=4096, heads=32,
                       kv_heads=8, ff=14336, context=32768, rope_base=1000000.0, weights="Q4_0"),
}


def llama_tensors(m, vocab):
    """(name, ne as ggml orders it: row length first, type)."""
    e, f, kv = m["embd"], m["ff"], m["embd"] // m["heads"] * m["kv_heads"]
    w, f32 = m["weights"], "F32"
    yield "token_embd.weight", (e, vocab), w
    yield "output_norm.weight", (e,), f32
    yield "output.weight", (e, vocab), w
    for i in range(m["layers"]):
        yield f"blk.{i}.attn_norm.weight", (e,), f32
        yield f"blk.{i}.attn_q.weight", (e, e), w
        yield f"blk.{i}.attn_k.weight", (e, kv), w
        yield f"blk.{i}.attn_v.weight", (e, kv), w
        yield f"blk.{i}.attn_output.weight", (e, e), w
        yield f"blk.{i}.ffn_norm.weight", (e,), f32
        yield f"blk.{i}.ffn_gate.weight", (e, f), w
        yield f"blk.{i}.ffn_up.weight", (e, f), w
        yield f"blk.{i}.ffn_down.weight", (f, e), w


def nbytes(ne, type_name):
    qtype = gguf.GGMLQuantizationType[type_name]
    block, type_size = gguf.GGML_QUANT_SIZES[qtype]
    rows = 1
    for n in ne[1:]:
        rows *= n
    if ne[0] % block != 0:
        sys.exit(f"a row of {ne[0]} is no whole number of {type_name} blocks")
    return rows * (ne[0] // block) * type_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", choices=sorted(MODELS))
    parser.add_argument("out", nargs="?", type=pathlib.Path)
    parser.add_argument("--vocab-dir", type=pathlib.Path, help="folder with llama.cpp's ggml-vocab-*.gguf files")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    args = parser.parse_args()
    if args.list or args.model is None:
        for name, m in MODELS.items():
            print(f"{name}: {m['layers']} layers, width {m['embd']}, {m['heads']} heads ({m['kv_heads']} KV), "
                  f"feed-forward {m['ff']}, {m['weights']}")
        return
    if args.out is None or args.vocab_dir is None:
        parser.error("give MODEL OUT.gguf --vocab-dir DIR")
    m = MODELS[args.model]
    writer = gguf.GGUFWriter(args.out, m["arch"])
    writer.add_name(f"{args.model} (shapes only)")
    vocab = copy_tokenizer(writer, args.vocab_dir / m["vocab_file"])
    writer.add_context_length(m["context"])
    writer.add_embedding_length(m["embd"])
    writer.add_block_count(m["layers"])
    writer.add_feed_forward_length(m["ff"])
    writer.add_head_count(m["heads"])
    writer.add_head_count_kv(m["kv_heads"])
    writer.add_vocab_size(vocab)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(m["embd"] // m["heads"])
    writer.add_rope_freq_base(m["rope_base"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)

    total = padded = 0
    alignment = 32  # gguf's default: each tensor's data starts aligned
    for name, ne, type_name in llama_tensors(m, vocab):
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
