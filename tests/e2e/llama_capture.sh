#!/usr/bin/env bash
# End to end on a real llama.cpp: writes a tiny random-weight model of ARCH, generates a few
# tokens with llama-cpp-python under `gallocsim capture`, checks the capture holds the scheduler's
# reserves and real alloc_graph calls, and requires `gallocsim conform` to reproduce every call.
#
#   llama_capture.sh GALLOCSIM UPSTREAM_DIR WORK_DIR ARCH [--venv NAME] [--reserved-tokens N,...]
#                    [--gpu-layers N] [--fit-pass] [--program xllamacpp] [--expect CHECK_CAPTURE_ARGS]
#                    [CONFORM ARGS]
# --venv: the venv under UPSTREAM_DIR whose llama-cpp-python runs (default venv: llama.cpp
# 0c1e570; venv-seed: the 2024 llama.cpp of llama-cpp-python 0.2.80; venv-vulkan: 0c1e570 with
# its Vulkan backend). --reserved-tokens: the graph sizes the scheduler must have reserved
# (default: the micro-batch and one token; the 2024 scheduler reserved the micro-batch only).
# --gpu-layers: the layers llama.cpp offloads to the GPU backend (default 0). --fit-pass: measure
# first as llama.cpp's fit pass does (generate.py --fit-pass), and check it was captured.
# --program xllamacpp: generate through xllamacpp's wheel (generate_xllamacpp.py, venv-wheels),
# whose llama.cpp runs its fit pass by itself. --expect: more that
# check_capture.py must find (--buffer-types, --chunked, --split). Exit 77 (skipped) when the
# venv is missing, capture was not built, or a GPU run finds no Vulkan driver.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3 arch=$4
shift 4
venv=venv reserved=64,1 gpu_layers=0 expect=() fit=() program=generate.py module=llama_cpp
while [[ $# -gt 0 ]]; do
  case $1 in
    --venv) venv=$2; shift 2 ;;
    --reserved-tokens) reserved=$2; shift 2 ;;
    --gpu-layers) gpu_layers=$2; shift 2 ;;
    --fit-pass) fit=(--fit-pass); shift ;;
    --program) program=generate_$2.py module=$2; shift 2 ;;
    --expect) read -r -a expect <<< "$2"; shift 2 ;;
    *) break ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/$venv/bin/python
writer=$upstream/venv/bin/python  # gguf and numpy live in the main venv
vocab=$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models
lib=$(dirname "$gallocsim")/libgallocsim_capture.so

if [[ ! -x $python ]] || ! "$python" -c "import $module" 2>/dev/null || ! "$writer" -c "import gguf" 2>/dev/null; then
  echo "skipped: no $module in $upstream/$venv (run .ci/install-upstream)"; exit 77
fi
if ((gpu_layers > 0)) && ! compgen -G "/usr/share/vulkan/icd.d/lvp_icd*.json" > /dev/null; then
  echo "skipped: no Vulkan driver for the CPU (Mesa's lavapipe: apt install mesa-vulkan-drivers)"; exit 77
fi
if [[ ! -f $lib ]]; then
  echo "skipped: $lib was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi

rm -rf "$work" && mkdir -p "$work"
"$writer" "$here/write_tiny_model.py" "$arch" "$work/tiny-$arch.gguf" --vocab-dir "$vocab"
# n_ctx = n_batch = 64 tokens: the scheduler's worst case is a 64-token micro-batch. llama.cpp
# reuses an unchanged decode graph without calling alloc_graph again; LLAMA_GRAPH_REUSE_DISABLE
# makes every token's graph go through the allocator, so the replay checks one call per token.
# With a GPU backend, llama.cpp's own log says how many splits its scheduler made; the check
# compares that with what gallocsim reads off the captured graphs.
log=() verbose=()
if ((gpu_layers > 0)); then
  log=(--llama-log "$work/llama.log" --gallocsim "$gallocsim") verbose=(--verbose)
fi
LLAMA_GRAPH_REUSE_DISABLE=1 "$gallocsim" capture --out "$work/capture" -- "$python" "$here/$program" "$work/tiny-$arch.gguf" \
  --tokens 4 --context 64 --gpu-layers "$gpu_layers" "${verbose[@]}" "${fit[@]}" 2> "$work/llama.log" || { tail -n 30 "$work/llama.log"; exit 1; }
# The capture's summary, the program's output and the scheduler's count (the rest is in llama.log).
grep -E "^(captured|calls:|graphs:|largest buffer|generated|sched_reserve: graph)|exited with" "$work/llama.log" >&2 || true
"$writer" "$here/check_capture.py" "$work/capture" --reserved-tokens "$reserved" --generated 4 "${expect[@]}" "${fit[@]}" "${log[@]}"
"$gallocsim" conform "$work/capture" "$@"
