#!/usr/bin/env bash
# A program whose ggml is linked in statically with its symbols hidden (cyllama 0.2.18's wheel:
# llama.cpp inside one Python extension that exports none of ggml's allocator functions) cannot be
# captured by a preloaded library. `gallocsim capture` and `gallocsim watch` must say exactly that,
# naming the object that holds ggml and what works instead, and keep the program's exit code (0).
#
#   static_capture.sh GALLOCSIM UPSTREAM_DIR WORK_DIR
# Exit 77 (skipped) when venv-wheels or the capture library is missing.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/venv-wheels/bin/python
lib=$(dirname "$gallocsim")/libgallocsim_capture.so
if [[ ! -x $python ]] || ! "$python" -c "import cyllama" 2>/dev/null || ! "$upstream/venv/bin/python" -c "import gguf" 2>/dev/null; then
  echo "skipped: no cyllama in $upstream/venv-wheels (run .ci/install-upstream)"; exit 77
fi
if [[ ! -f $lib ]]; then
  echo "skipped: $lib was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
"$upstream/venv/bin/python" "$here/write_tiny_model.py" llama "$work/tiny.gguf" \
  --vocab-dir "$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models" > /dev/null
# The extension holds ggml, and its dynamic symbol table names none of the allocator's functions.
extension=$("$python" -c "import cyllama.llama.llama_cpp as m; print(m.__file__)")
if nm -D --defined-only "$extension" | grep -q ggml_gallocr; then
  echo "$extension exports the graph allocator: this test proves nothing"; exit 1
fi
program=(-c "import sys, cyllama; cyllama.complete('The graph allocator', model_path=sys.argv[1], max_tokens=2, n_ctx=64, verbose=False)"
         "$work/tiny.gguf")
told="made no graph allocator call the capture saw: it loaded $extension, which holds ggml's graph allocator but exports none of its functions"
for command in capture watch; do
  status=0
  "$gallocsim" "$command" --out "$work/$command" -- "$python" "${program[@]}" > "$work/$command.out" 2> "$work/$command.err" || status=$?
  cat "$work/$command.out"
  grep -F "[watch]" "$work/$command.err" || true
  if ((status != 0)); then
    echo "$command exited with $status, expected the program's 0"; tail -n 20 "$work/$command.err"; exit 1
  fi
  # capture says it on standard output, watch on standard error (the program's output is its own).
  grep -qF "$told" "$work/$command.out" "$work/$command.err" ||
    { echo "$command did not name $extension as holding a hidden ggml"; exit 1; }
done
echo "static build: told"
