"""`paimon` catalogs: Apache Paimon tables in a local filesystem warehouse, browsed through pypaimon.

Browsing never writes: databases are the warehouse's `<name>.db` directories, as Paimon's filesystem catalog keeps
them. Tables whose directory or options place files outside the warehouse are refused (rule paimon-location), as
the Spark connector refuses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from catalogs.types.base import Column, ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.paimon import DEFINITION, PaimonConfig
from lakeport_engine.paimon.catalog import (
    PaimonError,
    arrow_schema,
    check_name,
    check_table,
    merge_engine,
    open_catalog,
    type_text,
)

SNAPSHOTS_SHOWN = 20  # the newest snapshots listed in a table's detail


class PaimonCatalogType(DefinedCatalogType):
    """Databases and tables of Paimon's filesystem catalog in the warehouse."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: PaimonConfig, *, timeout: float) -> ConnectionResult:
        """The warehouse must exist; its databases are listed and the first table found is opened."""

        def check() -> str:
            catalog = _catalog(config)
            databases = sorted(catalog.list_databases())
            for database in databases:
                tables = sorted(catalog.list_tables(database))
                if tables:
                    _load(config, catalog, database, tables[0])
                    return (f"warehouse {config.warehouse} is readable: {len(databases)} database(s); opened "
                            f"{database}.{tables[0]}")
            return f"warehouse {config.warehouse} is readable: {len(databases)} database(s), no tables yet"

        return check_connection(check, timeout=timeout, target=config.warehouse, explain=lambda e: _explain(config, e))

    def list_databases(self, config: PaimonConfig, *, timeout: float) -> list[str]:
        """The warehouse's databases."""
        return self._browse(config, lambda: sorted(_catalog(config).list_databases()), timeout)

    def list_tables(self, config: PaimonConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Tables of a database (kind `paimon`); an unknown database is 404."""
        _check(database, "database")

        def run() -> list[TableSummary]:
            catalog = _existing_database(config, database)
            return [TableSummary(name=t, kind="paimon") for t in sorted(catalog.list_tables(database))]

        return self._browse(config, run, timeout)

    def describe_table(self, config: PaimonConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """Columns (Spark type text), primary and partition keys, options, latest snapshot and row count (its
        `total_record_count`: for primary-key tables the rows before merging), and the newest snapshots."""
        _check(database, "database")
        _check(table, "table")

        def run() -> TableDetail:
            catalog = _existing_database(config, database)
            loaded = _load(config, catalog, database, table)
            schema = loaded.table_schema
            descriptions = {f.name: f.description for f in schema.fields}
            primary = list(schema.primary_keys)
            columns = [Column(name=f.name, type=type_text(f.type), nullable=f.nullable,
                              comment=descriptions.get(f.name)) for f in arrow_schema(loaded)]
            manager = loaded.snapshot_manager()
            latest = manager.get_latest_snapshot()
            snapshots = []
            if latest is not None:
                for snapshot_id in range(max(1, int(latest.id) - SNAPSHOTS_SHOWN + 1), int(latest.id) + 1):
                    found = _snapshot(manager, snapshot_id)
                    if found is not None:
                        snapshots.append({"snapshot_id": int(found.id), "commit_kind": str(found.commit_kind),
                                          "time_millis": int(found.time_millis),
                                          "total_record_count": found.total_record_count})
            properties = {f"option.{k}": str(v) for k, v in schema.options.items()}
            properties["paimon.primary-keys"] = json.dumps(primary)
            properties["paimon.partition-keys"] = json.dumps(list(schema.partition_keys))
            properties["paimon.merge-engine"] = merge_engine(loaded) or ""
            properties["paimon.snapshots"] = json.dumps(snapshots)
            properties["paimon.tags"] = json.dumps(sorted(_tags(loaded)))
            if schema.comment:
                properties["comment"] = str(schema.comment)
            return TableDetail(
                database=database, name=table, columns=columns, partition_columns=list(schema.partition_keys),
                kind="paimon", location=str(loaded.table_path),
                version=int(latest.id) if latest is not None else None,
                row_count=(int(latest.total_record_count) if latest is not None and not primary
                           else (0 if latest is None else None)),
                properties=properties)

        return self._browse(config, run, timeout)

    def _browse(self, config: PaimonConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(run, timeout=timeout, target=config.warehouse, explain=lambda e: _explain(config, e))


def _catalog(config: PaimonConfig) -> Any:  # noqa: ANN401 - pypaimon's FileSystemCatalog
    if not Path(config.warehouse).is_dir():
        raise MetadataError(f"warehouse {config.warehouse} does not exist", status=502)
    return open_catalog(config.warehouse)


def _existing_database(config: PaimonConfig, database: str) -> Any:  # noqa: ANN401
    catalog = _catalog(config)
    if database not in catalog.list_databases():
        raise MetadataError(f"database '{database}' does not exist", status=404)
    return catalog


def _load(config: PaimonConfig, catalog: Any, database: str, table: str) -> Any:  # noqa: ANN401
    if table not in catalog.list_tables(database):
        raise MetadataError(f"table '{database}.{table}' does not exist", status=404)
    loaded = catalog.get_table(f"{database}.{table}")
    try:
        check_table(loaded, config.warehouse, table=f"{database}.{table}")
    except PaimonError as exc:
        raise MetadataError(str(exc), status=409) from None
    return loaded


def _snapshot(manager: Any, snapshot_id: int) -> Any:  # noqa: ANN401
    try:
        return manager.get_snapshot_by_id(snapshot_id)
    except Exception:
        return None


def _tags(loaded: Any) -> list[str]:  # noqa: ANN401
    try:
        return [str(name) for name in loaded.list_tags()]
    except Exception:
        return []


def _check(name: str, what: str) -> None:
    # names become path segments: never one that could climb out of the warehouse
    try:
        check_name(name, what=what, catalog="")
    except PaimonError:
        raise MetadataError(f"{what} '{name}' does not exist", status=404) from None


def _explain(config: PaimonConfig, exc: BaseException) -> str:
    if isinstance(exc, MetadataError):
        return str(exc)
    if isinstance(exc, PermissionError):
        return f"permission denied reading warehouse {config.warehouse}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"reading the Paimon catalog of warehouse {config.warehouse} failed: {type(exc).__name__}: {text}"
