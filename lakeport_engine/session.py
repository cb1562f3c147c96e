"""The SparkSession of one script run by path (`runner.py`, `stream_cli.py`): spark-submit's settings, or a local
JVM this process starts with the JDBC drivers and the platform jar on its classpath."""

from __future__ import annotations

import os
from typing import Any

from lakeport_engine.platform_jar import platform_jars

# The JDBC drivers the jdbc binding names, and where Debian's packages put their jars (SPARK_JDBC_JARS overrides).
JDBC_DRIVERS = ("org.postgresql.Driver", "org.mariadb.jdbc.Driver")
DEFAULT_JDBC_JARS = ("/usr/share/java/postgresql.jar", "/usr/share/java/mariadb-java-client.jar")


def jdbc_jars(environ: dict[str, str] | None = None) -> list[str]:
    """The JDBC driver jars that exist: SPARK_JDBC_JARS (comma-separated, as the platform reads it) or Debian's."""
    raw = (environ if environ is not None else os.environ).get("SPARK_JDBC_JARS", "")
    wanted = [p.strip() for p in raw.split(",") if p.strip()] or list(DEFAULT_JDBC_JARS)
    return [p for p in wanted if os.path.isfile(p)]


def missing_jdbc_drivers(spark: Any) -> list[str]:
    """Driver classes the running driver JVM cannot load (spark-submit started it without their jars)."""
    loader = spark._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    missing = []
    for name in JDBC_DRIVERS:
        try:
            spark._jvm.java.lang.Class.forName(name, False, loader)
        except Exception:  # py4j wraps ClassNotFoundException
            missing.append(name)
    return missing


# Defaults of every Lakeport Spark session (a script's or operator's conf wins): Python data sources (Redis Streams,
# NATS, Paimon) start Python workers that connect back to the JVM, and Spark's 15 s wait for them failed streams
# and reads on a loaded machine ("Python worker failed to connect back").
SESSION_DEFAULTS: dict[str, str] = {"spark.python.authenticate.socketTimeout": "120s"}


def build_session(master: str | None, app_name: str, static_conf: dict[str, str]) -> Any:
    """The SparkSession for one script: spark-submit's settings, plus the static confs its catalogs need."""
    from pyspark.sql import SparkSession

    static_conf = {**SESSION_DEFAULTS, **static_conf}
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    elif "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master("local[*]")  # plain `python runner.py`; spark-submit brings its own master
    if "PYSPARK_GATEWAY_PORT" not in os.environ and jdbc_jars() + platform_jars():
        # We start the JVM ourselves, so the driver jars and the platform's own can still go on its classpath.
        static_conf = {**static_conf, "spark.jars": ",".join(
            [j for j in static_conf.get("spark.jars", "").split(",") if j] + jdbc_jars() + platform_jars())}
    for key, value in static_conf.items():
        builder = builder.config(key, value)
    if static_conf.get("spark.sql.catalogImplementation") == "hive":
        builder = builder.enableHiveSupport()
    return builder.getOrCreate()
