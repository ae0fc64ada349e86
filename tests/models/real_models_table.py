#!/usr/bin/env python3
"""Prints docs/real-models.md's table from a corpus of real-size captures (capture_corpus.sh's output).

For each capture (MODEL-cCONTEXT-uUBATCH[-fa]) it takes the largest graph llama.cpp reserved (the
micro-batch graph), asks `gallocsim why` where its buffer's size was set and what the bound is, and
`gallocsim policy compare` what each policy would plan for it.

    real_models_table.py GALLOCSIM CORPUS_DIR POLICY.json [POLICY.json ...]
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

NAME = re.compile(r"^(?P<model>.+)-c(?P<context>\d+)-u(?P<ubatch>\d+)(?P<fa>-fa)?(?:-kv(?P<kv>\w+))?$")


def mib(n):
    return f"{n / 2**20:,.2f} MiB" if n < 2**30 else f"{n / 2**30:,.3f} GiB"


def run_json(*args):
    out = subprocess.run(args, check=False, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    gallocsim, corpus, policies = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3:]
    rows = []
    for capture in sorted(p for p in corpus.iterdir() if p.is_dir() and NAME.match(p.name)):
        m = NAME.match(capture.name)
        args = [gallocsim, "policy", "compare", str(capture), "--json"]
        for policy in policies:
            args += ["--policy", policy]
        report = run_json(*args)
        largest = max(report["graphs"], key=lambda g: g["plans"][0]["total"] or 0)
        graph_file = pathlib.Path(largest["file"])
        with tempfile.TemporaryDirectory() as tmp:
            copy = pathlib.Path(tmp) / "graph.json"
            shutil.copy(graph_file, copy)
            why = run_json(gallocsim, "why", str(copy), "--json")
        buffer = max(why["buffers"], key=lambda b: b["size"])
        peak = buffer["peak"] or {}
        top = buffer["live"][0] if buffer["live"] else {"name": "-", "bytes": 0}
        ggml = largest["plans"][0]["total"]
        bound = largest["lower_bound"]
        others = [p["total"] for p in largest["plans"][1:]]
        rows.append((m["model"], int(m["context"]), int(m["ubatch"]), ("on" if m["fa"] else "off") + (f", KV {m['kv']}" if m["kv"] else ""), ggml,
                     f"{peak.get('node_step', '-')} of {why['node_steps']}: `{peak.get('node') or 'before the first node'}`",
                     f"`{top['name']}` {mib(top['bytes'])}", bound, ggml / bound if bound else 0.0, others,
                     largest["nodes"]))
    head = "| model | context | micro-batch | flash attn | nodes | compute buffer | set at (node step: node) | largest live tensor | bound | ggml / bound |"
    head += "".join(f" {pathlib.Path(p).stem} |" for p in policies)
    print(head)
    print("|" + "---|" * (10 + len(policies)))
    rows.sort(key=lambda r: r[:4])
    for model, ctx, ub, fa, ggml, at, top, bound, ratio, others, nodes in rows:
        line = f"| {model} | {ctx:,} | {ub:,} | {fa} | {nodes:,} | {mib(ggml)} | {at} | {top} | {mib(bound)} | {ratio:.3f} |"
        for other in others:
            line += f" {'broken' if other is None else ('same' if other == ggml else ('-' if other < ggml else '+') + mib(abs(ggml - other)))} |"
        print(line)


if __name__ == "__main__":
    main()
