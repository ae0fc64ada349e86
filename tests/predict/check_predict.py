#!/usr/bin/env python3
"""`gallocsim predict` against llama.cpp itself, on one GGUF (run by predict_check.sh with the venv's Python).

    check_predict.py GALLOCSIM MODEL.gguf WORK_DIR --ctx 64,512 --ubatch 32,64 --flash-attn off,on

For every configuration (the batch is the micro-batch, as reserve.py makes it) it checks predict's
answer against two things it does not compute:
  1. llama.cpp's own log line, "CPU compute buffer size = X MiB", from a real load of MODEL.gguf
     (llama-cpp-python's Llama, verbose, its defaults: the weights read and, for Q4_0, repacked);
     predict's bytes, rounded to two decimals of a MiB as llama.cpp rounds them, must read the same.
  2. a capture of that real load (`gallocsim capture` of tests/models/reserve.py on MODEL.gguf): the
     largest buffer the capture reports, in bytes, must be predict's compute buffer exactly.
Both load MODEL.gguf as it is, weights and all, while predict loads its weightless copy; so a GGUF
with real weights checks that the weightless answer is the weighted one.
Prints "N of N configurations agree" or the differences, and exits 1 on any.
"""
import argparse
import itertools
import json
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
RESERVE = HERE.parent / "models" / "reserve.py"


def llama_log_compute(model, ctx, ubatch, flash, embedding):
    """The MiB text of llama.cpp's "CPU compute buffer size" line for a real load, in a process of its own."""
    code = ("import sys, llama_cpp\n"
            "llama_cpp.Llama(model_path=sys.argv[1], n_ctx=int(sys.argv[2]), n_batch=int(sys.argv[3]),"
            " n_ubatch=int(sys.argv[3]), flash_attn=sys.argv[4] == 'on', n_threads=1, verbose=True,"
            " embedding=sys.argv[5] == 'yes')\n")
    run = subprocess.run([sys.executable, "-c", code, str(model), str(ctx), str(ubatch), flash,
                          "yes" if embedding else "no"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"llama.cpp could not load {model}: {run.stderr[-2000:]}")
    found = re.findall(r"CPU compute buffer size =\s+([0-9.]+) MiB", run.stderr)
    if len(found) != 1:
        sys.exit(f"expected one CPU compute buffer line in llama.cpp's log, found {found}")
    return found[0]


def captured_largest_buffer(gallocsim, model, ctx, ubatch, flash, embedding, out):
    """The bytes `gallocsim capture` reports as the largest buffer of a real load's reserves."""
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([gallocsim, "capture", "--out", str(out), "--", sys.executable, str(RESERVE), str(model),
                          "--context", str(ctx), "--ubatch", str(ubatch), "--flash-attn", flash]
                         + (["--embedding"] if embedding else []),
                         capture_output=True, text=True)
    match = re.search(r"^largest buffer: (\d+) bytes", run.stdout, re.M)
    if run.returncode != 0 or not match:
        sys.exit(f"the capture of a real load failed: {run.stdout[-2000:]} {run.stderr[-2000:]}")
    return int(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gallocsim")
    parser.add_argument("model", type=pathlib.Path)
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--ctx", default="64,512")
    parser.add_argument("--ubatch", default="32,64")
    parser.add_argument("--flash-attn", default="off,on")
    parser.add_argument("--embedding", action="store_true", help="an embedding context (BERT)")
    args = parser.parse_args()
    out = args.work / (args.model.stem + "-predict")
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([args.gallocsim, "predict", str(args.model), "--json", "--out", str(out), "--ctx", args.ctx,
                          "--ubatch", args.ubatch, "--batch", args.ubatch, "--flash-attn", args.flash_attn,
                          "--python", sys.executable] + (["--embedding"] if args.embedding else []),
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"gallocsim predict failed ({run.returncode}): {run.stderr}")
    rows = json.loads(run.stdout)["rows"]
    # --batch takes a list too, so predict made every (ubatch, batch) pair: keep batch == ubatch.
    rows = {(r["ctx"], r["ubatch"], r["flash_attn"]): r for r in rows if r["batch"] == r["ubatch"]}
    wanted = list(itertools.product([int(c) for c in args.ctx.split(",")], [int(u) for u in args.ubatch.split(",")],
                                    args.flash_attn.split(",")))
    failures = 0
    for ctx, ubatch, flash in wanted:
        row = rows.get((ctx, ubatch, flash))
        if row is None or row["error"]:
            print(f"ctx {ctx} ubatch {ubatch} FA {flash}: no answer from predict ({row and row['error']})")
            failures += 1
            continue
        predicted = row["compute_bytes"]
        logged = llama_log_compute(args.model, ctx, ubatch, flash, args.embedding)
        captured = captured_largest_buffer(args.gallocsim, args.model, ctx, ubatch, flash, args.embedding,
                                           args.work / "real-load")
        rounded = f"{predicted / 2**20:.2f}"
        verdict = "agrees" if rounded == logged and captured == predicted else "DIFFERS"
        failures += verdict != "agrees"
        print(f"ctx {ctx} ubatch {ubatch} FA {flash}: predict {predicted} bytes ({rounded} MiB), llama.cpp's log "
              f"{logged} MiB, capture of a real load {captured} bytes: {verdict}")
    print(f"{len(wanted) - failures} of {len(wanted)} configurations agree")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
