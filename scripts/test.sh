#!/usr/bin/env bash
# The README's test command: install everything the tests need on a fresh machine, then run them.
#   system: docker.io, bubblewrap, ripgrep, debootstrap; dockerd; the horma-sandbox image (scripts/setup-sandbox.sh)
#   python: a venv in .venv with horma and its test, embedding and ALFWorld extras
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
python -m pip install -q -e ".[test,embed,alfworld,train]"

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
python -m pytest -q -rs "$@"
