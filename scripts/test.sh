#!/usr/bin/env bash
# The README's test command: install everything the tests need on a fresh machine, then run them.
#   system: docker.io, bubblewrap, ripgrep, debootstrap, git, gcc, g++; dockerd; the horma-sandbox image (scripts/setup-sandbox.sh)
#   python: a venv in .venv with horma and its test, embedding, ALFWorld, MCP, local-model and training extras
#   checks: `ruff check .` and `mypy` (configured in pyproject.toml) must report nothing before pytest runs
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k sandbox`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ]; then
  bash scripts/setup-sandbox.sh
elif command -v sudo >/dev/null; then
  sudo bash scripts/setup-sandbox.sh
else
  echo "note: not root and no sudo: skipping system setup; docker/bwrap tests skip if the tools are absent" >&2
fi

python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
# torch first, pinned: 2.13.0 is the CPU build these machines carry; an open range would pull a multi-GB CUDA build.
python -m pip install -q "torch==2.13.0"
# The local extra compiles llama.cpp (llama-cpp-python has no Linux wheel on PyPI): use every core, skip the
# multimodal library and llama.cpp's own tools, tests and examples. pip keeps the built wheel in
# ~/.cache/pip/wheels, so only the first install on a machine compiles.
# GGML_NATIVE=OFF + a fixed AVX2/FMA/F16C set: portable, and skips ggml's AMX kernels (GCC builds segfault on AMX CPUs).
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON}"
python -m pip install -q -e ".[test,embed,alfworld,mcp,local,train]"
# A wheel an older version of this script built natively (pip caches it by version, not by CMAKE_ARGS) carries
# the AMX kernels that crash: rebuild it once with the flags above.
if python -c "import llama_cpp, sys; sys.exit(b'AMX_INT8 = 1' in llama_cpp.llama_print_system_info())"; then :; else
  echo "test.sh: the cached llama-cpp-python build has AMX kernels (they crash here); rebuilding it" >&2
  python -m pip cache remove llama_cpp_python >/dev/null 2>&1 || true
  python -m pip install -q --force-reinstall --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$(python -c 'import llama_cpp; print(llama_cpp.__version__)')"
fi

# Lint and type-check first, with the venv's ruff and mypy (pinned in the test extra; rules in pyproject.toml):
# any finding fails the run before the tests start.
python -m ruff check .
python -m mypy

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
python -m pytest -q -rs "$@"
