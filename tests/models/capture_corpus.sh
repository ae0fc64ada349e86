#!/usr/bin/env bash
# Real-size captures without weights: for each MODEL:CONTEXT:UBATCH:FLASH[:KV], writes the model's
# shapes (write_real_shape.py, a sparse file), creates a llama.cpp context on it under
# `gallocsim capture` (reserve.py: llama.cpp reserves its compute graphs and decodes nothing),
# and requires `gallocsim conform` to reproduce every call.
#
#   capture_corpus.sh GALLOCSIM UPSTREAM_DIR OUT_DIR [MODEL:CONTEXT:UBATCH:FLASH[:KV] ... | --matrix | --list-matrix]
#
# A spec is the knob: MODEL (write_real_shape.py --list), the context in tokens (llama.cpp
# allocates the KV cache for all of it), the micro-batch (the largest graph reserved), flash
# attention on|off, and optionally the KV cache's type (f16, llama.cpp's default, or q8_0/q4_0,
# which need flash attention on). Options a model needs (BERT: --embedding) come from
# write_real_shape.py --reserve-args. Each capture lands in OUT_DIR/MODEL-cCONTEXT-uUBATCH[-fa][-kvKV].
#
# Without specs: the two committed in tests/data/captures (llama-3.1-8b at 4096 tokens,
# micro-batch 512, flash attention off and on):
#   tests/models/capture_corpus.sh build/default/simulator/gallocsim build/upstream tests/data/captures
# regenerates them. --matrix: the corpus of tests/models/corpus-results.md (the specs below, 81
# captures, about 20 minutes on 2 cores), as in
#   tests/models/capture_corpus.sh build/default/simulator/gallocsim build/upstream build/corpus --matrix
# (--list-matrix prints its specs, one a line, to run them one by one).
#
# Memory and time, one capture at a time (each prints its wall time and peak RSS when
# /usr/bin/time is there): llama.cpp's load touches the mapped weights (page cache over the hole,
# reclaimable, but counted in RSS), copies Q4_0 weights into repacked buffers (anonymous memory,
# the weights' size: 4-5 GB for a 7-9B model; mixtral-8x7b is written in Q3_K, not repacked, or it
# would need 26 GB) and clears the KV cache (f16: 4 GiB for an 8B model at 32k tokens). Measured:
# 2-17 s and 5.5-12.5 GB peak RSS for the 3.8-9B models, 20-30 s and 16-19 GB (mostly page cache) for
# mixtral-8x7b, 2 s and 3 GB for mamba-2.8b, under 1 s and 0.3 GB for BERT; the model's file
# takes a few MB of disk. Exit 77 (skipped) when the venv or the capture library is missing.
#
# --predict-matrix: `gallocsim predict` on each of the eight shapes at two contexts (micro-batch 512,
# flash attention off and on where it applies), every configuration checked against llama.cpp's own
# compute-buffer log line and a capture of a real load (tests/predict/check_predict.py): 7 to 11
# minutes for the eight on 2 cores (the real loads repack Q4_0 weights), up to 12 GB of memory.
#   tests/models/capture_corpus.sh build/default/simulator/gallocsim build/upstream build/predict-corpus --predict-matrix
set -euo pipefail
gallocsim=$1 upstream=$2 out=$3
shift 3
specs=("$@")
if [[ ${specs[0]-} == --predict-matrix ]]; then
  here=$(cd "$(dirname "$0")" && pwd)
  python=$upstream/venv/bin/python
  vocab=$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models
  if [[ ! -x $python ]] || ! "$python" -c "import llama_cpp, gguf" 2>/dev/null; then
    echo "skipped: no llama-cpp-python venv in $upstream (run .ci/install-upstream)"; exit 77
  fi
  # MODEL:CONTEXTS:FLASH: two contexts each, within what the model was trained for.
  cells=(llama-3.1-8b:4096,32768:off,on mistral-7b:4096,32768:off,on mixtral-8x7b:4096,32768:off,on
         qwen2.5-7b:4096,32768:off,on gemma-2-9b:4096,8192:off,on phi-3-mini:2048,4096:off,on
         mamba-2.8b:4096,32768:off bge-base-en-v1.5:256,512:off)
  mkdir -p "$out"
  agreed=0
  for cell in "${cells[@]}"; do
    IFS=: read -r model contexts flash <<< "$cell"
    "$python" "$here/write_real_shape.py" "$model" "$out/$model.gguf" --vocab-dir "$vocab" > /dev/null
    read -r -a extra <<< "$("$python" "$here/write_real_shape.py" --reserve-args "$model")"
    "$python" "$here/../predict/check_predict.py" "$gallocsim" "$out/$model.gguf" "$out" --ctx "$contexts" \
      --ubatch 512 --flash-attn "$flash" "${extra[@]}"
    rm -f "$out/$model.gguf"
    agreed=$((agreed + 1))
  done
  echo "$agreed of ${#cells[@]} models: predict agrees with llama.cpp"
  exit 0
fi
((${#specs[@]})) || specs=(llama-3.1-8b:4096:512:off llama-3.1-8b:4096:512:on)
if [[ ${specs[0]} == --matrix || ${specs[0]} == --list-matrix ]]; then
  # Most telling cells first (4k, micro-batch 512, both attentions), then 8k/2048, 16k and 32k at
  # 512 with flash attention, then the rest. Contexts a model was trained for: gemma-2-9b 8k,
  # phi-3-mini 4k, BERT 512; mamba keeps no KV cache (4k and 32k only); flash attention is moot
  # for mamba and BERT.
  specs=()
  attn=(qwen2.5-7b gemma-2-9b phi-3-mini mixtral-8x7b llama-3.1-8b mistral-7b)
  declare -A max=([qwen2.5-7b]=32768 [gemma-2-9b]=8192 [phi-3-mini]=4096 [mixtral-8x7b]=32768
                  [llama-3.1-8b]=32768 [mistral-7b]=32768)
  cells=(4096:512:off 4096:512:on 8192:2048:off 8192:2048:on 16384:512:on 32768:512:on
         4096:2048:off 4096:2048:on 8192:512:off 8192:512:on 16384:512:off 16384:2048:off 16384:2048:on
         32768:512:off 32768:2048:off 32768:2048:on)
  for cell in "${cells[@]}"; do
    for m in "${attn[@]}"; do
      ((${cell%%:*} <= ${max[$m]})) && specs+=("$m:$cell")
    done
    case $cell in
      4096:512:off) specs+=(mamba-2.8b:4096:512:off bge-base-en-v1.5:512:512:off) ;;
      4096:2048:off|32768:512:off|32768:2048:off) specs+=(mamba-2.8b:$cell) ;;
    esac
  done
  [[ $1 == --list-matrix ]] && { printf '%s\n' "${specs[@]}"; exit 0; }
fi
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
timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "%e s, peak RSS %M KB")
mkdir -p "$out"
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
passed=0
for spec in "${specs[@]}"; do
  IFS=: read -r model context ubatch flash kv <<< "$spec"
  name=$model-c$context-u$ubatch$([[ $flash == on ]] && echo -fa || true)$([[ -n $kv ]] && echo "-kv$kv" || true)
  [[ -f $models/$model.gguf ]] || "$python" "$here/write_real_shape.py" "$model" "$models/$model.gguf" --vocab-dir "$vocab"
  read -r -a extra <<< "$("$python" "$here/write_real_shape.py" --reserve-args "$model")"
  [[ -n $kv ]] && extra+=(--cache-type "$kv")
  rm -rf "${out:?}/$name"
  "${timer[@]}" "$gallocsim" capture --out "$out/$name" -- "$python" "$here/reserve.py" "$models/$model.gguf" \
    --context "$context" --ubatch "$ubatch" --flash-attn "$flash" "${extra[@]}" 2> "$out/$name.log" \
    || { tail -n 30 "$out/$name.log"; exit 1; }
  grep -E "^(captured|calls:|graphs:|largest buffer)" "$out/$name.log" >&2 || true
  ((${#timer[@]})) && echo "$name: $(tail -n 1 "$out/$name.log")" >&2
  rm -f "$out/$name.log"
  "$gallocsim" conform "$out/$name"
  passed=$((passed + 1))
done
echo "$passed of ${#specs[@]} captures conform"
