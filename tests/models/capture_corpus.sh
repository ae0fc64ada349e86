#!/usr/bin/env bash
# Real-size captures without weights: for each MODEL:CONTEXT:UBATCH:FLASH, writes the model's
# shapes (write_real_shape.py, a sparse file), creates a llama.cpp context on it under
# `gallocsim capture` (reserve.py: llama.cpp reserves its compute graphs and decodes nothing),
# and requires `gallocsim conform` to reproduce every call.
#
#   capture_corpus.sh GALLOCSIM UPSTREAM_DIR OUT_DIR [MODEL:CONTEXT:UBATCH:FLASH ...]
#
# Each capture lands in OUT_DIR/MODEL-cCONTEXT-uUBATCH[-fa]. Without specs: the two committed in
# tests/data/captures (llama-3.1-8b at 4096 tokens, micro-batch 512, flash attention off and on):
#   tests/models/capture_corpus.sh build/default/simulator/gallocsim build/upstream tests/data/captures
# regenerates them. More specs make a larger corpus (write_real_shape.py --list names the
# models); each run takes about 40 s and 9 GB of memory for an 8B model (llama.cpp's load
# touches the mapped file's pages; the KV cache of a 4k context is 512 MiB). Exit 77 (skipped)
# when the venv or the capture library is missing.
set -euo pipefail
gallocsim=$1 upstream=$2 out=$3
shift 3
specs=("$@")
((${#specs[@]})) || specs=(llama-3.1-8b:4096:512:off llama-3.1-8b:4096:512:on)
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
mkdir -p "$out"
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
passed=0
for spec in "${specs[@]}"; do
  IFS=: read -r model context ubatch flash <<< "$spec"
  name=$model-c$context-u$ubatch$([[ $flash == on ]] && echo -fa || true)
  [[ -f $models/$model.gguf ]] || "$python" "$here/write_real_shape.py" "$model" "$models/$model.gguf" --vocab-dir "$vocab"
  rm -rf "${out:?}/$name"
  "$gallocsim" capture --out "$out/$name" -- "$python" "$here/reserve.py" "$models/$model.gguf" \
    --context "$context" --ubatch "$ubatch" --flash-attn "$flash" 2> "$out/$name.log" || { tail -n 30 "$out/$name.log"; exit 1; }
  grep -E "^(captured|calls:|graphs:|largest buffer)" "$out/$name.log" >&2 || true
  rm -f "$out/$name.log"
  "$gallocsim" conform "$out/$name"
  passed=$((passed + 1))
done
echo "$passed of ${#specs[@]} captures conform"
