#!/usr/bin/env bash
# A Hive Metastore Thrift server from the pyspark jars (Hive 2.3.10), embedded Derby by default.
#   HMS_HOME (default var/hms)  HMS_PORT (9083)  HMS_WAREHOUSE (default $HMS_HOME/warehouse)
#   HMS_DB_URL / HMS_DB_DRIVER for an external database (see docs/deploy.md for the Derby-vs-PostgreSQL note).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
PY=${PYTHON:-$root/.venv/bin/python}
HMS_HOME=${HMS_HOME:-$root/var/hms}
HMS_PORT=${HMS_PORT:-9083}
HMS_WAREHOUSE=${HMS_WAREHOUSE:-$HMS_HOME/warehouse}
mkdir -p "$HMS_HOME" "$HMS_WAREHOUSE" 2>/dev/null || true
"$PY" "$root/platform/scripts/render-hive-site.py" "$HMS_HOME/conf" --warehouse "$HMS_WAREHOUSE" \
  --derby-dir "$HMS_HOME/metastore_db" >/dev/null
jars="$("$PY" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"
cd "$HMS_HOME"
exec java ${HMS_JAVA_OPTS:--Xmx512m} \
  -Dlog4j2.contextSelector=org.apache.logging.log4j.core.selector.ClassLoaderContextSelector \
  -Dderby.system.home="$HMS_HOME" \
  -cp "$HMS_HOME/conf:$jars/*" org.apache.hadoop.hive.metastore.HiveMetaStore -p "$HMS_PORT"
