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
if [ "$#" -gt 0 ] || [ "${LAKEPORT_TEST_SHARDS:-2}" -le 1 ]; then
  exec .venv/bin/python -m pytest --create-db --durations=25 "$@"
fi
# The whole suite: LAKEPORT_TEST_SHARDS (default 2) pytest sessions side by side, each a complete session of its own
# (tests/support/shards.py): its own test database, Redis database, engine scratch directory and temp directory.
# Most of the suite waits (JVM starts, workers, streams, the browser): two sessions overlap those waits. Three did
# not pay on two cores: the CPU was already busy, timing-bound tests slowed, and CI ran past its 90 minutes.
shards=${LAKEPORT_TEST_SHARDS:-2}
# Each shard's lines go out as they come, stamped with the time and the shard: a run that is stopped from outside
# still shows which test each shard was in, and for how long.
stamp() {
  .venv/bin/python -u -c 'import sys, time
for line in sys.stdin:
    sys.stdout.write(time.strftime("%H:%M:%S ") + "[" + sys.argv[1] + "] " + line)' "$1"
}
logs=$(mktemp -d /tmp/lakeport-test-logs.XXXXXX)
pids=()
for i in $(seq 1 "$shards"); do
  db="${test_db}_s$i"
  psql -h 127.0.0.1 -U postgres -d postgres -tAq -c \
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${db//\'/}' AND pid <> pg_backend_pid()" \
    >/dev/null 2>&1 || true
  (LAKEPORT_TEST_DB="$db" CELERY_BROKER_URL="redis://127.0.0.1:6379/$((16 - i))" \
    LAKEPORT_ENGINE_SCRATCH_DIR="${TMPDIR:-/tmp}/lakeport-engines-s$i" PYTHONUNBUFFERED=1 \
    .venv/bin/python -m pytest --create-db --durations=25 --shard "$i/$shards" -v \
      --basetemp="${TMPDIR:-/tmp}/lakeport-test-s$i" --junitxml="$logs/shard-$i.xml" 2>&1 \
    | tee "$logs/shard-$i.log" | stamp "shard $i") &  # a subshell: pipefail gives pytest's status to `wait`
  pids+=($!)
  sleep 20  # the shards' collection and first imports do not start at the same moment
done
status=0
for i in $(seq 1 "$shards"); do
  wait "${pids[$((i - 1))]}" || status=1
done
# Each shard's failures and slowest tests again, together at the end (the live lines above interleave).
for i in $(seq 1 "$shards"); do
  echo "======================== shard $i/$shards ($logs/shard-$i.log) ========================"
  sed -n '/slowest .* durations/,$p' "$logs/shard-$i.log"
done
exit $status
