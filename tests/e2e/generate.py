#!/usr/bin/env python3
"""Generates a few tokens with llama.cpp (through llama-cpp-python) from a GGUF model.

Run under `gallocsim capture` to record every graph llama.cpp plans: the scheduler's worst-case
reserves (prompt-sized and one-token graphs) and the real prompt and decode graphs.

    generate.py MODEL.gguf [--prompt TEXT] [--tokens N] [--context N] [--gpu-layers N] [--verbose] [--fit-pass]

--fit-pass first measures the model as llama.cpp's fit pass does (common/fit.cpp, which the
llama.cpp programs run before loading unless told not to, and which llama-cpp-python cannot call):
a load with no_alloc and no mmap, whose weights and KV cache get buffers without memory, and a
context on it, whose scheduler sizes its compute buffers with ggml_gallocr_reserve_n_size.
"""
import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import llama_cpp


HERE = pathlib.Path(__file__).resolve().parent
VOCAB = HERE.parents[1] / "build/upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models"


def write_tiny_model(arch: str) -> str:
    path = pathlib.Path(tempfile.mkdtemp(prefix="gallocsim-tiny-")) / f"tiny-{arch}.gguf"
    subprocess.run([sys.executable, str(HERE / "write_tiny_model.py"), arch, str(path), "--vocab-dir", str(VOCAB)],
                   check=True, stdout=subprocess.DEVNULL)
    return str(path)


def measure_as_fit_pass(model: str, context: int, gpu_layers: int) -> None:
    """common/fit.cpp's common_get_device_memory_data_impl, through llama.cpp's C API."""
    mparams = llama_cpp.llama_model_default_params()
    mparams.n_gpu_layers = gpu_layers
    mparams.no_alloc = True
    mparams.load_mode = 0  # LLAMA_LOAD_MODE_NONE: the fit pass reads no weights
    loaded = llama_cpp.llama_model_load_from_file(model.encode(), mparams)
    if not loaded:
        sys.exit(f"{model}: the fit pass's load (no_alloc) failed")
    cparams = llama_cpp.llama_context_default_params()
    cparams.n_ctx = cparams.n_batch = cparams.n_ubatch = context
    cparams.n_threads = cparams.n_threads_batch = 1
    ctx = llama_cpp.llama_init_from_model(loaded, cparams)
    if not ctx:
        sys.exit(f"{model}: the fit pass's context failed")
    llama_cpp.llama_free(ctx)
    llama_cpp.llama_model_free(loaded)
    print("fit pass measured", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", help="the GGUF to load (or --tiny-model)")
    parser.add_argument("--tiny-model", metavar="ARCH",
                        help="write a tiny random-weight model of ARCH (write_tiny_model.py) to a temporary file and "
                             "load that: a program anyone with the venv can run, as the docs' screenshots do")
    parser.add_argument("--prompt", default="The graph allocator plans memory")
    parser.add_argument("--tokens", type=int, default=4)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--gpu-layers", type=int, default=0, help="layers offloaded to a GPU backend, if built in")
    parser.add_argument("--verbose", action="store_true", help="llama.cpp's own log on standard error")
    parser.add_argument("--sleep-after-load", type=float, default=0,
                        help="seconds to wait once the context exists (its graphs reserved), then say so on standard "
                             "error: a watcher's lines for the reserves must come before that")
    parser.add_argument("--fit-pass", action="store_true",
                        help="measure first as llama.cpp's fit pass does (a no_alloc load), then load and generate")
    args = parser.parse_args()

    if args.tiny_model:
        args.model = write_tiny_model(args.tiny_model)
    elif not args.model:
        parser.error("give MODEL.gguf or --tiny-model ARCH")
    if args.fit_pass:
        measure_as_fit_pass(args.model, args.context, args.gpu_layers)
    llm = llama_cpp.Llama(model_path=args.model, n_ctx=args.context, n_batch=args.context,
                          n_threads=1, seed=1, verbose=args.verbose, n_gpu_layers=args.gpu_layers)
    if args.sleep_after_load > 0:
        time.sleep(args.sleep_after_load)
        print("context created", file=sys.stderr, flush=True)
    if args.tiny_model:
        shutil.rmtree(pathlib.Path(args.model).parent)  # mapped already: the file's pages stay until the end
    out = llm(args.prompt, max_tokens=args.tokens, temperature=0.0)
    print(f"generated {out['usage']['completion_tokens']} tokens "
          f"after a prompt of {out['usage']['prompt_tokens']}")


if __name__ == "__main__":
    main()
