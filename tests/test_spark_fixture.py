"""The shared SparkSession reaches the shared Hive Metastore and the JDBC driver jars."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_spark_session_uses_hive_metastore(spark: Any) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS fixture_check")
    assert "fixture_check" in [r[0] for r in spark.sql("SHOW DATABASES").collect()]
    spark.sql("DROP DATABASE fixture_check")


def test_jdbc_driver_jars_are_loaded(spark: Any) -> None:
    jvm = spark.sparkContext._jvm
    loader = jvm.Thread.currentThread().getContextClassLoader()
    assert loader.loadClass("org.postgresql.Driver") is not None
    assert loader.loadClass("org.mariadb.jdbc.Driver") is not None
