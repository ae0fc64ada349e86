#!/usr/bin/env bash
# tests/verdict.sh, the verdict of every ctest test that reads its command's output, on stand-in
# commands. Each case's expected exit status is reasoned from the rule in verdict.sh's header
# (exit 0 and a whole line matching; 77 passed on; anything else 1), not taken from a run.
#
#   tests/ci/verdict_test.sh PATH/TO/tests/verdict.sh
set -uo pipefail
verdict=$(realpath "$1")
tally='[1-9][0-9]* passed, 0 failed'
failures=0 cases=0

check() {  # EXPECTED_STATUS WHAT LINE SCRIPT: verdict.sh LINE on `bash -c SCRIPT` must exit EXPECTED_STATUS
  local expected=$1 what=$2 line=$3 script=$4 status
  bash "$verdict" "$line" -- bash -c "$script" > /dev/null 2>&1
  status=$?
  cases=$((cases + 1))
  if ((status != expected)); then
    echo "FAILED: $what: exit $status, expected $expected"
    failures=$((failures + 1))
  fi
}

check 0 "a tally with its exit 0" "$tally" 'echo "7 passed, 0 failed"'
# The two ways the old patterns passed what was no pass, and the one way they failed a pass:
check 1 "a tally of zero (\" passed, 0 failed\" matched it)" "$tally" 'echo "0 passed, 0 failed"'
check 1 "the right line, but the command failed (PASS_REGULAR_EXPRESSION ignored the status)" "$tally" 'echo "7 passed, 0 failed"; exit 1'
check 0 "a line the shell wrote first (\"^passed\" failed on it)" "passed" 'echo "x.sh: line 26: 12224 Killed gui"; echo passed'
# A whole line, not part of one:
check 1 "the line inside a longer one" "passed" 'echo "not passed"'
check 1 "a tally with a failure" "$tally" 'echo "6 passed, 1 failed"'
check 0 "the line on standard error" "passed" 'echo passed >&2'
check 77 "a skip" "$tally" 'echo "skipped: no venv"; exit 77'
check 1 "no output at all" "$tally" 'true'

# The last case: verdict.sh refuses to run without "--" (usage, exit 2).
bash "$verdict" "$tally" bash -c true > /dev/null 2>&1
status=$?
cases=$((cases + 1))
((status == 2)) || { echo "FAILED: no -- before the command: exit $status, expected 2"; failures=$((failures + 1)); }
echo "$((cases - failures)) passed, $failures failed"
((failures == 0))
