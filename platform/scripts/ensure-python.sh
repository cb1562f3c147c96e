#!/usr/bin/env bash
# Create .venv and install the project's Python dependencies when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.lakeport-deps
want=$(cat pyproject.toml platform/requirements-nodeps.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[setup] installing Python dependencies"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test]'
  # packages whose metadata pins conflict with ours though they run on them (the file says why)
  .venv/bin/python -m pip install -q --no-deps -r platform/requirements-nodeps.txt
  echo "$want" > "$stamp"
fi
