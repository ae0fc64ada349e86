#!/usr/bin/env bash
# Runs libFuzzer campaigns on gallocsim's harnesses (built with the `fuzz` preset).
#
#   fuzz/run-campaign.sh [--build DIR] [--seconds N] [--executions E] [--jobs J] [HARNESS...]
#
# HARNESS: graph_file, dynamic_allocator, graph_allocator, capture_session, trace_sentences
# (default: all five, one after the other, N seconds each). --executions E stops each harness after E
# executions in all instead (its J processes share them). --jobs J runs J fuzzing
# processes per harness. Each harness ends with one line: its executions, their rate and
# what was found.
# Corpora grow across runs in DIR/fuzz/corpus/HARNESS ($GALLOCSIM_FUZZ_CORPUS overrides
# DIR/fuzz/corpus); graph_file and trace_sentences are seeded with ../shared/golden (files under 16 KiB) and
# the built-in examples. Crashing inputs go to DIR/fuzz/findings/HARNESS/. Exit status:
# 0 when no harness found anything, 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"
seconds=60
executions=0
jobs=1
harnesses=()
while (($#)); do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --executions) executions="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "run-campaign.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=(graph_file dynamic_allocator graph_allocator capture_session trace_sentences)

corpus_root="${GALLOCSIM_FUZZ_CORPUS:-$build/fuzz/corpus}"
artifacts() { find "$1" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }
status=0
for harness in "${harnesses[@]}"; do
  binary="$build/fuzz/fuzz_$harness"
  if [[ ! -x "$binary" ]]; then
    echo "run-campaign.sh: $binary not found (cmake --preset fuzz && cmake --build --preset fuzz)" >&2
    exit 2
  fi
  corpus="$corpus_root/$harness"
  findings="$build/fuzz/findings/$harness"
  mkdir -p "$corpus" "$findings"
  options=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/")
  if ((executions > 0)); then
    options+=(-runs=$(((executions + jobs - 1) / jobs)))
  else
    options+=(-max_total_time="$seconds")
  fi
  seeds=()
  if [[ "$harness" == graph_file || "$harness" == trace_sentences ]]; then
    seeds_dir="$build/fuzz/seeds/graph_file"
    mkdir -p "$seeds_dir"
    if [[ -d "$root/../shared/golden" ]]; then
      find "$root/../shared/golden" -name '*.json' -size -16k -exec cp -f {} "$seeds_dir/" \;
    fi
    # The built-in examples too, written by whichever gallocsim is built (the fuzz preset
    # builds only the harnesses).
    for gallocsim in "$build/simulator/gallocsim" "$root/build/default/simulator/gallocsim" ""; do
      [[ -z "$gallocsim" || -x "$gallocsim" ]] && break
    done
    if [[ -n "$gallocsim" ]]; then
      for example in $("$gallocsim" examples | awk '/^[^ ]/ {print $1}'); do  # not the option lines
        "$gallocsim" examples "$example" -o "$seeds_dir/example-$example.json" >/dev/null
      done
    fi
    seeds=("$seeds_dir")
    options+=(-dict="$root/fuzz/graph_file.dict" -max_len=16384)
  fi
  if [[ "$harness" == dynamic_allocator ]]; then
    # Every call is checked against every range in use: an input's cost grows with the
    # square of its calls, so inputs stay at most about 300 calls long.
    options+=(-max_len=1024)
  fi
  if [[ "$harness" == capture_session ]]; then
    seeds_dir="$build/fuzz/seeds/capture_session"
    mkdir -p "$seeds_dir"
    for session in "$root"/tests/data/captures/*/session-*.jsonl; do
      cp -f "$session" "$seeds_dir/$(basename "$(dirname "$session")")-$(basename "$session")"
    done
    seeds=("$seeds_dir")
    options+=(-dict="$root/fuzz/graph_file.dict" -max_len=32768)
  fi
  # Inputs that once found something are run first, every time (fuzz/regressions/HARNESS).
  if [[ -d "$root/fuzz/regressions/$harness" ]]; then
    seeds+=("$root/fuzz/regressions/$harness")
  fi
  # Always in libFuzzer's jobs mode, even for one process: each writes fuzz-N.log, which
  # the summary line adds up.
  options+=(-jobs="$jobs" -workers="$jobs")
  echo "== fuzz_$harness: $( ((executions > 0)) && echo "$executions executions" || echo "$seconds s"), corpus $corpus"
  before=$(artifacts "$findings")
  logs="$findings/logs"
  rm -rf "$logs" && mkdir -p "$logs"
  start=$(date +%s)
  rc=0
  (cd "$logs" && "$binary" "${options[@]}" "$corpus" "${seeds[@]}" >/dev/null 2>&1) || rc=1
  elapsed=$(($(date +%s) - start))
  found=$(($(artifacts "$findings") - before))
  if ((found > 0)) || ((rc != 0)); then
    status=1
    tail -n 40 "$logs"/fuzz-*.log >&2
  fi
  done_runs=$(cat "$logs"/fuzz-*.log 2>/dev/null | awk '/stat::number_of_executed_units/ {n += $2} END {print n + 0}')
  echo "== fuzz_$harness: $done_runs executions in ${elapsed} s ($((done_runs / (elapsed > 0 ? elapsed : 1))) per second, $jobs process(es)), $found finding(s)"
done
exit $status
