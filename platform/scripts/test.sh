#!/usr/bin/env bash
# `make test`: install what is missing, start the services the suite talks to, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash platform/scripts/ensure-python.sh
bash platform/scripts/ensure-system.sh chromium ${LAKEPORT_TEST_EXTRAS:-}
bash platform/scripts/build-jvm.sh
bash platform/scripts/ensure-services.sh
if [ -f frontend/package.json ]; then bash platform/scripts/build-frontend.sh; fi
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
# Lint, the layers (docs/architecture.md) and the strict types, before the suite: seconds, and they fail fast.
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy
# The web UI's lint (frontend/eslint.config.js: feature boundaries, hooks, typescript-eslint); cached in
# frontend/node_modules/.cache, so only changed files are linted again.
if [ -f frontend/package.json ] && command -v npm >/dev/null 2>&1; then (cd frontend && npm run lint --silent); fi
# A test run that was killed can leave servers connected to the test database, and --create-db cannot drop a
# database in use: end those sessions first (only the test database's, never another).
test_db=${LAKEPORT_TEST_DB:-test_lakeport}
psql -h 127.0.0.1 -U postgres -d postgres -tAq -c \
  "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${test_db//\'/}' AND pid <> pg_backend_pid()" \
  >/dev/null 2>&1 || true
# --create-db: a test database left by an earlier run never hides a migration problem.
exec .venv/bin/python -m pytest --create-db --durations=25 "$@"
