"""`jdbc` catalogs: PostgreSQL through psycopg, MySQL/MariaDB through PyMySQL."""

from __future__ import annotations

from typing import ClassVar

from catalogs.types.base import CatalogConfig, ConnectionResult, TableDetail, TableSummary
from catalogs.types.jdbc_config import JdbcConfig


class JdbcCatalogType:
    key: ClassVar[str] = "jdbc"
    display_name: ClassVar[str] = "JDBC (PostgreSQL, MySQL/MariaDB)"
    config_model: ClassVar[type[CatalogConfig]] = JdbcConfig

    def test_connection(self, config: JdbcConfig, *, timeout: float) -> ConnectionResult:
        raise NotImplementedError

    def list_databases(self, config: JdbcConfig, *, timeout: float) -> list[str]:
        raise NotImplementedError

    def list_tables(self, config: JdbcConfig, database: str, *, timeout: float) -> list[TableSummary]:
        raise NotImplementedError

    def describe_table(self, config: JdbcConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        raise NotImplementedError
