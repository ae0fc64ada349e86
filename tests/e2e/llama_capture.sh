#!/usr/bin/env bash
# End to end on a real llama.cpp: writes a tiny random-weight model of ARCH, generates a few
# tokens with llama-cpp-python under `gallocsim capture`, checks the capture holds the scheduler's
# reserves and real alloc_graph calls, and requires `gallocsim conform` to reproduce every call.
#
#   llama_capture.sh GALLOCSIM UPSTREAM_DIR WORK_DIR ARCH [--ggml-version NAME]
# Exit 77 (skipped) when the upstream venv is missing or capture was not built.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3 arch=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/venv/bin/python
vocab=$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models
lib=$(dirname "$gallocsim")/libgallocsim_capture.so

if [[ ! -x $python ]] || ! "$python" -c "import llama_cpp, gguf" 2>/dev/null; then
  echo "skipped: no llama-cpp-python venv in $upstream (run .ci/install-upstream)"; exit 77
fi
if [[ ! -f $lib ]]; then
  echo "skipped: $lib was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi

rm -rf "$work" && mkdir -p "$work"
"$python" "$here/write_tiny_model.py" "$arch" "$work/tiny-$arch.gguf" --vocab-dir "$vocab"
# n_ctx = n_batch = 64 tokens: the scheduler's worst case is a 64-token micro-batch. llama.cpp
# reuses an unchanged decode graph without calling alloc_graph again; LLAMA_GRAPH_REUSE_DISABLE
# makes every token's graph go through the allocator, so the replay checks one call per token.
LLAMA_GRAPH_REUSE_DISABLE=1 "$gallocsim" capture --out "$work/capture" -- "$python" "$here/generate.py" "$work/tiny-$arch.gguf" \
  --tokens 4 --context 64
"$python" "$here/check_capture.py" "$work/capture" --ubatch 64 --generated 4
"$gallocsim" conform "$work/capture" "$@"
