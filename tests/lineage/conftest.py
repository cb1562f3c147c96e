"""Lineage tests reuse the Spark runtime's catalogs on real servers (PostgreSQL, MariaDB, Hive Metastore)."""

from __future__ import annotations

from tests.spark.conftest import crm_db, sales_db, session, store  # noqa: F401 - fixtures shared with tests/spark
