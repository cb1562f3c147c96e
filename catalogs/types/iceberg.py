"""`iceberg` catalogs: Apache Iceberg tables in a local warehouse, browsed through pyiceberg's SQL catalog.

The catalog database is `<warehouse>/_lakeport_iceberg/catalog.db` (lakeport_engine/iceberg/catalog.py); browsing
never creates it: a warehouse without one has no namespaces yet. Tables whose files lie outside the warehouse
are refused (rule iceberg-location), as the Spark connector refuses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from catalogs.types.base import Column, ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.iceberg import DEFINITION, IcebergConfig
from lakeport_engine.iceberg.catalog import (
    IcebergError,
    catalog_path,
    check_name,
    check_table_files,
    open_catalog,
    type_text,
)

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table

SNAPSHOTS_SHOWN = 20  # the newest snapshots listed in a table's detail


class IcebergCatalogType(DefinedCatalogType):
    """Namespaces and tables of pyiceberg's SQL catalog kept in the warehouse."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: IcebergConfig, *, timeout: float) -> ConnectionResult:
        """The warehouse must exist; when it has a catalog database, its namespaces are listed and a table opened."""

        def check() -> str:
            catalog = _catalog(config)
            if catalog is None:
                return (f"warehouse {config.warehouse} is reachable and holds no Iceberg catalog yet (it is created "
                        "by the first CREATE DATABASE/TABLE of a job)")
            namespaces = sorted(n[-1] for n in catalog.list_namespaces())
            for namespace in namespaces:
                tables = sorted(t[-1] for t in catalog.list_tables(namespace))
                if tables:
                    _load(config, catalog, namespace, tables[0])
                    return (f"warehouse {config.warehouse} is readable: {len(namespaces)} namespace(s); opened "
                            f"{namespace}.{tables[0]}")
            return f"warehouse {config.warehouse} is readable: {len(namespaces)} namespace(s), no tables yet"

        return check_connection(check, timeout=timeout, target=config.warehouse, explain=lambda e: _explain(config, e))

    def list_databases(self, config: IcebergConfig, *, timeout: float) -> list[str]:
        """The catalog's namespaces (none while the warehouse has no catalog database)."""

        def run() -> list[str]:
            catalog = _catalog(config)
            return sorted(n[-1] for n in catalog.list_namespaces()) if catalog is not None else []

        return self._browse(config, run, timeout)

    def list_tables(self, config: IcebergConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Tables of a namespace (kind `iceberg`); an unknown namespace is 404."""
        _check(config, database, "namespace")

        def run() -> list[TableSummary]:
            catalog = _existing_namespace(config, database)
            return [TableSummary(name=t[-1], kind="iceberg") for t in sorted(catalog.list_tables(database))]

        return self._browse(config, run, timeout)

    def describe_table(self, config: IcebergConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """Columns (Spark type text; field ids in `properties`), partition spec, current snapshot, row count
        (the current snapshot's `total-records`), and the newest snapshots."""
        _check(config, database, "namespace")
        _check(config, table, "table")

        def run() -> TableDetail:
            catalog = _existing_namespace(config, database)
            loaded = _load(config, catalog, database, table)
            schema = loaded.schema()
            spec = loaded.spec()
            snapshot = loaded.current_snapshot()
            columns = [Column(name=f.name, type=type_text(f.field_type), nullable=not f.required, comment=f.doc)
                       for f in schema.fields]
            properties = {k: str(v) for k, v in loaded.properties.items()}
            properties["iceberg.field-ids"] = json.dumps({f.name: f.field_id for f in schema.fields})
            properties["iceberg.partition-spec"] = json.dumps(
                [f"{f.transform}({schema.find_column_name(f.source_id)})" for f in spec.fields])
            properties["iceberg.format-version"] = str(loaded.format_version)
            properties["iceberg.snapshots"] = json.dumps([
                {"snapshot_id": s.snapshot_id, "parent_id": s.parent_snapshot_id, "timestamp_ms": s.timestamp_ms,
                 "operation": s.summary.operation.value if s.summary is not None else None}
                for s in sorted(loaded.snapshots(), key=lambda s: s.timestamp_ms)[-SNAPSHOTS_SHOWN:]])
            identity = [schema.find_column_name(f.source_id) for f in spec.fields if str(f.transform) == "identity"]
            total = snapshot.summary.get("total-records") if snapshot is not None and snapshot.summary else None
            return TableDetail(
                database=database, name=table, columns=columns,
                partition_columns=[c for c in identity if c], kind="iceberg",
                location=loaded.location().removeprefix("file://"),
                version=snapshot.snapshot_id if snapshot is not None else None,
                row_count=int(total) if total is not None else (0 if snapshot is None else None),
                properties=properties)

        return self._browse(config, run, timeout)

    def _browse(self, config: IcebergConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(run, timeout=timeout, target=config.warehouse, explain=lambda e: _explain(config, e))


def _catalog(config: IcebergConfig) -> SqlCatalog | None:
    """The warehouse's SQL catalog, None when it has no catalog database yet (browsing never creates one)."""
    if not catalog_path(config.warehouse).parent.parent.is_dir():
        raise MetadataError(f"warehouse {config.warehouse} does not exist", status=502)
    if not catalog_path(config.warehouse).is_file():
        return None
    return open_catalog(config.warehouse, create=False)


def _existing_namespace(config: IcebergConfig, namespace: str) -> SqlCatalog:
    catalog = _catalog(config)
    if catalog is None or not catalog.namespace_exists(namespace):
        raise MetadataError(f"namespace '{namespace}' does not exist", status=404)
    return catalog


def _load(config: IcebergConfig, catalog: SqlCatalog, namespace: str, table: str) -> Table:
    from pyiceberg.exceptions import NoSuchTableError

    try:
        loaded = catalog.load_table((namespace, table))
    except NoSuchTableError:
        raise MetadataError(f"table '{namespace}.{table}' does not exist", status=404) from None
    try:
        check_table_files(loaded, config.warehouse, f"{namespace}.{table}")
    except IcebergError as exc:
        raise MetadataError(str(exc), status=409) from None
    return loaded


def _check(config: IcebergConfig, name: str, what: str) -> None:
    # names become path segments and catalog keys: never one that could climb out of the warehouse
    try:
        check_name(name, what=what, catalog="")
    except IcebergError:
        raise MetadataError(f"{what} '{name}' does not exist", status=404) from None


def _explain(config: IcebergConfig, exc: BaseException) -> str:
    if isinstance(exc, MetadataError):
        return str(exc)
    if isinstance(exc, PermissionError):
        return f"permission denied reading warehouse {config.warehouse}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"reading the Iceberg catalog of warehouse {config.warehouse} failed: {type(exc).__name__}: {text}"
