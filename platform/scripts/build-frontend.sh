#!/usr/bin/env bash
# Build the browser app (frontend/ → frontend/dist) only when something it is built from changed:
# `npm ci` when the lockfile changed, `npm run build` when the sources, config or lockfile changed.
# Stamps live in frontend/node_modules/ (never served, never committed).
set -euo pipefail
cd "$(dirname "$0")/../../frontend"

if ! command -v npm >/dev/null 2>&1; then
  if [ -f dist/index.html ]; then
    echo "[frontend] npm not found; serving the existing build in frontend/dist" >&2; exit 0
  fi
  echo "[frontend] npm (Node.js >= 20.19) is needed to build the web UI" >&2; exit 1
fi

hash_of() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

lock_want=$(hash_of package.json package-lock.json)
lock_stamp=node_modules/.lakeport-deps-stamp
if [ ! -f "$lock_stamp" ] || [ "$(cat "$lock_stamp")" != "$lock_want" ]; then
  echo "[frontend] installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_want" > "$lock_stamp"
fi

# every file the build reads: sources, entry HTML, configs and the lockfile
mapfile -t inputs < <(find src -type f | LC_ALL=C sort; printf '%s\n' index.html vite.config.ts tsconfig.json package.json package-lock.json)
build_want=$(hash_of "${inputs[@]}")
build_stamp=node_modules/.lakeport-build-stamp
if [ ! -f dist/index.html ] || [ ! -f "$build_stamp" ] || [ "$(cat "$build_stamp")" != "$build_want" ]; then
  echo "[frontend] building the web UI"
  npm run build --silent
  echo "$build_want" > "$build_stamp"
fi
