#!/usr/bin/env bash
# `make test`: install what is missing, start the services the suite talks to, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash platform/scripts/ensure-python.sh
bash platform/scripts/ensure-system.sh chromium ${LAKEPORT_TEST_EXTRAS:-}
bash platform/scripts/ensure-services.sh
if [ -f frontend/package.json ]; then bash platform/scripts/build-frontend.sh; fi
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
# --create-db: a test database left by an earlier run never hides a migration problem.
exec .venv/bin/python -m pytest --create-db "$@"
