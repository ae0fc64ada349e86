#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, from the repository root, after tests/gpu/prepare.sh made .gpu/
# here and .gpu/ travelled with the repository: gallocsim's CUDA tests, then llama.cpp 0c1e570
# (llama-cpp-python 0.3.36's tree) built with CUDA and captured generating text, all layers on the
# GPU and one layer split off; every call replayed by `gallocsim conform`. Results go to $OUT
# (default: .gpu/out). About 4 minutes on 16 cores, most of it building llama.cpp's CUDA kernels.
set -uo pipefail
here=$(pwd)/.gpu
OUT=${OUT:-$here/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$here/lib
mkdir -p /work/shared/golden && cp "$here/golden/"*.json /work/shared/golden/
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "cores $(nproc); $(g++ --version | head -1); $(cmake --version | head -1); nvcc $(nvcc --version | tail -2 | head -1)"
echo "== executor_cuda_tests (RelWithDebInfo, as CI builds them)"
"$here/executor_cuda_tests" > "$OUT/cuda_tests.txt" 2>&1; tail -4 "$OUT/cuda_tests.txt"
echo "== executor_cuda_tests (Release)"
"$here/executor_cuda_tests_release" > "$OUT/cuda_tests_release.txt" 2>&1; tail -2 "$OUT/cuda_tests_release.txt"
echo "== llama.cpp with CUDA"
mkdir -p /tmp/ll && tar -C /tmp/ll -xJf "$here/cap/llama-src.tar.xz"
gen=(); command -v ninja > /dev/null && gen=(-G Ninja)
start=$(date +%s)
cmake -S /tmp/ll -B /tmp/llb "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_NCCL=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF \
  > /tmp/llama_configure.log 2>&1 || { tail -20 /tmp/llama_configure.log; exit 1; }
timeout 430 cmake --build /tmp/llb --target llama -j 16 > "$OUT/llama_build.log" 2>&1 || { tail -20 "$OUT/llama_build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
cp -r "$here/cap/py" /tmp/py && cp -P /tmp/llb/bin/*.so* /tmp/py/llama_cpp/lib/
export PYTHONPATH=/tmp/py LLAMA_GRAPH_REUSE_DISABLE=1
G=$here/cap/bin/gallocsim
for layers in 99 1; do
  echo "== capture, $layers GPU layers"
  "$G" capture --out /tmp/cap$layers -- python3 tests/e2e/generate.py "$here/cap/tiny-llama.gguf" --tokens 4 --context 64 \
    --gpu-layers $layers --verbose 2> "$OUT/llama$layers.log"
  grep -E "splits =|CUDA0 compute|CUDA_Host compute|captured|calls:|graphs:|largest|exited" "$OUT/llama$layers.log"
  "$G" conform /tmp/cap$layers | tail -2
  graph=$(python3 -c "import json,sys; print(json.loads(open('/tmp/cap$layers/session-0.jsonl').read().splitlines()[1])['graph'])")
  "$G" why "/tmp/cap$layers/$graph" | head -14
  tar -C /tmp -czf "$OUT/cap$layers.tgz" cap$layers
done
