#!/usr/bin/env bash
# `gallocsim predict` end to end on the real llama.cpp of build/upstream/venv:
#   1. a tiny real-shape GGUF (write_real_shape.py tiny-llama: Q4_0 shapes, the data a hole) and a
#      tiny GGUF with real random weights (write_tiny_model.py, written by `gguf`): every
#      configuration's compute buffer equals llama.cpp's own log line and a capture of a real load
#      (check_predict.py says how each is got without predict);
#   2. --budget: the context it answers fits and the next multiple of 256 does not, each checked by
#      a plain predict at that context;
#   3. bad input: a clear message and exit 2 (a bad list, an unknown KV type, a missing file, a file
#      that is not a GGUF, a cut-short GGUF, an architecture llama.cpp does not know, a bad budget).
#
#   predict_check.sh GALLOCSIM UPSTREAM_DIR WORK_DIR
# Exit 77 (skipped) when the venv or the capture library is missing.
set -euo pipefail
gallocsim=$1 upstream=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
python=$upstream/venv/bin/python
vocab=$upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp/models
if [[ ! -x $python ]] || ! "$python" -c "import llama_cpp, gguf" 2>/dev/null; then
  echo "skipped: no llama-cpp-python venv in $upstream (run .ci/install-upstream)"; exit 77
fi
if [[ ! -f $(dirname "$gallocsim")/libgallocsim_capture.so ]]; then
  echo "skipped: the capture library was not built (CMake found no ggml tree: see GALLOCSIM_GGML_DIR)"; exit 77
fi
export GALLOCSIM_PYTHON=$python
rm -rf "$work" && mkdir -p "$work"
"$python" "$here/../models/write_real_shape.py" tiny-llama "$work/shape.gguf" --vocab-dir "$vocab" > /dev/null
"$python" "$here/../e2e/write_tiny_model.py" llama "$work/weights.gguf" --vocab-dir "$vocab" > /dev/null

# 1. Against llama.cpp's log and a capture of a real load.
"$python" "$here/check_predict.py" "$gallocsim" "$work/shape.gguf" "$work"
"$python" "$here/check_predict.py" "$gallocsim" "$work/weights.gguf" "$work"

# 2. The budget's answer L: total(L) <= budget < total(L + 256), each total from a plain predict.
budget=$((16 * 1024 * 1024))
"$gallocsim" predict "$work/shape.gguf" --flash-attn on --ubatch 32 --batch 32 --budget 16MiB --json > "$work/budget.json"
largest=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['budget']['answers'][0]['largest_ctx'])" "$work/budget.json")
"$gallocsim" predict "$work/shape.gguf" --flash-attn on --ubatch 32 --batch 32 --ctx "$largest,$((largest + 256))" --json > "$work/around.json"
"$python" - "$work/around.json" "$budget" "$largest" <<'EOF'
import json, sys
rows, budget, largest = json.load(open(sys.argv[1]))["rows"], int(sys.argv[2]), int(sys.argv[3])
fits, next_fits = rows[0]["total_bytes"] <= budget, rows[1]["total_bytes"] <= budget
print(f"budget {budget}: ctx {largest} needs {rows[0]['total_bytes']}, ctx {largest + 256} needs {rows[1]['total_bytes']}")
if largest % 256 or not fits or next_fits:
    sys.exit("the budget's answer is not the largest multiple of 256 that fits")
print("budget answer checked")
EOF

# 3. Bad input: exit 2 and a message naming the problem.
printf 'GGUF' > "$work/short.gguf"
head -c 300 "$work/shape.gguf" > "$work/cut.gguf"
"$python" - "$work/unknown-arch.gguf" <<'EOF'
import sys, gguf
w = gguf.GGUFWriter(sys.argv[1], "nosucharch")
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_ti_data_to_file(); w.close()
EOF
expect_refusal() {  # MESSAGE ARGS...: exit 2 and MESSAGE in the error
  local message=$1; shift
  local rc=0
  "$gallocsim" predict "$@" > "$work/out.txt" 2> "$work/err.txt" || rc=$?
  if [[ $rc != 2 ]] || ! grep -qF -- "$message" "$work/err.txt"; then
    echo "predict $*: expected exit 2 and \"$message\", got exit $rc: $(cat "$work/err.txt")"; exit 1
  fi
  echo "refused as expected: $(head -n 1 "$work/err.txt")"
}
expect_refusal '--ctx takes a comma list of positive whole numbers; "4k" is not one' "$work/shape.gguf" --ctx 4096,4k
expect_refusal '--ubatch takes a comma list of positive whole numbers; "0" is not one' "$work/shape.gguf" --ubatch 0
expect_refusal 'unknown --kv-type "q9"' "$work/shape.gguf" --kv-type f16,q9
expect_refusal '--flash-attn takes on, off or auto' "$work/shape.gguf" --flash-attn yes
expect_refusal "$work/missing.gguf: no such file" "$work/missing.gguf"
expect_refusal "not a GGUF file" "$here/check_predict.py"
expect_refusal "ends inside its GGUF header" "$work/short.gguf"
expect_refusal "ends inside its GGUF header" "$work/cut.gguf"
expect_refusal "unknown model architecture: 'nosucharch'" "$work/unknown-arch.gguf"
expect_refusal '--budget takes a size such as 24GiB' "$work/shape.gguf" --budget lots
expect_refusal "cannot import llama_cpp" "$work/shape.gguf" --python "$(command -v python3)"
echo "predict: all checks passed"
