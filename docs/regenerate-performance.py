#!/usr/bin/env python3
"""Regenerates docs/performance.md from gallocsim's own measurements.

Run from the repository root after `cmake --build --preset default`:

    python3 docs/regenerate-performance.py [--quick]

It runs `gallocsim compare` on the built-in examples and the golden corpus (plan quality),
and the Google Benchmark targets planner_bench and executor_bench (speed), and
upstream_bench_ggml-d99724f2 (gallocsim against the real libggml from PyPI, when
.ci/install-upstream has run; with gallocsim built RelWithDebInfo in build/default and, when
build/release exists, Release), then writes docs/performance.md with the machine and date of
every figure. --quick runs fewer benchmark repetitions. --quality-only measures and rewrites
only the plan-quality section. --upstream-only measures and rewrites
only the section on the real library, keeping the rest of the file. --scale-only measures and
rewrites only the Scale section: every `gallocsim` command and the GUI, Release build
(build/release), on llama-style graphs of --scale-layers (default 32,1024,4096: about 964,
30.7k and 122,884 nodes), wall clock and peak memory of each process, each cut off after
--scale-timeout seconds (default 600), the median of --scale-runs runs of each (default 3).
--execution-only and --gui-only measure and rewrite
the executor's and the GUI's sections (build/default). Figures measured outside
this script (GPU runs) live in docs/performance-notes.md and are included as they are.
"""
import datetime
import glob
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "default")
GALLOCSIM = os.path.join(BUILD, "simulator", "gallocsim")
GOLDEN = os.path.join(ROOT, "..", "shared", "golden")
QUICK = "--quick" in sys.argv


def run(args, env=None):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          env=None if env is None else {**os.environ, **env}).stdout


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def compare(args):
    """compare --json, summed over buffer types: ggml, the two bounds, the best alternative, no reuse."""
    report = json.loads(run([GALLOCSIM, "compare", "--json", "--time-limit", "0.5", *args]))
    totals = {"ggml": 0, "bound": 0, "bound_without_in_place": 0, "best": 0, "no_reuse": 0}
    for t in report["buffer_types"]:
        totals["ggml"] += t["ggml"]["bytes"]
        totals["bound"] += t["lower_bound"]["bytes"]
        totals["bound_without_in_place"] += t["bound_without_in_place"]["bytes"]
        totals["best"] += t["best_alternative"]["bytes"]
        totals["no_reuse"] += t["no_reuse"]
    return totals


def r(a, b):
    return f"{a / b:.3f}" if b else "-"


def saved(t):
    """What ggml's in-place reuse saves: the share of the bound without it that the in-place bound avoids."""
    w = t["bound_without_in_place"]
    return f"{(w - t['bound']) / w:.1%}" if w else "-"


def ratio_row(name, t):
    return (f"| {name} | {t['ggml']:,} | {t['bound']:,} | {t['best']:,} | {t['bound_without_in_place']:,} | "
            f"{t['no_reuse']:,} | {r(t['ggml'], t['bound'])} | {r(t['best'], t['bound'])} | {saved(t)} |")


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def golden_category(path):
    name = os.path.basename(path).removesuffix(".json")
    return name.rsplit("-", 1)[-1] if name.startswith("random-") else name.split("-")[0]


CAPTURES = os.path.join(ROOT, "tests", "data", "captures")


def quality_section():
    out = ["## Plan quality", "",
           "Bytes each plan needs, summed over buffer types (`gallocsim compare --json`). **bound** is the "
           "in-place-aware lower bound: ggml's own in-place decisions taken as given (a chain of tensors "
           "that share memory is one block), the peak of live aligned bytes per buffer type; no plan that "
           "makes those decisions needs less, and ggml's plan is never below it (a test on every golden file, "
           "a property on 500 generated graphs per CI run). **best other** is the smallest of greedy by size, "
           "first fit and the exact search on the same blocks, in one arena per buffer type without chunks. "
           "**bound w/o in-place** gives every tensor its own block: **in-place saves** is how much of it "
           "ggml's in-place reuse avoids. A chunked ggml buffer counts all its chunks; the planners and the "
           "bounds ignore max_size, so where chunks are forced (`-chunked` files) ggml / bound measures "
           "what the chunking costs.", "",
           "| graph | ggml | bound | best other | bound w/o in-place | no reuse | ggml / bound | best / bound | in-place saves |",
           "|---|---|---|---|---|---|---|---|---|"]
    examples = [("seed", ["seed"]), ("mlp", ["mlp"]), ("gpt2", ["gpt2"]),
                ("llama 1 layer, 1 token", ["llama"]),
                ("llama 2 layers, 32 tokens", ["llama", "--layers", "2", "--tokens", "32"]),
                ("llama 32 layers, 1 token (decode)", ["llama", "--layers", "32"]),
                ("llama 4 layers, 512 tokens, embd 512", ["llama", "--layers", "4", "--tokens", "512", "--embd", "512", "--heads", "8", "--ff", "1376"]),
                ("llama 32 tokens, vocab 4096, 1 output row", ["llama", "--tokens", "32", "--vocab", "4096", "--outputs", "1"])]
    for name, args in examples:
        out.append(ratio_row(name, compare(args)))
    for path in sorted(glob.glob(os.path.join(GOLDEN, "llama-*.json"))):
        out.append(ratio_row(os.path.basename(path), compare([path])))
    captured = sorted(glob.glob(os.path.join(CAPTURES, "*", "graphs", "*.json")))
    if captured:
        out += ["", "Graphs captured from real llama.cpp runs (`tests/data/captures`, `gallocsim capture`), "
                "each graph the program's allocator planned:", "",
                "| capture | graph | nodes | ggml | bound | best other | bound w/o in-place | ggml / bound | best / bound | in-place saves |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for path in captured:
            t = compare([path])
            with open(path) as f:
                nodes = len(json.load(f).get("nodes", []))
            capture = os.path.basename(os.path.dirname(os.path.dirname(path)))
            out.append(f"| {capture} | {os.path.basename(path)} | {nodes} | {t['ggml']:,} | {t['bound']:,} | {t['best']:,} | "
                       f"{t['bound_without_in_place']:,} | {r(t['ggml'], t['bound'])} | {r(t['best'], t['bound'])} | {saved(t)} |")
    if os.path.isdir(GOLDEN):
        by_category = {}
        for path in sorted(glob.glob(os.path.join(GOLDEN, "*.json"))):
            t = compare([path])
            if not t["bound"]:
                continue
            by_category.setdefault(golden_category(path), []).append(t)
        out += ["", "Golden corpus by category (geometric means over the files; min and max of ggml / bound):", "",
                "| category | files | ggml / bound | min | max | best other / bound | in-place saves (mean) | ggml / no reuse |",
                "|---|---|---|---|---|---|---|---|"]
        for category, rows in sorted(by_category.items()):
            g = [t["ggml"] / t["bound"] for t in rows]
            savings = [(t["bound_without_in_place"] - t["bound"]) / t["bound_without_in_place"] for t in rows
                       if t["bound_without_in_place"]]
            out.append(f"| {category} | {len(rows)} | {geomean(g):.3f} | {min(g):.3f} | {max(g):.3f} | "
                       f"{geomean([t['best'] / t['bound'] for t in rows]):.3f} | "
                       f"{sum(savings) / len(savings):.1%} | "
                       f"{geomean([t['ggml'] / t['no_reuse'] for t in rows if t['no_reuse']]):.3f} |")
    return out


def benchmark(target, filter_=".*", env=None, build=BUILD):
    exe = os.path.join(build, target)
    if not os.path.exists(exe):
        return None
    # Repetitions run interleaved at random, so a burst of load on a shared machine spreads
    # over both sides of a ratio instead of landing on one of them.
    reps = "1" if QUICK else "5"
    text = run([exe, f"--benchmark_filter={filter_}", "--benchmark_format=json",
                f"--benchmark_repetitions={reps}", "--benchmark_enable_random_interleaving=true",
                "--benchmark_report_aggregates_only=true"], env)
    return json.loads(text)


def run_order(run_name):
    """Benchmarks run interleaved; tables list them by name, then by argument."""
    name, _, arg = run_name.partition("/")
    arg = arg.split("/")[0]
    return (name, int(arg) if arg.isdigit() else 0)


def medians_in_order(data):
    return sorted((b for b in data["benchmarks"] if b.get("aggregate_name", "median") == "median"),
                  key=lambda b: run_order(b["run_name"]))


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.0f} ns"


def to_ns(b):
    return b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]


def speed_section():
    out = ["## Planner speed", ""]
    # Not the exact planner's challenging instances: minutes a repetition, kept by hand in their own section.
    data = benchmark("simulator/planner_bench", "-BM_ExactChallenging")
    if data is None:
        return out + ["planner_bench was not built."]
    medians = dict(sorted(((b["run_name"], b) for b in data["benchmarks"]
                           if b.get("aggregate_name", "median") == "median"), key=lambda item: run_order(item[0])))
    out += ["CPU time per run (median), llama-style graphs (`simulator/planner_bench`). Bare = a fresh "
            "GraphAllocator, reserve_n and alloc_graph; traced = the same with a TraceRecorder attached and the "
            "trace taken.", "",
            "| nodes | bare | per node | traced | traced / bare | events |", "|---|---|---|---|---|---|"]
    for size in (100, 1000, 10000, 100000):
        bare, traced = medians.get(f"BM_PlanBare/{size}"), medians.get(f"BM_PlanTraced/{size}")
        if not bare or not traced:
            continue
        nodes = int(bare["nodes"])
        out.append(f"| {nodes:,} | {fmt_time(to_ns(bare))} | {fmt_time(to_ns(bare) / nodes)} | "
                   f"{fmt_time(to_ns(traced))} | {to_ns(traced) / to_ns(bare):.2f} | {int(traced['events']):,} |")
    paired = [medians.get(f"BM_TraceOverhead/{size}") for size in (100, 1000, 10000, 100000)]
    if any(paired):
        out += ["", "The recording goal (at most 1.5x the bare run) measured in pairs: each iteration runs the bare "
                "plan and then the traced plan of the same graph; fastest run of each (`BM_TraceOverhead`), median "
                "over the repetitions. The graph's tensors are described once and shared by its traces, as in the "
                "GUI; describing them is `BM_DescribeTensors`.", "",
                "| nodes | bare | traced | traced / bare | describing the tensors (once per graph) |",
                "|---|---|---|---|---|"]
        for size, b in zip((100, 1000, 10000, 100000), paired):
            if not b:
                continue
            describe = medians.get(f"BM_DescribeTensors/{size}")
            out.append(f"| {int(b['nodes']):,} | {fmt_time(b['bare_us'] * 1e3)} | {fmt_time(b['traced_us'] * 1e3)} | "
                       f"{b['ratio']:.2f} | {fmt_time(to_ns(describe)) if describe else ''} |")
    out += ["", "| cursor | events | CPU time |", "|---|---|---|"]
    for name, b in medians.items():
        if name.startswith("BM_CursorJump/") or name.startswith("BM_CursorStepForward/"):
            out.append(f"| {name.split('/')[0].removeprefix('BM_Cursor')} | {int(b['events']):,} | {fmt_time(to_ns(b))} |")
    for name, b in medians.items():
        if name.startswith("BM_TraceMemoryPerEvent/"):
            out.append(f"\nTrace memory: {b['bytes_per_event']:.1f} bytes per event ({int(b['events']):,} events).")
    return out


UPSTREAM_HEADING = "## Against the real upstream library"
UPSTREAM_BENCH = "fuzz/upstream/upstream_bench_ggml-d99724f2"


def cxx_flags(build):
    """The build type of a build folder and its C++ flags for that type, from its CMake cache."""
    cache = {}
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"^(CMAKE_BUILD_TYPE|CMAKE_CXX_FLAGS_[A-Z]+):\w+=(.*)$", line.strip())
                if m:
                    cache[m.group(1)] = m.group(2)
    except OSError:
        return None
    kind = cache.get("CMAKE_BUILD_TYPE", "")
    return kind, cache.get(f"CMAKE_CXX_FLAGS_{kind.upper()}", "")


def upstream_section():
    out = [UPSTREAM_HEADING, ""]
    builds = [b for b in (BUILD, os.path.join(ROOT, "build", "release"))
              if os.path.exists(os.path.join(b, UPSTREAM_BENCH))]
    if not builds:
        return out + ["upstream_bench_ggml-d99724f2 was not built (the real library is installed by "
                      "`.ci/install-upstream` before configuring)."]
    runs = []
    for build in builds:
        kind, flags = cxx_flags(build)
        data = benchmark(UPSTREAM_BENCH, build=build)
        medians = [b for b in data["benchmarks"] if b.get("aggregate_name", "median") == "median"]
        medians.sort(key=lambda b: (b["run_name"].split("/")[1], b["nodes"]))  # golden, llama, capture; by size
        runs.append((f"{kind} ({flags})", {b["run_name"]: b for b in medians}, data["context"]))
    out += ["`fuzz/upstream/upstream_bench_ggml-d99724f2`: gallocsim's bare planner against the real "
            "`libggml-base.so` of ggml d99724f2 as pip builds it from PyPI (ggml-python 0.0.45, "
            f"`{os.path.relpath(runs[0][2].get('upstream', '').split(', ', 1)[-1], ROOT)}`), in one process on the same graphs. scikit-build-core builds it "
            "with CMake's default build type, Release (`-O3 -DNDEBUG`; the library holds none of ggml-alloc.c's "
            "`assert` texts, so NDEBUG was set). Each iteration plans the graph once with each side (a fresh "
            "allocator, reserve_n, alloc_graph, freeing), alternating which goes first; the fastest run of each side, "
            "median over the repetitions. ratio = gallocsim / upstream (below 1: gallocsim is faster). Golden files: "
            "the three with the most nodes; llama: `simulator/model/examples.hpp` llama-style graphs as in planner_bench; "
            "capture: graphs under tests/data/captures/ (when there).", ""]
    header = "| graph | nodes |" + "".join(f" upstream | gallocsim {kind} | ratio |" for kind, _, _ in runs)
    out += [header, "|---|---|" + "---|---|---|" * len(runs)]
    for name, b in runs[0][1].items():
        row = f"| {name.removeprefix('AgainstUpstream/')} | {int(b['nodes']):,} |"
        for _, medians, _ in runs:
            m = medians.get(name)
            row += (f" {fmt_time(m['upstream_us'] * 1e3)} | {fmt_time(m['gallocsim_us'] * 1e3)} | {m['ratio']:.2f} |"
                    if m else " | | |")
        out.append(row)
    return out


SCALE_HEADING = "## Scale"
RELEASE = os.path.join(ROOT, "build", "release")
SCALE_GRAPH = ["llama", "--embd", "4096", "--heads", "32", "--ff", "11008", "--vocab", "32000"]
SCALE_TOKENS, SCALE_OTHER_TOKENS = 512, 256


def option(name, default):
    """The value of `--name VALUE` or `--name=VALUE` on the command line."""
    for i, arg in enumerate(sys.argv):
        if arg == name and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return default


SCALE_LAYERS = [int(n) for n in option("--scale-layers", "32,1024,4096").split(",")]
SCALE_TIMEOUT = float(option("--scale-timeout", "600"))
SCALE_RUNS = max(1, int(option("--scale-runs", "3")))
TIME = "/usr/bin/time"


def measure(args, env=None):
    """Runs args with standard output to /dev/null: (wall seconds, max RSS in MB, exit status), the
    status None when it ran past SCALE_TIMEOUT. The wall clock is time.perf_counter around the process;
    the peak RSS is /usr/bin/time -v's, or without it the child's own rusage from os.wait4."""
    full_env = None if env is None else {**os.environ, **env}
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        argv = [TIME, "-v", "-o", report.name, *args] if os.path.exists(TIME) else list(args)
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=full_env,
                                start_new_session=True)
        # Past the limit the command and /usr/bin/time, a process group of their own, are killed.
        timer = threading.Timer(SCALE_TIMEOUT, os.killpg, (proc.pid, signal.SIGKILL))
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
        if wall >= SCALE_TIMEOUT:
            proc.returncode = -9
            return wall, None, None
        proc.returncode = os.waitstatus_to_exitcode(status)
        rss_kb = usage.ru_maxrss
        if argv[0] == TIME:
            # The wall clock stays perf_counter's: /usr/bin/time prints it to 10 ms, and it is the same
            # interval (less the start of /usr/bin/time itself, about a millisecond).
            text = report.read()
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
            if m:
                rss_kb = int(m.group(1))
            m = re.search(r"Exit status: (\d+)", text)
            code = int(m.group(1)) if m else proc.returncode
        else:
            code = proc.returncode
        return wall, rss_kb / 1024, code


def measure_median(args, env=None):
    """measure() SCALE_RUNS times: the run with the median wall clock (one run on a shared machine
    can land anywhere). A run cut off is not repeated."""
    runs = []
    for _ in range(SCALE_RUNS):
        runs.append(measure(args, env))
        if runs[-1][2] is None:
            return runs[-1]
    return sorted(runs, key=lambda r: r[0])[len(runs) // 2]


def scale_commands(gallocsim, gui, graph, other, tmp):
    """(row name, argv, environment) of each command timed on one graph."""
    out = []
    for name, args in (("plan", ["plan", graph]), ("plan --json", ["plan", graph, "--json"]),
                       ("trace", ["trace", graph]), ("trace --json", ["trace", graph, "--json"]),
                       ("stats", ["stats", graph]), ("render -o X.svg", ["render", graph, "-o", os.path.join(tmp, "x.svg")]),
                       ("compare", ["compare", graph]), ("diff FILE FILE2", ["diff", graph, other]),
                       ("why", ["why", graph]), ("walk -e l (to the last event)", ["walk", graph, "-e", "l"])):
        out.append((name, [gallocsim, *args], None))
    if os.path.exists(gui):
        out.append(("GUI: open, lay out, paint once (--screenshot)",
                    [gui, graph, "--screenshot", os.path.join(tmp, "x.png")], {"QT_QPA_PLATFORM": "offscreen"}))
    return out


# The goals: (command, layers of the graph it applies to, seconds, MB); None: no goal.
SCALE_GOALS = {
    "plan": [(4096, 3, 1024)], "plan --json": [(4096, 3, 1024)], "trace": [(4096, 3, 1024)],
    "stats": [(4096, 3, 1024)], "render -o X.svg": [(4096, 3, 1024)],
    "compare": [(4096, 3, 1024)], "diff FILE FILE2": [(4096, 3, 1024)], "why": [(4096, 3, 1024)],
    "walk -e l (to the last event)": [(4096, 2, 1024)],
    "GUI: open, lay out, paint once (--screenshot)": [(1024, 2, None), (4096, 10, 1536)],
}


def kilo(n):
    return f"{n / 1000:.3g}k" if n >= 1000 else str(n)


def scale_cell(result):
    wall, rss, code = result
    if code is None:
        return f"timeout (> {SCALE_TIMEOUT:g} s) | -"
    note = "" if code == 0 else f" (exit {code})"
    return f"{wall:.2f}{note} | {rss:,.0f}" if wall >= 1 else f"{wall:.3f}{note} | {rss:,.0f}"


# The one-plan issue's goal for every command line (not the GUI): at the largest graph at most
# ONE_PLAN_SECONDS, and at most ONE_PLAN_GROWTH times the time at the graph before it.
ONE_PLAN_SECONDS, ONE_PLAN_GROWTH = 2, 4.5


def one_plan_goal(name, results, nodes):
    if name.startswith("GUI") or len(SCALE_LAYERS) < 2:
        return ""
    a, b = SCALE_LAYERS[-2], SCALE_LAYERS[-1]
    ra, rb = results.get(a), results.get(b)
    limit = f"≤ {ONE_PLAN_SECONDS} s and ≤ {ONE_PLAN_GROWTH:g}x the {kilo(nodes[a])}-node time"
    if not ra or not rb or ra[2] is None or rb[2] is None or ra[0] <= 0:
        return f"{limit}: not measured"
    times = rb[0] / ra[0]
    missed = rb[0] > ONE_PLAN_SECONDS or times > ONE_PLAN_GROWTH or rb[2] != 0
    return f"{'**not met**' if missed else 'met'} ({limit}): {rb[0]:.2f} s, {times:.1f}x"


def scale_goal(name, results, nodes):
    verdicts = []
    for layers, seconds, mb in SCALE_GOALS.get(name, []):
        limit = f"≤ {seconds} s" + (f", ≤ {mb / 1024:g} GB" if mb else "")
        if layers not in results:
            verdicts.append(f"{limit} at {layers} layers: not measured")
            continue
        wall, rss, code = results[layers]
        at = f"{kilo(nodes[layers])} nodes"
        if code is None:
            verdicts.append(f"**not met** at {at} ({limit}): timeout")
            continue
        missed = wall > seconds or (mb is not None and rss > mb) or code != 0
        figure = f"{wall:.2f} s, {rss:,.0f} MB"
        verdicts.append(f"{'**not met**' if missed else 'met'} at {at} ({limit}): {figure}")
    return "; ".join(verdicts)


def provenance(binaries):
    """When the binaries were built, against the last commit: a binary older than it may lack its changes
    (and any build may hold uncommitted ones)."""
    try:
        commit, committed = run(["git", "-C", ROOT, "log", "-1", "--format=%h %ct"]).split()
    except (subprocess.CalledProcessError, OSError, ValueError):
        return "Binaries built " + ", ".join(
            datetime.datetime.fromtimestamp(os.path.getmtime(b), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            for b in binaries if os.path.exists(b)) + "."
    parts = []
    for b in binaries:
        if not os.path.exists(b):
            continue
        built = os.path.getmtime(b)
        when = datetime.datetime.fromtimestamp(built, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        stale = " (**older than the last commit**)" if built < int(committed) else ""
        parts.append(f"`{os.path.relpath(b, ROOT)}` built {when}{stale}")
    last = datetime.datetime.fromtimestamp(int(committed), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "; ".join(parts) + f"; last commit {commit} at {last}."


def scale_section():
    out = [SCALE_HEADING, ""]
    gallocsim = os.path.join(RELEASE, "simulator", "gallocsim")
    gui = os.path.join(RELEASE, "gui", "gallocsim-gui")
    if not os.path.exists(gallocsim):
        return out + ["build/release was not built (`cmake --preset release && cmake --build --preset release`)."]
    kind, flags = cxx_flags(RELEASE) or ("unknown build type", "")
    tmp = tempfile.mkdtemp(prefix="gallocsim-scale-")
    try:
        graphs, nodes, results = {}, {}, {}
        for layers in SCALE_LAYERS:
            graph = os.path.join(tmp, f"llama-{layers}l-t{SCALE_TOKENS}.json")
            other = os.path.join(tmp, f"llama-{layers}l-t{SCALE_OTHER_TOKENS}.json")
            for path, tokens in ((graph, SCALE_TOKENS), (other, SCALE_OTHER_TOKENS)):
                run([gallocsim, "examples", *SCALE_GRAPH, "--tokens", str(tokens), "--layers", str(layers), "-o", path])
            with open(graph) as f:
                nodes[layers] = len(json.load(f)["nodes"])
            graphs[layers] = (graph, other)
        names = []
        for layers in SCALE_LAYERS:
            graph, other = graphs[layers]
            for name, args, env in scale_commands(gallocsim, gui, graph, other, tmp):
                if name not in names:
                    names.append(name)
                results.setdefault(name, {})[layers] = measure_median(args, env)
                print(f"scale: {layers} layers, {name}: {scale_cell(results[name][layers])}", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    how = ("time.perf_counter around the process and `/usr/bin/time -v`'s maximum resident set size" if os.path.exists(TIME) else
           "time.perf_counter around the process and its own `ru_maxrss` from `os.wait4` (`/usr/bin/time` was missing)")
    out += [f"Every command of `build/release/simulator/gallocsim` ({kind}, `{flags}`) and `build/release/gui/gallocsim-gui` "
            f"on llama-style graphs: `gallocsim examples {' '.join(SCALE_GRAPH)} --tokens {SCALE_TOKENS} --layers N -o FILE` "
            f"for N = {', '.join(str(n) for n in SCALE_LAYERS)}. FILE2 for `diff` is the same graph at --tokens "
            f"{SCALE_OTHER_TOKENS} (as many nodes; almost every tensor moves). Each command runs {SCALE_RUNS} times, one "
            f"process at a time, and the run with the median wall clock is shown; standard output to /dev/null; wall clock seconds and peak memory (max RSS, MB) measured with {how}; "
            f"a run is cut off after {SCALE_TIMEOUT:g} s. The GUI runs on the offscreen platform: "
            "`QT_QPA_PLATFORM=offscreen gallocsim-gui FILE --screenshot X.png` loads, plans, lays out, paints the "
            "1440x900 window once and exits. Wall clocks on a shared machine: figures near a goal can land on "
            "either side of it.", ""]
    out += [provenance([gallocsim, gui]), ""]
    out.append("Nodes per graph: " + ", ".join(f"{n} layers: {nodes[n]:,}" for n in SCALE_LAYERS) + ".")
    out.append("")
    header = "| command |" + "".join(f" {kilo(nodes[n])} nodes: s | MB |" for n in SCALE_LAYERS)
    growth = len(SCALE_LAYERS) >= 2
    if growth:
        a, b = SCALE_LAYERS[-2], SCALE_LAYERS[-1]
        header += f" growth {kilo(nodes[a])}→{kilo(nodes[b])} |"
    header += " goal (scale) | goal (one plan) |"
    out += [header, "|---|" + "---|---|" * len(SCALE_LAYERS) + ("---|" if growth else "") + "---|---|"]
    for name in names:
        row = f"| {name} |" + "".join(f" {scale_cell(results[name][n])} |" if n in results[name] else " | |"
                                      for n in SCALE_LAYERS)
        if growth:
            ra, rb = results[name].get(a), results[name].get(b)
            if ra and rb and ra[2] is not None and rb[2] is not None and ra[0] > 0:
                row += f" {(rb[0] / ra[0]) / (nodes[b] / nodes[a]):.2f} |"
            else:
                row += " - |"
        out.append(row + f" {scale_goal(name, results[name], nodes)} | {one_plan_goal(name, results[name], nodes)} |")
    if growth:
        out += ["", f"growth: the time at {kilo(nodes[b])} nodes over the time at {kilo(nodes[a])} nodes, divided by the "
                "ratio of the node counts: about 1 is linear, 2 or more grows faster (a quadratic step would give "
                f"about {nodes[b] / nodes[a]:.0f}). Small times are mostly process start and file reading."]
    out += ["", "Goals (the scale issue): at 122,884 nodes each of plan, plan --json, trace, stats, render, compare, diff "
            "and why in at most 3 s and 1 GB; walk to the last event in at most 2 s and 1 GB; the GUI opens 30k nodes "
            "in at most 2 s and 123k nodes in at most 10 s and 1.5 GB. trace --json has no goal: it writes one JSON object "
            "per event with its explanation (860,198 events, 312 MB, at 123k nodes).",
            "", f"Goals (one plan, issue 27): every command at 122,884 nodes in at most {ONE_PLAN_SECONDS} s (Release) and at "
            f"most {ONE_PLAN_GROWTH:g} times its 30,724-node time (a fourfold graph: linear with some room)."]
    return out


# Where a section goes when the file has none yet: before the first of these headings.
SECTION_ORDER = ["## Plan quality", "## Planner speed", SCALE_HEADING, UPSTREAM_HEADING, "## Execution (CPU)", "## GUI",
                 "## Measured by hand"]


def replace_section(text, section):
    """The performance file with the section headed section[0] replaced by `section`, or, when the file has
    none, put where SECTION_ORDER places it."""
    lines = text.rstrip("\n").split("\n")
    heading = section[0]
    if heading in lines:
        start = lines.index(heading)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    else:
        later = SECTION_ORDER[SECTION_ORDER.index(heading) + 1:]
        start = end = next((i for i, line in enumerate(lines) if line in later), len(lines))
    return "\n".join(lines[:start] + section + [""] + lines[end:]) + "\n"


def executor_section():
    out = ["## Execution (CPU)", ""]
    data = benchmark("simulator/executor/executor_bench")
    if data is None:
        return out + ["executor_bench was not built."]
    out += ["`simulator/executor/executor_bench`: the llama example with a mask (2 layers, embd 256, 8 heads, ff 704, "
            "32 tokens, vocab 1000; its weights are outside data, as a model's), median CPU time.", "",
            "| benchmark | CPU time |", "|---|---|"]
    for b in medians_in_order(data):
        out.append(f"| {b['run_name']} | {fmt_time(to_ns(b))} |")
    return out


def gui_section():
    out = ["## GUI", ""]
    data = benchmark("gui/gui_bench", env={"QT_QPA_PLATFORM": "offscreen"})
    if data is None:
        return out + ["gui_bench was not built (Qt 6 not found)."]
    out += ["`gui/gui_bench` on the offscreen platform, llama-style graphs in a 1440x900 window: about 5,000 nodes "
            "(165 layers), and about 30,000 (1000 layers) where the benchmark's argument says so. Goals: opening a "
            "5,000-node graph under 1 s; a step with a full repaint under 16 ms, at 30,000 nodes too.", "",
            "| benchmark | time | goal |", "|---|---|---|"]
    goals = {"BM_LoadAndLayOut": "< 1 s", "BM_StepRedraw": "< 16 ms"}
    for b in medians_in_order(data):
        name = b["run_name"].split("/iterations")[0] + (f" ({b['label']})" if b.get("label") else "")
        out.append(f"| {name} | {fmt_time(b['real_time'] * {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}[b['time_unit']])} "
                   f"| {goals.get(name.split('/')[0], '')} |")
    return out


def main():
    performance = os.path.join(ROOT, "docs", "performance.md")
    # One section measured again in its place; the others keep their figures.
    for flag, measure_section in (("--quality-only", quality_section), ("--scale-only", scale_section),
                                  ("--upstream-only", upstream_section), ("--execution-only", executor_section),
                                  ("--gui-only", gui_section)):
        if flag not in sys.argv:
            continue
        with open(performance) as f:
            text = f.read()
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        section = measure_section()
        section.insert(2, f"Measured on {now}, on {machine()}.")
        section.insert(3, "")
        text = replace_section(text, section)
        notes = os.path.join(ROOT, "docs", "performance-notes.md")
        if flag == "--upstream-only" and os.path.exists(notes) and "\n## Measured by hand\n" in text:
            # The notes close the file as they are now.
            with open(notes) as f:
                text = text[:text.index("\n## Measured by hand\n") + 1] + f.read().rstrip() + "\n"
        with open(performance, "w") as f:
            f.write(text)
        return
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Performance", "",
             f"Generated by `docs/regenerate-performance.py` on {now}, on {machine()}. "
             "Times are CPU times; on a shared machine compare ratios, not absolute figures.", ""]
    lines += quality_section() + [""] + speed_section() + [""] + scale_section() + [""] + upstream_section() + [""] + \
        executor_section() + [""] + gui_section() + [""]
    notes = os.path.join(ROOT, "docs", "performance-notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            lines.append(f.read().rstrip())
    with open(os.path.join(ROOT, "docs", "performance.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
