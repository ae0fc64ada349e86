#!/usr/bin/env bash
# What watching costs a program: llama.cpp (llama-cpp-python) generating TOKENS tokens with a
# tiny random-weight model, every token's graph through the allocator (LLAMA_GRAPH_REUSE_DISABLE),
# run RUNS times under `gallocsim capture` and RUNS times under `gallocsim watch`, alternating, on
# the same model. The figure is the program's own wall time (taken around the program, inside
# the run, so that watch's last replay after the program ended is not counted), and each
# side's median; docs/performance.md ("Watching a running program") has the table.
#
#   watch_overhead.sh GALLOCSIM UPSTREAM_DIR [RUNS] [TOKENS]
set -euo pipefail
gallocsim=$1 upstream=$2 runs=${3:-9} tokens=${4:-64}
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$here/../../tests/e2e/write_tiny_model.py" llama "$work/tiny.gguf" \
  --vocab-dir "$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models" > /dev/null
export LLAMA_GRAPH_REUSE_DISABLE=1
program=("$python" "$here/../../tests/e2e/generate.py" "$work/tiny.gguf" --tokens "$tokens" --context 256)

# One run of MODE (capture or watch); the program's seconds are appended to $work/MODE.
run() {
  local mode=$1 n=$2
  "$gallocsim" "$mode" --out "$work/$mode-$n" -- bash -c \
    's=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); awk "BEGIN {print $e - $s}" >> '"$work/$mode" \
    _ "${program[@]}" > /dev/null 2>&1
  rm -rf "${work:?}/$mode-$n"
}
run capture warm-up
rm -f "$work/capture"
for n in $(seq "$runs"); do
  run capture "$n"
  run watch "$n"
done
median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
calls=$(LLAMA_GRAPH_REUSE_DISABLE=1 "$gallocsim" watch --out "$work/count" -- "${program[@]}" 2>&1 >/dev/null |
        grep -c '^\[watch\] allocator [0-9]* call ')
c=$(median "$work/capture") w=$(median "$work/watch")
echo "program: llama.cpp generating $tokens tokens (tiny llama, context 256), $calls allocator calls per run"
echo "runs: $runs each, alternating"
echo "capture: median $c s (min $(sort -g "$work/capture" | head -1), max $(sort -g "$work/capture" | tail -1))"
echo "watch:   median $w s (min $(sort -g "$work/watch" | head -1), max $(sort -g "$work/watch" | tail -1))"
echo "overhead of watch: $(awk "BEGIN {printf \"%.2f\", 100 * ($w - $c) / $c}") %"
