#!/usr/bin/env python3
"""Checks that a capture of llama.cpp generating text holds what the scheduler must have planned.

llama.cpp's scheduler reserves its compute buffer on worst-case graphs before the first decode
(one with a full micro-batch of tokens, one with a single token) and then calls alloc_graph on
every real graph (the prompt, then one graph per generated token but the last, whose logits are
never needed, when graph reuse is off). So a capture of a run that generated N tokens after a
prompt must contain: reserve calls on a graph with ubatch tokens and on one with 1 token (the
2024 scheduler reserved the micro-batch only), and at least N alloc_graph calls that returned
true (the prompt and N - 1 decodes).

    check_capture.py DIR --reserved-tokens U[,1] --generated N
"""
import argparse
import json
import pathlib
import sys


def tokens_of(graph: dict) -> int | None:
    """The batch size a llama.cpp graph was built for: the length of its token input."""
    for tensor in graph["tensors"]:
        if tensor.get("original_name", tensor["name"]) in ("inp_tokens", "inp_embd") and tensor.get("type") == "i32":
            return tensor["ne"][0]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=pathlib.Path)
    parser.add_argument("--reserved-tokens", required=True, help="graph sizes that must have been reserved: 64,1")
    parser.add_argument("--generated", type=int, required=True)
    args = parser.parse_args()

    sessions = sorted(args.dir.glob("session-*.jsonl"))
    if not sessions:
        print(f"{args.dir}: no session was captured")
        return 1
    reserved_tokens, allocs = set(), 0
    for session in sessions:
        lines = session.read_text().splitlines()
        for line in lines[1:]:
            call = json.loads(line)
            graph = json.loads((args.dir / call["graph"]).read_text())
            if call["function"].startswith("ggml_gallocr_reserve") and call["returned"] is not False:
                reserved_tokens.add(tokens_of(graph))
            elif call["function"] == "ggml_gallocr_alloc_graph" and call["returned"]:
                allocs += 1
    problems = []
    for wanted in (int(n) for n in args.reserved_tokens.split(",")):
        if wanted not in reserved_tokens:
            problems.append(f"no reserve on a {wanted}-token graph (reserved: {sorted(t for t in reserved_tokens if t)})")
    if allocs < args.generated:
        problems.append(f"{allocs} alloc_graph calls returned true, expected at least {args.generated}")
    for problem in problems:
        print(f"{args.dir}: {problem}")
    if not problems:
        print(f"{args.dir}: {len(sessions)} sessions; reserves on {sorted(t for t in reserved_tokens if t)}-token graphs; "
              f"{allocs} alloc_graph calls")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
