#!/usr/bin/env python3
"""Writes a tiny random-weight whisper model in whisper.cpp's own binary format (ggml .bin).

The layout is the one whisper_model_load (whisper.cpp/src/whisper.cpp) reads: the "ggml"
magic, eleven int32 hparams, the mel filter bank, the vocabulary, then every tensor as
(n_dims, name length, ttype, ne[0..n_dims), name, data), with the names of whisper-arch.h.
The weights are random (fixed seed), so the transcript is noise, but the graphs whisper.cpp
plans for it (encoder, cross-attention, decoder, batched decoders) are the real ones, only
narrower and shallower.

Shapes are in ggml order (ne[0] first, contiguous). With ftype 1 (F16) the matrices and both
convolution kernels are F16 and everything else F32, as the loader expects: an all-F32 model
(ftype 0) makes the convolutions F32, which whisper.cpp's CPU backend aborts on.

The token ids whisper.cpp uses are fixed (eot 50256, sot 50257, ..., beg 50363 for an English
model, n_vocab < 51865), so n_vocab must stay above token_beg; the default is the real English
size, 51864 (token_beg + 1501 timestamps). The vocabulary written to the file is small (the
printable ASCII characters, " " included, which whisper.cpp looks up); whisper_model_load
adds the missing ids itself ("[_EOT_]", "[_SOT_]", "[_TT_n]", "[_extra_token_n]"...). The token
embedding (n_state x n_vocab, F16) dominates the size, so n_state defaults to 16 to keep the
file under 2 MB.

    write_tiny_whisper.py OUT.bin [--state 16 --heads 2 --audio-layers 2 --text-layers 1
                                  --audio-ctx 64 --text-ctx 64]
"""
import argparse
import struct

import numpy as np

GGML_FILE_MAGIC = 0x67676D6C  # "ggml"
GGML_TYPE_F32, GGML_TYPE_F16 = 0, 1
TOKEN_BEG_EN = 50363          # whisper_vocab::token_beg for an English-only model
N_VOCAB_EN = 51864            # the real English-only vocabulary: token_beg + 1 + 1500 timestamps
N_FFT = 201                   # 1 + WHISPER_N_FFT/2


def tensor_list(n_state: int, n_mels: int, n_vocab: int, audio_ctx: int, text_ctx: int,
                audio_layers: int, text_layers: int):
    """(name, ne in ggml order, kind) for every tensor whisper_model_load creates.

    kind: "w" a matrix (wtype), "conv" a convolution kernel (vtype), "ln" a norm scale,
    "b" a bias or norm offset, "pe" a positional embedding."""
    s = n_state
    out = [("encoder.positional_embedding", (s, audio_ctx), "pe"),
           ("encoder.conv1.weight", (3, n_mels, s), "conv"),
           ("encoder.conv1.bias", (1, s), "b"),
           ("encoder.conv2.weight", (3, s, s), "conv"),
           ("encoder.conv2.bias", (1, s), "b"),
           ("encoder.ln_post.weight", (s,), "ln"),
           ("encoder.ln_post.bias", (s,), "b")]

    def block(prefix: str, attn: str, with_mlp: bool):
        items = [(f"{prefix}.{attn}_ln.weight", (s,), "ln"), (f"{prefix}.{attn}_ln.bias", (s,), "b"),
                 (f"{prefix}.{attn}.query.weight", (s, s), "w"), (f"{prefix}.{attn}.query.bias", (s,), "b"),
                 (f"{prefix}.{attn}.key.weight", (s, s), "w"),
                 (f"{prefix}.{attn}.value.weight", (s, s), "w"), (f"{prefix}.{attn}.value.bias", (s,), "b"),
                 (f"{prefix}.{attn}.out.weight", (s, s), "w"), (f"{prefix}.{attn}.out.bias", (s,), "b")]
        if with_mlp:
            items += [(f"{prefix}.mlp_ln.weight", (s,), "ln"), (f"{prefix}.mlp_ln.bias", (s,), "b"),
                      (f"{prefix}.mlp.0.weight", (s, 4 * s), "w"), (f"{prefix}.mlp.0.bias", (4 * s,), "b"),
                      (f"{prefix}.mlp.2.weight", (4 * s, s), "w"), (f"{prefix}.mlp.2.bias", (s,), "b")]
        return items

    for i in range(audio_layers):
        out += block(f"encoder.blocks.{i}", "attn", True)
    out += [("decoder.positional_embedding", (s, text_ctx), "pe"),
            ("decoder.token_embedding.weight", (s, n_vocab), "w"),
            ("decoder.ln.weight", (s,), "ln"),
            ("decoder.ln.bias", (s,), "b")]
    for i in range(text_layers):
        out += block(f"decoder.blocks.{i}", "attn", True)
        out += block(f"decoder.blocks.{i}", "cross_attn", False)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the model file to write (whisper.cpp ggml .bin)")
    parser.add_argument("--state", type=int, default=16, help="n_audio_state = n_text_state")
    parser.add_argument("--heads", type=int, default=2, help="n_audio_head = n_text_head")
    parser.add_argument("--audio-layers", type=int, default=2, help="n_audio_layer")
    parser.add_argument("--text-layers", type=int, default=1,
                        help="n_text_layer (2 makes whisper.cpp take it for a distilled model and force no_timestamps)")
    parser.add_argument("--audio-ctx", type=int, default=64,
                        help="n_audio_ctx: encoder positions; one window is 2*n_audio_ctx mel frames (10 ms each)")
    parser.add_argument("--text-ctx", type=int, default=64, help="n_text_ctx: decoder positions")
    parser.add_argument("--vocab", type=int, default=N_VOCAB_EN,
                        help=f"n_vocab, English-only: above {TOKEN_BEG_EN}, below 51865")
    parser.add_argument("--mels", type=int, default=80)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not TOKEN_BEG_EN < args.vocab < 51865:
        parser.error(f"--vocab must lie in ({TOKEN_BEG_EN}, 51865)")
    if args.state % args.heads:
        parser.error("--state must be a multiple of --heads")

    rng = np.random.default_rng(args.seed)
    ftype = 1  # GGML_FTYPE_MOSTLY_F16: matrices and convolutions F16, the rest F32
    with open(args.out, "wb") as f:
        f.write(struct.pack("<I", GGML_FILE_MAGIC))
        f.write(struct.pack("<11i", args.vocab, args.audio_ctx, args.state, args.heads, args.audio_layers,
                            args.text_ctx, args.state, args.heads, args.text_layers, args.mels, ftype))

        # mel filter bank: n_mel x n_fft floats (triangles are not needed for noise; small positives)
        filters = rng.uniform(0.0, 0.02, size=(args.mels, N_FFT)).astype("<f4")
        f.write(struct.pack("<2i", args.mels, N_FFT))
        f.write(filters.tobytes())

        # vocabulary: the printable ASCII characters (" " among them); the loader adds the rest
        words = [chr(c).encode() for c in range(32, 127)]
        f.write(struct.pack("<i", len(words)))
        for w in words:
            f.write(struct.pack("<I", len(w)))
            f.write(w)

        n_tensors = 0
        for name, ne, kind in tensor_list(args.state, args.mels, args.vocab, args.audio_ctx,
                                          args.text_ctx, args.audio_layers, args.text_layers):
            shape = tuple(reversed(ne))  # numpy C order: ne[0] is the contiguous axis
            if kind == "ln":
                data = np.ones(shape)
            elif kind == "b":
                data = rng.normal(0.0, 0.02, size=shape)
            elif kind == "pe":
                data = rng.normal(0.0, 0.1, size=shape)
            else:
                data = rng.normal(0.0, 1.0 / np.sqrt(ne[0] if kind == "w" else ne[0] * ne[1]), size=shape)
            ttype = GGML_TYPE_F16 if kind in ("w", "conv") else GGML_TYPE_F32
            data = data.astype("<f2" if ttype == GGML_TYPE_F16 else "<f4")
            encoded = name.encode()
            f.write(struct.pack("<3i", len(ne), len(encoded), ttype))
            f.write(struct.pack(f"<{len(ne)}i", *ne))
            f.write(encoded)
            f.write(data.tobytes())
            n_tensors += 1
        size = f.tell()
    print(f"wrote {args.out}: {n_tensors} tensors, n_state {args.state}, {args.audio_layers}+{args.text_layers} layers, "
          f"n_audio_ctx {args.audio_ctx}, n_text_ctx {args.text_ctx}, n_vocab {args.vocab}, {size} bytes")


if __name__ == "__main__":
    main()
