#!/usr/bin/env bash
# A Spark standalone master from the pyspark package.  SPARK_MASTER_HOST (127.0.0.1) SPARK_MASTER_PORT (7077)
# SPARK_MASTER_WEBUI_PORT (8080)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
PY=${PYTHON:-$root/.venv/bin/python}
SPARK_HOME=${SPARK_HOME:-$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')}
export SPARK_HOME
exec "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
  --host "${SPARK_MASTER_HOST:-127.0.0.1}" --port "${SPARK_MASTER_PORT:-7077}" \
  --webui-port "${SPARK_MASTER_WEBUI_PORT:-8080}"
