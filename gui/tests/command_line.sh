#!/usr/bin/env bash
# gallocsim-gui's command line without a display: --help and --version work anywhere, a bad
# flag, a position past the trace or an unknown axis is a usage error (exit 2). The seed
# trace has 17 events (docs/tutorial.md walks through them), so event 18 is out of range; its
# graph has one node, so node steps 0 and 1 exist and 2 does not.
set -u
gui=$1 version=$2 capture=$3  # tests/data/captures/seed: two sessions (its README)
fail() { echo "FAIL: $*"; exit 1; }
out=$(env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$gui" --help) || fail "--help exits $?"
[[ $out == *"Usage:"* ]] || fail "--help prints no usage: $out"
out=$(env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$gui" --version) || fail "--version exits $?"
[[ $out == "gallocsim-gui $version" ]] || fail "--version prints: $out"
env -u DISPLAY QT_QPA_PLATFORM= "$gui" --bogus 2>/dev/null; code=$?
[[ $code == 2 ]] || fail "an unknown flag exits $code, not 2"
err=$(QT_QPA_PLATFORM=offscreen "$gui" --step 18 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--step 18: the trace has events 0 to 17"* ]] || fail "--step 18 exits $code: $err"
err=$(QT_QPA_PLATFORM=offscreen "$gui" --at-event 18 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--at-event 18: the trace has events 0 to 17"* ]] || fail "--at-event 18 exits $code: $err"
err=$(QT_QPA_PLATFORM=offscreen "$gui" --at-step 2 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--at-step 2: the graph has node steps 0 to 1"* ]] || fail "--at-step 2 exits $code: $err"
err=$(QT_QPA_PLATFORM=offscreen "$gui" --timeline-axis time --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--timeline-axis time: give steps or events"* ]] || fail "--timeline-axis time exits $code: $err"
# A call the capture lacks is said once, by what failed, not again as "no such call".
err=$(QT_QPA_PLATFORM=offscreen "$gui" "$capture" --call 9 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"call 9"* && $err != *"no such call in this capture"* ]] || fail "--call 9 exits $code: $err"
err=$(QT_QPA_PLATFORM=offscreen "$gui" "$capture" --call 3:0 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"no session 3: the capture has 2, counted from 0"* ]] || fail "--call 3:0 exits $code: $err"
err=$(QT_QPA_PLATFORM=offscreen "$gui" "$capture" --call x --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--call x: give K or S:K"* ]] || fail "--call x exits $code: $err"
# A version is read as the command line reads it (model/rules.hpp), with the same sentence: 0.9.4 was
# carried by several allocator states (docs/versions.md), so it names none of them.
err=$(QT_QPA_PLATFORM=offscreen "$gui" --ggml-version 0.9.4 --screenshot /dev/null 2>&1); code=$?
[[ $code == 2 && $err == *"--ggml-version 0.9.4: ggml 0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one; or a policy file (docs/policies.md)"* ]] || fail "--ggml-version 0.9.4 exits $code: $err"
# /dev/zero is refused as a device before a byte is read (it used to be read until the GUI aborted).
err=$(QT_QPA_PLATFORM=offscreen "$gui" /dev/zero --screenshot /dev/null 2>&1); code=$?
[[ $code != 0 && $err == *"/dev/zero: not a regular file"* ]] || fail "/dev/zero exits $code: $err"
# A screenshot size must be a picture that can be made: at least a pixel, at most 16384 a side.
for size in 0x0 100000x100000 12x wide; do
  err=$(env -u DISPLAY QT_QPA_PLATFORM= "$gui" --size "$size" --screenshot /dev/null 2>&1); code=$?
  [[ $code == 2 && $err == *"--size $size: give WxH, each from 1 to 16384 pixels"* ]] || fail "--size $size exits $code: $err"
done
echo "passed"
