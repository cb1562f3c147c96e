"""delta catalogs → the embedded Delta connector (jobs/spark/delta, default) or, with
LAKEPORT_DELTA_MODE=jvm, the JVM `io.delta.sql.DeltaCatalog` as the session catalog (needs delta-spark jars)."""

from __future__ import annotations

import os
from typing import Any

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
MODE_ENV = "LAKEPORT_DELTA_MODE"

# delta-rs storage option names → the Hadoop S3A/ABFS/GCS settings the JVM connector reads
_HADOOP_KEYS = {
    "aws_access_key_id": "fs.s3a.access.key",
    "aws_secret_access_key": "fs.s3a.secret.key",
    "aws_session_token": "fs.s3a.session.token",
    "aws_endpoint_url": "fs.s3a.endpoint",
    "aws_endpoint": "fs.s3a.endpoint",
    "aws_region": "fs.s3a.endpoint.region",
    "google_service_account": "google.cloud.auth.service.account.json.keyfile",
}


class DeltaBindingError(RuntimeError):
    """A delta catalog cannot be bound (missing jars, conflicting session catalog, missing connector)."""


def delta_mode(override: str | None = None) -> str:
    """'embedded' (default) or 'jvm', from the runner option or LAKEPORT_DELTA_MODE."""
    value = (override or os.environ.get(MODE_ENV, "") or "embedded").strip().lower()
    if value not in ("embedded", "jvm"):
        raise DeltaBindingError(f"{MODE_ENV} must be 'embedded' or 'jvm', not {value!r}.")
    return value


def jvm_static_conf(config: dict[str, Any]) -> dict[str, str]:
    """Spark confs binding a delta catalog to the JVM DeltaCatalog as `spark_catalog` (static: set before start).

    Storage credentials become Hadoop settings whose names Spark's redaction regex masks in the UI/event log.
    """
    conf = {
        "spark.sql.extensions": DELTA_EXTENSION,
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
    }
    warehouse = str(config.get("warehouse") or "")
    if warehouse:
        # tables live at <warehouse>/<database>/<table>; Spark's default location is <warehouse>/<db>.db/<table>
        conf["spark.sql.warehouse.dir"] = warehouse
    for key, value in (config.get("storage-options") or {}).items():
        hadoop = _HADOOP_KEYS.get(str(key).lower())
        if hadoop is None and "." in str(key):
            hadoop = str(key)  # already a Hadoop setting name (fs.azure.account.key.<acct>…)
        if hadoop is not None:
            conf[f"spark.hadoop.{hadoop}"] = str(value)
    return conf


def check_jvm_session(spark: Any, name: str) -> None:
    """Raise unless the delta-spark classes are loadable and the session catalog is the DeltaCatalog."""
    loader = spark.sparkContext._jvm.Thread.currentThread().getContextClassLoader()
    try:
        loader.loadClass(DELTA_CATALOG)
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException
        raise DeltaBindingError(
            f"Delta catalog '{name}': {MODE_ENV}=jvm needs the delta-spark jars (io.delta:delta-spark_2.13 and "
            "delta-storage) on the driver and executor classpath (spark.jars / --jars); they are not loaded. "
            f"Unset {MODE_ENV} to use the embedded Delta connector."
        ) from None
    current = spark.conf.get("spark.sql.catalog.spark_catalog", "")
    if current != DELTA_CATALOG:
        raise DeltaBindingError(
            f"Delta catalog '{name}': the JVM DeltaCatalog only works as spark_catalog, which is static; start the "
            f"session with spark.sql.extensions={DELTA_EXTENSION} and spark.sql.catalog.spark_catalog={DELTA_CATALOG}."
        )
