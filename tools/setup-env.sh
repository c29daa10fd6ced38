#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment.
#   tools/setup-env.sh VENV_DIR
# Idempotent: an environment whose stamp matches the hash of the requirement files is reused.
# torch is installed first (the CPU wheel), then everything else under constraints.txt so
# that nothing pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}
HASH=$(cat requirements.txt requirements-dev.txt constraints.txt setup.py settings.ini | sha256sum | cut -c1-12)
STAMP="$VENV/.gcelib-env-$HASH"
if [ -f "$STAMP" ] && "$VENV/bin/python" -c 'import torch, nbdev, papermill' 2>/dev/null; then
  exit 0
fi
echo "Building the environment in $VENV (3-5 minutes on a fresh machine)..."
python3 -m venv "$VENV"
PIP="$VENV/bin/python -m pip --disable-pip-version-check"
quiet() { grep -v -E 'Location .* is ignored|^\s*$' || true; }
$PIP install -q 'torch==2.13.0' 2>&1 | quiet
$PIP install -q -c constraints.txt -r requirements.txt -r requirements-dev.txt 2>&1 | quiet
$PIP install -q --no-deps -e . 2>&1 | quiet
$PIP check
# KaTeX for the offline docs (maths without a network).
if command -v npm >/dev/null && [ ! -f "$VENV/katex/package.json" ]; then
  mkdir -p "$VENV/katex" && npm install --silent --prefix "$VENV/katex" katex@0.16.11 >/dev/null 2>&1 \
    || echo "warning: npm could not install katex; docs maths will use the CDN"
fi
rm -f "$VENV"/.gcelib-env-*
touch "$STAMP"
echo "Environment ready: $VENV"
