#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment.
#   tools/setup-env.sh [VENV_DIR]      (default .venv)
# Idempotent: an environment stamped with the hash of the requirement files is reused, and only
# the editable install of this checkout is refreshed. torch goes first (the CPU wheel), then the
# rest under constraints.txt so that nothing pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}
HASH=$(cat requirements.txt requirements-dev.txt constraints.txt | sha256sum | cut -c1-12)
STAMP="$VENV/.gcelib-env-$HASH"
PIP="$VENV/bin/python -m pip --disable-pip-version-check"
quiet() { grep -v -E 'Location .* is ignored|^\s*$' || true; }

# The supported range comes from settings.ini (min_python, max_python), as setup.py reads it.
MIN=$(sed -n 's/^min_python *= *//p' settings.ini); MAX=$(sed -n 's/^max_python *= *//p' settings.ini)
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
VER=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)
if ! "$PYTHON" -c "import sys; lo, hi = [tuple(map(int, v.split('.'))) for v in ('$MIN', '$MAX')]; sys.exit(not lo <= sys.version_info[:2] <= hi)" 2>/dev/null; then
  echo "gcelib needs Python $MIN to $MAX (found $VER at $PYTHON); set PYTHON=/path/to/python3.11" >&2
  exit 2
fi
if [ "$VER" != "$MIN" ]; then
  echo "warning: Python $VER: the pinned stack installs on it, but gcelib is tested on $MIN only" >&2
fi

if ! { [ -f "$STAMP" ] && "$VENV/bin/python" -c 'import torch, nbdev, papermill' 2>/dev/null; }; then
  echo "Building the environment in $VENV (3-8 minutes on a fresh machine)..."
  "$PYTHON" -m venv "$VENV"
  # On this project's machines pip finds a local CPU wheel of torch (pip's find-links). Elsewhere,
  # point PIP_EXTRA_INDEX_URL at PyTorch's CPU wheel index, or pip brings the CUDA build.
  $PIP install -q 'torch==2.13.0' 2>&1 | quiet
  $PIP install -q -c constraints.txt -r requirements.txt -r requirements-dev.txt 2>&1 | quiet
  $PIP check
  rm -f "$VENV"/.gcelib-env-*
  touch "$STAMP"
fi

# KaTeX for the offline docs (maths without a network); retried on every run until it is there.
if [ ! -f "$VENV/katex/node_modules/katex/dist/katex.min.js" ]; then
  if command -v npm >/dev/null; then
    mkdir -p "$VENV/katex"
    npm install --silent --prefix "$VENV/katex" katex@0.16.11 >/dev/null 2>&1 \
      || echo "warning: npm could not install katex; docs pages will load maths from the CDN"
  else
    echo "warning: npm not found; install Node.js for offline maths in the docs"
  fi
fi

# The editable install points at one checkout; refresh it when the environment serves another.
want=$(pwd)/gcelib
# (Asked from / so that the checkout in the working directory does not answer for the install.)
have=$(cd / && "$(realpath "$VENV")/bin/python" -c 'import gcelib, os; print(os.path.dirname(os.path.realpath(gcelib.__file__)))' 2>/dev/null || true)
if [ "$have" != "$(realpath "$want")" ] || [ ! -x "$VENV/bin/gcelib" ]; then
  $PIP install -q --no-deps -e . 2>&1 | quiet
fi
