"""`hive` catalogs: a Hive Metastore through its Thrift API."""

from __future__ import annotations

from typing import ClassVar

from catalogs.types.base import CatalogConfig, ConnectionResult, TableDetail, TableSummary
from catalogs.types.hive_config import HiveConfig


class HiveCatalogType:
    key: ClassVar[str] = "hive"
    display_name: ClassVar[str] = "Hive Metastore"
    config_model: ClassVar[type[CatalogConfig]] = HiveConfig

    def test_connection(self, config: HiveConfig, *, timeout: float) -> ConnectionResult:
        raise NotImplementedError

    def list_databases(self, config: HiveConfig, *, timeout: float) -> list[str]:
        raise NotImplementedError

    def list_tables(self, config: HiveConfig, database: str, *, timeout: float) -> list[TableSummary]:
        raise NotImplementedError

    def describe_table(self, config: HiveConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        raise NotImplementedError
