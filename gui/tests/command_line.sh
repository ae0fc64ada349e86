#!/usr/bin/env bash
# gallocsim-gui's command line without a display: --help and --version work anywhere, a bad
# flag or a --step past the trace is a usage error (exit 2). The seed trace has 17 events
# (docs/tutorial.md walks through them), so --step 18 is out of range.
set -u
gui=$1 version=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$(env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$gui" --help) || fail "--help exits $?"
[[ $out == *"Usage:"* ]] || fail "--help prints no usage: $out"
out=$(env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$gui" --version) || fail "--version exits $?"
[[ $out == "gallocsim-gui $version" ]] || fail "--version prints: $out"
env -u DISPLAY QT_QPA_PLATFORM= "$gui" --bogus 2>/dev/null; code=$?
[[ $code == 2 ]] || fail "an unknown flag exits $code, not 2"
err=$(QT_QPA_PLATFORM=offscreen "$gui" --step 18 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--step 18: the trace has events 0 to 17"* ]] || fail "--step 18 exits $code: $err"
echo "passed"
