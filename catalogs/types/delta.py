"""`delta` catalogs: Delta Lake tables read with delta-rs (deltalake)."""

from __future__ import annotations

from typing import ClassVar

from catalogs.types.base import CatalogConfig, ConnectionResult, TableDetail, TableSummary
from catalogs.types.delta_config import DeltaConfig


class DeltaCatalogType:
    key: ClassVar[str] = "delta"
    display_name: ClassVar[str] = "Delta Lake"
    config_model: ClassVar[type[CatalogConfig]] = DeltaConfig

    def test_connection(self, config: DeltaConfig, *, timeout: float) -> ConnectionResult:
        raise NotImplementedError

    def list_databases(self, config: DeltaConfig, *, timeout: float) -> list[str]:
        raise NotImplementedError

    def list_tables(self, config: DeltaConfig, database: str, *, timeout: float) -> list[TableSummary]:
        raise NotImplementedError

    def describe_table(self, config: DeltaConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        raise NotImplementedError
