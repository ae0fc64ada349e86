#!/usr/bin/env bash
# End to end on a Python program that calls the graph allocator through ggml-python's ctypes
# bindings (tests/e2e/ctypes_allocator.py): the capture must hold exactly the calls it made
# (not ggml's nested ones), and `gallocsim conform` must reproduce every one, with the
# allocator version picked from what the program's ggml reports.
#
#   ctypes_capture.sh GALLOCSIM UPSTREAM_DIR WORK_DIR LIBCTYPES_BUFFER_TYPES
# Exit 77 (skipped) when the venv or the capture library is missing.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3 types=$4
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/venv/bin/python
lib=$(dirname "$gallocsim")/libgallocsim_capture.so

if [[ ! -x $python ]] || ! "$python" -c "import ggml" 2>/dev/null; then
  echo "skipped: no ggml-python venv in $upstream (run .ci/install-upstream)"; exit 77
fi
if [[ ! -f $lib ]]; then
  echo "skipped: $lib was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi

rm -rf "$work" && mkdir -p "$work"
"$gallocsim" capture --out "$work/capture" -- "$python" "$here/ctypes_allocator.py" "$types"
# Per allocator: new (or new_n), reserve, then alloc_graph at batch 2 and 4 (the reserved plan
# holds them) and 16 (it does not: alloc_graph plans again by itself).
"$python" "$here/check_calls.py" "$work/capture" \
  "0=ggml_gallocr_new:reserve,alloc_graph+kept,alloc_graph+kept,alloc_graph+replanned" \
  "1=ggml_gallocr_new_n:reserve,alloc_graph+kept,alloc_graph+kept,alloc_graph+replanned"
"$gallocsim" conform "$work/capture"
