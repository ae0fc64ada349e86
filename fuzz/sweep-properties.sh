#!/usr/bin/env bash
# Sweeps every rapidcheck property with many cases and many seeds: the long campaign behind the
# README's test command, which runs each property on 500 cases with one new seed.
#
#   fuzz/sweep-properties.sh [--build DIR] [--cases N] [--seeds S] [--jobs J] [FILTER]
#
# Each property runs N cases in all (default 50000), split over S runs with S fresh random seeds
# (default 10), J runs at a time (default: the machine's cores).
# FILTER: an extended regular expression on Suite.Name (default: every RC_GTEST_PROP in fuzz/). Build DIR first
# (default build/release: cmake --preset release && cmake --build --preset release --target property_tests).
# One line per property: its cases, seeds and verdict; a falsified run prints rapidcheck's report and
# the line that runs it again on the same cases. Logs are kept in DIR/fuzz/sweep/.
# Exit status: 0 when no run was falsified, 1 otherwise, 2 on a usage error.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/release"
cases=50000
seeds=10
jobs=$(nproc)
filter=""
while (($#)); do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "sweep-properties.sh: unknown option $1" >&2; exit 2 ;;
    *) filter="$1"; shift ;;
  esac
done
for number in "$cases" "$seeds" "$jobs"; do
  [[ "$number" =~ ^[1-9][0-9]*$ ]] || { echo "sweep-properties.sh: '$number' is not a positive whole number" >&2; exit 2; }
done
binary="$build/fuzz/property_tests"
[[ -x "$binary" ]] || { echo "sweep-properties.sh: $binary not found (cmake --build --preset release --target property_tests)" >&2; exit 2; }

# The properties are the RC_GTEST_PROP tests of fuzz/ (the suite's plain tests have no cases to sweep).
mapfile -t properties < <(grep -ho 'RC_GTEST_PROP([A-Za-z0-9_]*, *[A-Za-z0-9_]*' "$root"/fuzz/*.cpp |
                          sed 's/RC_GTEST_PROP(\([A-Za-z0-9_]*\), *\([A-Za-z0-9_]*\)/\1.\2/' | grep -E -- "${filter:-.}" | sort)
((${#properties[@]})) || { echo "sweep-properties.sh: no property matches '$filter'" >&2; exit 2; }

logs="$build/fuzz/sweep"
rm -rf "$logs"
mkdir -p "$logs"
per_run=$(((cases + seeds - 1) / seeds))

# One run: a property, its share of the cases, a fresh seed.
run_one() {
  local property="$1" index="$2" seed
  seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
  RC_PARAMS="max_success=$per_run seed=$seed" "$binary" --gtest_filter="$property" >"$logs/$property.$index.log" 2>&1 || true
}
export -f run_one
export binary per_run logs
for property in "${properties[@]}"; do
  for ((i = 0; i < seeds; ++i)); do
    printf '%s %d\n' "$property" "$i"
  done
done | xargs -P "$jobs" -n 2 bash -c 'run_one "$0" "$1"'

status=0
swept=0
for property in "${properties[@]}"; do
  passed=0 failed=0
  for ((i = 0; i < seeds; ++i)); do
    log="$logs/$property.$i.log"
    # A passed property ran max_success cases that were not discarded (rapidcheck prints
    # "OK, passed N tests" only for properties that tag their cases).
    if grep -q "^Using configuration: max_success=$per_run " "$log" && grep -q '^\[  PASSED  \] 1 test' "$log"; then
      passed=$((passed + per_run))
    else
      failed=$((failed + 1))
      echo "--- $property, run $i ($log):"
      grep -E 'Using configuration|Falsifiable|Gave up|generated|found:|^  |to run|RC_PARAMS' "$log" | head -n 20 || tail -n 20 "$log"
    fi
  done
  swept=$((swept + 1))
  if ((failed)); then
    status=1
    printf '%-60s %7d cases passed, %d of %d seeds FAILED\n' "$property" "$passed" "$failed" "$seeds"
  else
    printf '%-60s %7d cases, %d seeds, passed\n' "$property" "$passed" "$seeds"
  fi
done
echo "sweep: $swept properties, $cases cases each over $seeds seeds: $([[ $status == 0 ]] && echo "all passed" || echo "FAILED")"
exit "$status"
