#!/usr/bin/env bash
# Packs what tests/gpu/run.sh needs on a machine with an NVIDIA GPU and nothing else installed
# (no Debian packages, no network): gallocsim's CUDA tests as built here (RelWithDebInfo and
# Release, CUDA parts for sm_90), the CUDA runtime they link, the golden file one test reads,
# the capture tool, llama-cpp-python 0.3.36's Python package and llama.cpp tree (built with CUDA
# there), and the tiny llama model of the capture tests. Into .gpu/ (ignored by git), to be
# carried to the machine with the repository; there, `bash .gpu/run.sh` from the repository root.
#
#   tests/gpu/prepare.sh    # after building the default and release presets here
set -euo pipefail
cd "$(dirname "$0")/../.."
site=$(echo build/upstream/venv/lib/python3*/site-packages)
tree=build/upstream/src/llama_cpp_python-0.3.36/vendor/llama.cpp
model=build/default/tests/e2e-llama/tiny-llama.gguf
for need in build/default/tests/executor_cuda_tests build/release/tests/executor_cuda_tests \
            build/default/simulator/gallocsim build/default/simulator/libgallocsim_capture.so "$site/llama_cpp" "$tree" "$model"; do
  [[ -e $need ]] || { echo "prepare: $need is missing (build the default and release presets, run .ci/install-upstream and ctest -R llama_cpp_capture_llama)" >&2; exit 1; }
done
rm -rf .gpu && mkdir -p .gpu/lib .gpu/golden .gpu/cap/bin .gpu/cap/py
cp build/default/tests/executor_cuda_tests .gpu/executor_cuda_tests
cp build/release/tests/executor_cuda_tests .gpu/executor_cuda_tests_release
cp /usr/local/cuda/lib/libcudart.so.13 .gpu/lib/
cp ../shared/golden/llama-tiny-t32.json .gpu/golden/
cp build/default/simulator/gallocsim build/default/simulator/libgallocsim_capture.so .gpu/cap/bin/
strip .gpu/executor_cuda_tests .gpu/executor_cuda_tests_release .gpu/cap/bin/gallocsim
# The Python package without its CPU libraries (the machine builds its own), but with libmtmd,
# which the package loads at import and which does not depend on the backend.
cp -r "$site/llama_cpp" "$site/diskcache" .gpu/cap/py/
rm -rf .gpu/cap/py/llama_cpp/lib .gpu/cap/py/llama_cpp/__pycache__ .gpu/cap/py/llama_cpp/server
mkdir .gpu/cap/py/llama_cpp/lib && cp "$site/llama_cpp/lib/libmtmd.so" "$site/llama_cpp/lib/libmtmd.so.0" .gpu/cap/py/llama_cpp/lib/
# llama.cpp's tree without the other GPU backends (and without its 75 MB of vocabularies).
tar -C "$tree" -cJf .gpu/cap/llama-src.tar.xz --exclude='ggml/src/ggml-vulkan' --exclude='ggml/src/ggml-sycl' \
  --exclude='ggml/src/ggml-metal' --exclude='ggml/src/ggml-opencl' --exclude='ggml/src/ggml-cann' --exclude='ggml/src/ggml-musa' \
  --exclude='ggml/src/ggml-hip' --exclude='ggml/src/ggml-webgpu' --exclude='ggml/src/ggml-zdnn' \
  CMakeLists.txt cmake ggml src include vendor common licenses
cp "$model" .gpu/cap/
cp tests/gpu/run.sh .gpu/run.sh
grep -qx "/.gpu/" .git/info/exclude 2>/dev/null || echo "/.gpu/" >> .git/info/exclude
du -sh .gpu
