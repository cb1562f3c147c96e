#!/usr/bin/env bash
# `make bench`: every benchmark in bench/, each printing `name, contender, baseline, ratio, rounds, spread`.
# Not part of `make test`: the numbers go to docs/BENCHMARKS.md by hand, with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash platform/scripts/ensure-python.sh
bash platform/scripts/ensure-system.sh
bash platform/scripts/build-jvm.sh
bash platform/scripts/ensure-services.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
for b in bench/*.py; do
  case "$(basename "$b")" in _*) continue ;; esac
  if [ -n "${BENCH:-}" ] && [[ "$(basename "$b" .py)" != *"$BENCH"* ]]; then continue; fi
  echo "== $b"
  .venv/bin/python "$b" ${BENCH_ARGS:-}
done
