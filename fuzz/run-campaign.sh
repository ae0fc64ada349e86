#!/usr/bin/env bash
# Runs libFuzzer campaigns on gallocsim's harnesses (built with the `fuzz` preset).
#
#   fuzz/run-campaign.sh [--build DIR] [--seconds N] [--jobs J] [HARNESS...]
#
# HARNESS: graph_file, dynamic_allocator, graph_allocator (default: all three, one after
# the other, N seconds each). --jobs J runs J fuzzing processes per harness.
# Corpora grow across runs in DIR/fuzz/corpus/HARNESS ($GALLOCSIM_FUZZ_CORPUS overrides
# DIR/fuzz/corpus); graph_file is seeded with ../shared/golden (files under 16 KiB) and
# the built-in examples. Crashing inputs go to DIR/fuzz/findings/HARNESS/. Exit status:
# 0 when no harness found anything, 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"
seconds=60
jobs=1
harnesses=()
while (($#)); do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "run-campaign.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=(graph_file dynamic_allocator graph_allocator)

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
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$findings/")
  seeds=()
  if [[ "$harness" == graph_file ]]; then
    seeds_dir="$build/fuzz/seeds/graph_file"
    mkdir -p "$seeds_dir"
    if [[ -d "$root/../shared/golden" ]]; then
      find "$root/../shared/golden" -name '*.json' -size -16k -exec cp -f {} "$seeds_dir/" \;
    fi
    for example in $("$build/simulator/gallocsim" examples | awk '{print $1}'); do
      "$build/simulator/gallocsim" examples "$example" -o "$seeds_dir/example-$example.json" >/dev/null
    done
    seeds=("$seeds_dir")
    options+=(-dict="$root/fuzz/graph_file.dict" -max_len=16384)
  fi
  if ((jobs > 1)); then
    options+=(-jobs="$jobs" -workers="$jobs")
  fi
  echo "== fuzz_$harness: $seconds s, corpus $corpus"
  before=$(artifacts "$findings")
  (cd "$findings" && "$binary" "${options[@]}" "$corpus" "${seeds[@]}") || status=1
  if (($(artifacts "$findings") > before)); then
    status=1
  fi
done
exit $status
