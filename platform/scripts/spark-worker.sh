#!/usr/bin/env bash
# A Spark standalone worker from the pyspark package.  SPARK_MASTER_URL (spark://127.0.0.1:7077)
# SPARK_WORKER_CORES (1) SPARK_WORKER_MEMORY (1g) SPARK_WORKER_WEBUI_PORT (8081) SPARK_WORKER_HOST (default: the machine's name)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
PY=${PYTHON:-$root/.venv/bin/python}
SPARK_HOME=${SPARK_HOME:-$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')}
export SPARK_HOME PYSPARK_PYTHON=${PYSPARK_PYTHON:-$PY}
host_args=(); [ -n "${SPARK_WORKER_HOST:-}" ] && host_args=(--host "$SPARK_WORKER_HOST")
exec "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
  "${host_args[@]}" --cores "${SPARK_WORKER_CORES:-1}" --memory "${SPARK_WORKER_MEMORY:-1g}" \
  --webui-port "${SPARK_WORKER_WEBUI_PORT:-8081}" "${SPARK_MASTER_URL:-spark://127.0.0.1:7077}"
