#!/usr/bin/env python3
"""Generates a few tokens with llama.cpp through xllamacpp (its C++ server, from a prebuilt wheel).

xllamacpp runs llama.cpp's own server code: before loading, llama.cpp's fit pass measures the
model (a no_alloc load sized with ggml_gallocr_reserve_n_size), as every llama.cpp tool does by
default. Run under `gallocsim capture` to record that pass, the scheduler's reserves and the real
prompt and decode graphs. Takes generate.py's options that llama_capture.sh passes.

    generate_xllamacpp.py MODEL.gguf [--prompt TEXT] [--tokens N] [--context N] [--gpu-layers N] [--verbose] [--fit-pass]
"""
import argparse

import xllamacpp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--prompt", default="The graph allocator plans memory")
    parser.add_argument("--tokens", type=int, default=4)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--gpu-layers", type=int, default=0)
    parser.add_argument("--verbose", action="store_true", help="accepted for generate.py's callers; the server logs anyway")
    parser.add_argument("--fit-pass", action="store_true", help="accepted for generate.py's callers: llama.cpp fits by itself")
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_ctx = params.n_batch = params.n_ubatch = args.context
    params.n_parallel = 1
    params.n_gpu_layers = args.gpu_layers
    params.cpuparams.n_threads = 1
    server = xllamacpp.Server(params)
    out = server.handle_completions({"prompt": args.prompt, "max_tokens": args.tokens, "temperature": 0.0})
    print(f"generated {out['usage']['completion_tokens']} tokens after a prompt of {out['usage']['prompt_tokens']}")


if __name__ == "__main__":
    main()
