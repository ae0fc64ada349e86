#!/usr/bin/env python3
"""Creates a llama.cpp context on a model and decodes nothing: llama.cpp reserves its compute graphs.

Run under `gallocsim capture` on a file write_real_shape.py wrote (no weights): what is captured
is what llama.cpp plans for that model at that context, micro-batch and attention.

    reserve.py MODEL.gguf [--context N] [--ubatch N] [--flash-attn on|off] [--cache-type f16|q8_0|q4_0]
               [--embedding]
"""
import argparse

import llama_cpp

CACHE_TYPES = {"f16": llama_cpp.GGML_TYPE_F16, "q8_0": llama_cpp.GGML_TYPE_Q8_0, "q4_0": llama_cpp.GGML_TYPE_Q4_0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--ubatch", type=int, default=512, help="the micro-batch, the largest graph reserved")
    parser.add_argument("--flash-attn", choices=["on", "off"], default="off")
    parser.add_argument("--cache-type", choices=sorted(CACHE_TYPES),
                        help="the KV cache's type, keys and values (llama.cpp's default: f16); a quantized V "
                             "cache needs flash attention on")
    parser.add_argument("--embedding", action="store_true",
                        help="an embedding context (pooled outputs, no logits): what encoders such as BERT run")
    parser.add_argument("--verbose", action="store_true", help="llama.cpp's own log on standard error")
    args = parser.parse_args()

    # use_mmap: the weights are a hole in the file; mapping it reads nothing. n_batch = n_ubatch:
    # the scheduler's worst case is one micro-batch. Options left out keep llama-cpp-python's defaults.
    extra = {}
    if args.cache_type:
        extra.update(type_k=CACHE_TYPES[args.cache_type], type_v=CACHE_TYPES[args.cache_type])
    if args.embedding:
        extra.update(embedding=True)
    llm = llama_cpp.Llama(model_path=args.model, n_ctx=args.context, n_batch=args.ubatch, n_ubatch=args.ubatch,
                          flash_attn=args.flash_attn == "on", n_threads=1, use_mmap=True, verbose=args.verbose,
                          **extra)
    print(f"context of {llm.n_ctx()} tokens created, micro-batch {args.ubatch}, flash attention {args.flash_attn}"
          + (f", KV cache {args.cache_type}" if args.cache_type else "") + (", embeddings" if args.embedding else ""))


if __name__ == "__main__":
    main()
