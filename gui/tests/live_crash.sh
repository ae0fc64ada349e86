#!/usr/bin/env bash
# The program never hangs on a GUI that crashed: gallocsim-gui runs llama.cpp generating with a
# tiny model, stopped before each call; the GUI is killed (SIGKILL: no clean-up of its own) while
# the program waits at call 0; the program must then finish on its own, and the capture folder
# hold every call it made, replayed by `gallocsim conform` with no failure.
#
#   live_crash.sh GALLOCSIM_GUI GALLOCSIM PYTHON GENERATE_PY WORK_DIR
set -euo pipefail
gui=$1 gallocsim=$2 python=$3 generate=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; echo "--- the GUI's and the program's output:"; cat "$work/gui.out"; exit 1; }
export LLAMA_GRAPH_REUSE_DISABLE=1

"$gui" --run --pause --out "$work/capture" -- "$python" -u "$generate" --tiny-model llama --tokens 4 --context 64 \
  > "$work/gui.out" 2>&1 &
gui_pid=$!
# Stopped at call 0: the call's graph is written (graphs/), its line is not (the session holds its header).
for _ in $(seq 600); do
  [[ -n $(ls "$work/capture/graphs" 2>/dev/null) ]] && break
  sleep 0.1
done
sleep 1
program_pid=$(pgrep -P "$gui_pid" -f generate.py) || fail "the program is not running under the GUI"
[[ $(wc -l < "$work/capture/session-0.jsonl") == 1 ]] || fail "the program did not wait before call 0"
kill -9 "$gui_pid"
wait "$gui_pid" 2>/dev/null || true
for _ in $(seq 600); do
  kill -0 "$program_pid" 2>/dev/null || break
  sleep 0.1
done
! kill -0 "$program_pid" 2>/dev/null || fail "the program still waits a minute after the GUI died"
calls=$(( $(wc -l < "$work/capture/session-0.jsonl") - 1 ))
((calls >= 5)) || fail "the capture holds $calls calls: the program did not go on to its end"
"$gallocsim" conform "$work/capture" > "$work/conform.out" || { cat "$work/conform.out"; fail "conform failed"; }
grep -qx "$calls passed, 0 failed" "$work/conform.out" || { cat "$work/conform.out"; fail "conform did not pass every call"; }
echo "passed: the program finished after the GUI was killed, and conform passes its $calls calls"
