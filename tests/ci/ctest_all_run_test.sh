#!/usr/bin/env bash
# .ci/ctest-all-run's expected-skip rule, against a stand-in ctest that prints what a real one
# prints (the skipped list of a run, the test list of --show-only=json-v1). Each case states the
# exit status the rule must give, reasoned from the rule in the script's header, not from a run.
#
#   tests/ci/ctest_all_run_test.sh PATH/TO/.ci/ctest-all-run
set -uo pipefail
script=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/cuda"

# The stand-in ctest: --show-only prints $FAKE_JSON; a run prints $FAKE_LOG, exits $FAKE_STATUS.
cat >"$work/bin/ctest" <<'FAKE'
#!/usr/bin/env bash
for arg; do
  if [[ $arg == --show-only=json-v1 ]]; then printf '%s\n' "$FAKE_JSON"; exit 0; fi
done
printf '%s\n' "$FAKE_LOG"
exit "${FAKE_STATUS:-0}"
FAKE
chmod +x "$work/bin/ctest"
# A machine's nvcc, where a case has one: an executable at the place CMakeLists.txt looks.
printf '#!/bin/sh\n' >"$work/cuda/nvcc"
chmod +x "$work/cuda/nvcc"

# What gallocsim_skipped_suite registers, as ctest's JSON lists it.
suite_json() {
  printf '{"tests":[{"name":"executor_cuda_tests","command":["/bin/sh","-c","echo \\"skipped: $0\\"; exit 77","built without CUDA: %s"]}]}' "$1"
}
built_json='{"tests":[{"name":"CudaBuffer.AllocatesOnTheDevice","command":["/b/tests/executor_cuda_tests"]}]}'
skipped_log() {  # the names ctest lists under "did not run"
  echo "100% tests passed, 0 tests failed out of 9"
  echo
  echo "The following tests did not run:"
  local i=1 name
  for name; do echo "	  $((i++)) - $name (Skipped)"; done
  echo
}

failures=0
# check NAME EXPECTED_STATUS NVCC(yes|no) JSON LOG [STATUS]
check() {
  local name=$1 expected=$2 nvcc=$3 status
  local default_nvcc=$work/no-such-nvcc
  [[ $nvcc == yes ]] && default_nvcc=$work/cuda/nvcc
  env -u CUDACXX PATH="$work/bin:/usr/bin:/bin" GALLOCSIM_DEFAULT_NVCC="$default_nvcc" \
      FAKE_JSON="$4" FAKE_LOG="$5" FAKE_STATUS="${6:-0}" \
      bash "$script" default >"$work/out" 2>&1
  status=$?
  if [[ $status -ne $expected ]]; then
    echo "FAIL: $name: exit $status, expected $expected"; sed 's/^/    /' "$work/out"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

# Built without CUDA on a machine without a compiler: the one skipped suite is right.
check "no CUDA compiler, whole suite skipped" 0 no "$(suite_json 'no CUDA compiler found')" \
      "$(skipped_log executor_cuda_tests)"
# The same build on a machine that has nvcc: a configure that missed it, so it fails.
check "nvcc present, build says none" 1 yes "$(suite_json 'no CUDA compiler found')" \
      "$(skipped_log executor_cuda_tests)"
# Left out on purpose (sanitizer builds, GALLOCSIM_CUDA=OFF): right whatever the machine has.
check "sanitizer build leaves CUDA out" 0 yes "$(suite_json 'sanitizer builds leave CUDA out')" \
      "$(skipped_log executor_cuda_tests)"
check "GALLOCSIM_CUDA is OFF" 0 yes "$(suite_json 'GALLOCSIM_CUDA is OFF')" \
      "$(skipped_log executor_cuda_tests)"
# Built with CUDA: the device tests may skip (no GPU) ...
check "CUDA built, device tests skip" 0 yes "$built_json" \
      "$(skipped_log CudaBuffer.AllocatesOnTheDevice ExecutorOnCuda.RunsTheSeed LlamaOnCuda.Matches)"
# ... but a whole-suite skip of a suite that was built has no reason: it fails.
check "CUDA built, whole suite skipped" 1 yes "$built_json" "$(skipped_log executor_cuda_tests)"
# Any other skipped suite fails, beside an expected one too.
check "GUI suite skipped" 1 no "$(suite_json 'no CUDA compiler found')" \
      "$(skipped_log executor_cuda_tests gui_tests)"
# Nothing skipped, ctest failed: its status comes through.
check "a failing test" 8 no "$built_json" "99% tests passed, 1 tests failed out of 9" 8
# Nothing skipped, all passed.
check "all ran" 0 no "$built_json" "100% tests passed, 0 tests failed out of 9"

echo "$((9 - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]
