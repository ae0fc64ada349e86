#!/usr/bin/env bash
# End to end on a real whisper.cpp: writes a tiny random-weight whisper model, transcribes about
# a second of generated audio with pywhispercpp under `gallocsim capture`, and requires
# `gallocsim conform` to reproduce every captured graph-allocator call.
#
#   whisper_capture.sh GALLOCSIM UPSTREAM_DIR WORK_DIR [conform options...]
# Exit 77 (skipped) when the apps venv, pywhispercpp or the capture library is missing.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/venv-apps/bin/python
lib=$(dirname "$gallocsim")/libgallocsim_capture.so

if [[ ! -x $python ]]; then
  echo "skipped: no apps venv in $upstream/venv-apps (run .ci/install-upstream)"; exit 77
fi
# pywhispercpp built from its sdist loads libwhisper.so.1 from its site-packages folder, which
# is not on the loader's path: put it there before importing.
site=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
export LD_LIBRARY_PATH=$site${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! "$python" -c "import numpy, pywhispercpp.model" 2>/dev/null; then
  echo "skipped: pywhispercpp (with numpy) does not import in $upstream/venv-apps (run .ci/install-upstream)"; exit 77
fi
if [[ ! -f $lib ]]; then
  echo "skipped: $lib was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi

rm -rf "$work" && mkdir -p "$work"
"$python" "$here/write_tiny_whisper.py" "$work/tiny-whisper.bin"
# One thread; --fallback makes whisper_full try every temperature, so the batched best-of-5
# decoders plan their graphs too. capture exits non-zero when the capture is partial, and set -e
# fails the test then.
"$gallocsim" capture --out "$work/capture" -- "$python" "$here/transcribe.py" "$work/tiny-whisper.bin" \
  --seconds 1 --threads 1 --fallback
"$gallocsim" conform "$work/capture" "$@"
