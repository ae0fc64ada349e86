#!/usr/bin/env bash
# End to end on a real stable-diffusion.cpp: writes a tiny random-weight x4 ESRGAN, upscales a
# small image in tiles with stable-diffusion-cpp-python under `gallocsim capture` (one reserve of
# the ESRGAN graph, then one alloc_graph per tile), and requires `gallocsim conform` to reproduce
# every call. stable-diffusion.cpp links ggml statically into libstable-diffusion.so but calls it
# through the PLT, so the preloaded capture library still sees the allocator calls.
#
#   sd_capture.sh GALLOCSIM UPSTREAM_DIR WORK_DIR [conform options...]
# Exit 77 (skipped) when venv-apps, stable-diffusion-cpp-python or the capture library is missing.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
apps=$upstream/venv-apps/bin/python
lib=$(dirname "$gallocsim")/libgallocsim_capture.so

if [[ ! -x $apps ]]; then
  echo "skipped: no venv-apps in $upstream (run .ci/install-upstream)"; exit 77
fi
if ! "$apps" -c "import stable_diffusion_cpp, numpy, PIL" 2>/dev/null; then
  echo "skipped: stable-diffusion-cpp-python (with numpy, pillow) is not installed in $upstream/venv-apps"; exit 77
fi
if [[ ! -f $lib ]]; then
  echo "skipped: $lib was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi
# The model writer needs gguf and numpy: venv-apps may lack gguf, the llama venv has both.
writer=
for py in "$apps" "$upstream/venv/bin/python"; do
  if [[ -x $py ]] && "$py" -c "import gguf, numpy" 2>/dev/null; then writer=$py; break; fi
done
if [[ -z $writer ]]; then
  echo "skipped: no python in $upstream/venv-apps or $upstream/venv has gguf and numpy"; exit 77
fi

rm -rf "$work" && mkdir -p "$work"
"$writer" "$here/write_tiny_esrgan.py" "$work/tiny-esrgan.gguf"
# 48x48 with 32-pixel tiles: stable-diffusion.cpp upscales it in 2x2 overlapping tiles.
# `capture` exits non-zero when the capture is partial; set -e stops the test then.
"$gallocsim" capture --out "$work/capture" -- "$apps" "$here/upscale.py" "$work/tiny-esrgan.gguf" \
  --size 48 --tile 32
"$gallocsim" conform "$work/capture" "$@"
