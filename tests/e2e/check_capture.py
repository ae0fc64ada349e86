#!/usr/bin/env python3
"""Checks that a capture of llama.cpp generating text holds what the scheduler must have planned.

llama.cpp's scheduler reserves its compute buffer on worst-case graphs before the first decode
(one with a full micro-batch of tokens, one with a single token) and then calls alloc_graph on
every real graph (the prompt, then one graph per generated token but the last, whose logits are
never needed, when graph reuse is off). So a capture of a run that generated N tokens after a
prompt must contain: reserve calls on a graph with ubatch tokens and on one with 1 token (the
2024 scheduler reserved the micro-batch only), and at least N alloc_graph calls that returned
true (the prompt and N - 1 decodes).

With a GPU backend (llama.cpp's Vulkan backend on Mesa's CPU driver) it also checks what makes
that run worth replaying: --buffer-types the buffer types every graph names (Vulkan0 and the
host buffer type the CPU backend then uses, Vulkan_Host), --chunked that the small max size the
test forces split every buffer of some call into chunks, --split that the scheduler split a graph
between the two backends and kept a split's input alive with a view placed before the input's
own node (the case gallocsim's loader once refused).

--fit-pass checks that the capture holds llama.cpp's fit pass (generate.py --fit-pass): a
ggml_gallocr_reserve_n_size call on a ggml-graph/2 graph whose weights are in buffers without data
(`"data": "buffer"`), none with data of its own (a no_alloc load gives nothing memory).

--llama-log with --gallocsim compares the scheduler splits `gallocsim why` finds in the reserved
graphs with the count llama.cpp itself logged ("sched_reserve: ... splits = 24 / 2": the prompt-
sized graph, then the one-token graph; one number when both are the same).

    check_capture.py DIR --reserved-tokens U[,1] --generated N [--buffer-types A,B] [--chunked] [--split]
                     [--fit-pass] [--llama-log FILE --gallocsim PATH]
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys


def tokens_of(graph: dict) -> int | None:
    """The batch size a llama.cpp graph was built for: the length of its token input."""
    for tensor in graph["tensors"]:
        if tensor.get("original_name", tensor["name"]) in ("inp_tokens", "inp_embd") and tensor.get("type") == "i32":
            return tensor["ne"][0]
    return None


def has_dependency_view_before_its_source(graph: dict) -> bool:
    """A node that reads a node placed after it: the scheduler's view of a split's input."""
    position = {name: i for i, name in enumerate(graph["nodes"])}
    tensors = {tensor["name"]: tensor for tensor in graph["tensors"]}
    return any(position.get(src, -1) > i for i, name in enumerate(graph["nodes"])
               for src in tensors[name].get("src", []) if src is not None)


def gpu_problems(calls: list[tuple[dict, dict]], args) -> list[str]:
    problems = []
    if args.buffer_types:
        wanted = args.buffer_types.split(",")
        for call, graph in calls:
            names = [buffer_type["name"] for buffer_type in graph.get("buffer_types", [])]
            if names != wanted:
                problems.append(f"call {call['call']} plans for buffer types {names}, expected {wanted}")
                break
    if args.chunked and not any(call.get("chunk_sizes") and all(len(chunks) > 1 for chunks in call["chunk_sizes"])
                                for call, _ in calls):
        problems.append("no call has more than one chunk in every buffer")
    if args.split and not any(len(set(graph.get("node_buffer_ids", []))) > 1 and has_dependency_view_before_its_source(graph)
                              for _, graph in calls):
        problems.append("no graph is split between the buffer types with a split input's view before its source")
    return problems


def fit_pass_problems(calls: list[tuple[dict, dict]]) -> list[str]:
    measured = [graph for call, graph in calls if call["function"] == "ggml_gallocr_reserve_n_size"]
    if not measured:
        return ["no ggml_gallocr_reserve_n_size call: the fit pass was not captured"]
    for graph in measured:
        data = [tensor.get("data") for tensor in graph["tensors"]]
        if graph["format"] == "ggml-graph/2" and "buffer" in data and True not in data:
            return []
    return ["no reserve_n_size graph is a ggml-graph/2 graph with tensors in buffers without data and none with data"]


def split_problems(calls: list[tuple[dict, dict]], args) -> list[str]:
    """llama.cpp's own count of scheduler splits against what `gallocsim why` reads off the graphs."""
    found = re.search(r"splits = (\d+)(?: / (\d+))?", args.llama_log.read_text(errors="replace"))
    if not found:
        return [f"{args.llama_log}: llama.cpp logged no 'splits = ' line"]
    logged = {int(args.reserved_tokens.split(",")[0]): int(found[1]), 1: int(found[2] or found[1])}
    problems = []
    for tokens, count in logged.items():
        graph = next((call["graph"] for call, g in calls
                      if call["function"].startswith("ggml_gallocr_reserve") and tokens_of(g) == tokens), None)
        if graph is None:
            problems.append(f"no reserved {tokens}-token graph to count splits in")
            continue
        why = json.loads(subprocess.run([args.gallocsim, "why", "--json", str(args.dir / graph)],
                                        capture_output=True, text=True, check=True).stdout)
        splits = len(why["splits"]) or 1  # a graph without the scheduler's inputs is one split
        if splits != count:
            problems.append(f"{graph} ({tokens} tokens): gallocsim finds {splits} scheduler splits, llama.cpp logged {count}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=pathlib.Path)
    parser.add_argument("--reserved-tokens", required=True, help="graph sizes that must have been reserved: 64,1")
    parser.add_argument("--generated", type=int, required=True)
    parser.add_argument("--buffer-types", help="the buffer types every graph must name, in order: Vulkan0,Vulkan_Host")
    parser.add_argument("--chunked", action="store_true", help="some call must have more than one chunk in every buffer")
    parser.add_argument("--split", action="store_true", help="some graph must be split between the buffer types")
    parser.add_argument("--fit-pass", action="store_true", help="the capture must hold llama.cpp's fit pass")
    parser.add_argument("--llama-log", type=pathlib.Path, help="llama.cpp's log of the run, with its count of splits")
    parser.add_argument("--gallocsim", help="the gallocsim executable, to count splits with (with --llama-log)")
    args = parser.parse_args()

    sessions = sorted(args.dir.glob("session-*.jsonl"))
    if not sessions:
        print(f"{args.dir}: no session was captured")
        return 1
    reserved_tokens, allocs, calls = set(), 0, []
    for session in sessions:
        lines = session.read_text().splitlines()
        for line in lines[1:]:
            call = json.loads(line)
            graph = json.loads((args.dir / call["graph"]).read_text())
            calls.append((call, graph))
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
    problems += gpu_problems(calls, args)
    if args.fit_pass:
        problems += fit_pass_problems(calls)
    if args.llama_log:
        problems += split_problems(calls, args)
    for problem in problems:
        print(f"{args.dir}: {problem}")
    if not problems:
        print(f"{args.dir}: {len(sessions)} sessions; reserves on {sorted(t for t in reserved_tokens if t)}-token graphs; "
              f"{allocs} alloc_graph calls" + ("; the fit pass's no_alloc graph" if args.fit_pass else "") + ("; scheduler splits as llama.cpp logged them" if args.llama_log else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
