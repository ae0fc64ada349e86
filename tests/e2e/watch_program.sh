#!/usr/bin/env bash
# `gallocsim watch` end to end on a real program: llama.cpp (llama-cpp-python) generating with a
# tiny random-weight model, or whisper.cpp (pywhispercpp) transcribing a second of audio. Checks
# what watch promises, against the capture folder it leaves and a plain run of the same program:
#  - every call is reported: one "[watch] allocator A call N" line per call line of the sessions;
#  - while the program runs: (llama) the reserves' lines come before the line the program writes a
#    second after its context exists, so they were not all written at the end;
#  - the tally is conform's: "N passed, 0 failed" with N the calls counted in the folder, and
#    `gallocsim conform` on the folder agrees;
#  - the program's output is its own: standard output byte for byte as in a run without watch,
#    and (llama, whose log is deterministic) standard error too once watch's lines are removed.
#
# llama-policy watches llama.cpp replayed by a policy that plans otherwise (first fit,
# docs/policies/first-fit.json): every call must then be told as a FAIL with its first difference,
# the tally "0 passed, N failed" and watch's exit code 1, while the program still ends as it would.
#
#   watch_program.sh llama|llama-policy|whisper GALLOCSIM UPSTREAM_DIR WORK_DIR
# Exit 77 (skipped) when the venv or the capture library is missing.
set -euo pipefail
program=$1 gallocsim=$2 upstream=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
lib=$(dirname "$gallocsim")/libgallocsim_capture.so
[[ -f $lib ]] || { echo "skipped: $lib was not built (CMake found no ggml tree)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"

rules=()
if [[ $program == llama-policy ]]; then
  rules=(--ggml-version "$here/../../docs/policies/first-fit.json")
  program=llama
  policy=true
else
  policy=false
fi
case $program in
  llama)
    python=$upstream/venv/bin/python
    "$python" -c "import llama_cpp, gguf" 2>/dev/null || { echo "skipped: no llama-cpp-python venv in $upstream"; exit 77; }
    "$python" "$here/write_tiny_model.py" llama "$work/tiny.gguf" \
      --vocab-dir "$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models" > /dev/null
    export LLAMA_GRAPH_REUSE_DISABLE=1  # every token's graph goes through the allocator
    run=("$python" -u "$here/generate.py" "$work/tiny.gguf" --tokens 4 --context 64 --sleep-after-load 1) ;;
  whisper)
    python=$upstream/venv-apps/bin/python
    [[ -x $python ]] || { echo "skipped: no apps venv in $upstream/venv-apps"; exit 77; }
    site=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    export LD_LIBRARY_PATH=$site${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    "$python" -c "import numpy, pywhispercpp.model" 2>/dev/null || { echo "skipped: pywhispercpp does not import"; exit 77; }
    "$python" "$here/write_tiny_whisper.py" "$work/tiny-whisper.bin" > /dev/null
    run=("$python" -u "$here/transcribe.py" "$work/tiny-whisper.bin" --seconds 1 --threads 1) ;;
  *) echo "unknown program $program"; exit 2 ;;
esac

"${run[@]}" > "$work/plain.out" 2> "$work/plain.err"
status=0
"$gallocsim" watch "${rules[@]}" --out "$work/capture" -- "${run[@]}" > "$work/watch.out" 2> "$work/watch.err" || status=$?
cat "$work/watch.err"

fail() { echo "FAILED: $*"; exit 1; }
calls=$(cat "$work"/capture/session-*.jsonl | grep -c '"call":' || true)
reported=$(grep -c '^\[watch\] allocator [0-9]* call [0-9]*: ' "$work/watch.err" || true)
((calls > 0)) || fail "the capture holds no call"
((reported == calls)) || fail "watch reported $reported calls; the sessions hold $calls"
if $policy; then
  failed=$(grep -c '^\[watch\] allocator [0-9]* call [0-9]*: .*: FAIL: ' "$work/watch.err" || true)
  ((failed == calls)) || fail "first fit plans every call otherwise; watch told $failed of $calls as FAIL"
  grep -qx "\[watch\] 0 passed, $calls failed" "$work/watch.err" || fail "no tally of 0 passed, $calls failed"
  ((status == 1)) || fail "watch exited with $status where a call did not reproduce (expected 1)"
else
  grep -qx "\[watch\] $calls passed, 0 failed" "$work/watch.err" || fail "no tally of $calls passed, 0 failed"
  ((status == 0)) || fail "watch exited with $status"
fi
grep -q "exited with 0$" "$work/watch.err" || fail "watch did not report the program's exit"
cmp "$work/plain.out" "$work/watch.out" || fail "standard output differs from a run without watch"
if [[ $program == llama ]]; then
  grep -v '^\[watch\] ' "$work/watch.err" > "$work/program.err"
  cmp "$work/plain.err" "$work/program.err" || fail "standard error differs from a run without watch"
  # The reserves are made when the context is created, a second before this line.
  marker=$(grep -n '^context created$' "$work/watch.err" | cut -d: -f1)
  first=$(grep -n '^\[watch\] allocator 0 call 0: ' "$work/watch.err" | cut -d: -f1)
  ((first < marker)) || fail "call 0 was reported at line $first, after the program's line $marker"
fi
"$gallocsim" conform "$work/capture" | tail -n 1
