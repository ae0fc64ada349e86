#!/usr/bin/env bash
# A test's verdict from its command's exit status first, and one whole line of its output second:
# ctest's PASS_REGULAR_EXPRESSION ignores the exit status and matches anywhere in the output, so
# a pattern like " passed, 0 failed" also passes "0 passed, 0 failed", and "^passed" passes or
# fails by what the shell printed before it (bash's "Killed" for a job the script killed).
#
#   verdict.sh LINE -- COMMAND [ARGS...]
#
# Passes when COMMAND exits 0 and one line of its output (stdout and stderr together) is exactly
# LINE, an extended regular expression matched against the whole line (grep -xE). Give tallies
# as [1-9][0-9]* so that a tally of zero never passes. Exit 77 (a test that skips, with its
# reason) is passed on for SKIP_RETURN_CODE; any other failure exits 1 and says which check
# failed below the command's own output.
set -uo pipefail
line=$1
[[ ${2:-} == -- ]] || { echo "verdict.sh: usage: verdict.sh LINE -- COMMAND [ARGS...]" >&2; exit 2; }
shift 2
output=$(mktemp)
trap 'rm -f "$output"' EXIT
"$@" > "$output" 2>&1
status=$?
cat "$output"
if ((status == 77)); then
  exit 77
fi
if ((status != 0)); then
  echo "verdict: FAILED: the command exited with $status"
  exit 1
fi
if ! grep -qxE -- "$line" "$output"; then
  echo "verdict: FAILED: the command exited 0, but no line of its output is exactly /$line/"
  exit 1
fi
echo "verdict: passed (exit 0, and the line /$line/)"
