"""`delta` catalogs: Delta Lake tables read with delta-rs (deltalake).

Layout: `<warehouse>/<database>/<table>`; a database is a directory, a table is a directory holding a
`_delta_log`. Local warehouses are listed with the file system; object-store warehouses (s3a/s3) are
listed through pyarrow's S3 file system with the catalog's storage options, and tables are always read
through delta-rs with those options.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, ClassVar

from catalogs.types.base import Column, ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from catalogs.types.hive import spark_type
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.delta import DEFINITION, DeltaConfig

_LOG_DIR = "_delta_log"


class DeltaCatalogType(DefinedCatalogType):
    """Delta tables under one warehouse: databases are directories, tables are directories with a `_delta_log`."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: DeltaConfig, *, timeout: float) -> ConnectionResult:
        """Check that the warehouse exists and, when it holds Delta tables, that a table's log loads.

        An existing warehouse without tables passes: a new catalog's tables are created later with CREATE TABLE."""

        def check() -> str:
            store = _store(config)
            databases = store.directories(config.warehouse, missing="warehouse")
            for database in databases:
                tables = store.tables(f"{config.warehouse}/{database}")
                if tables:
                    _load(config, database, tables[0])  # proves the log is readable with these options
                    return (
                        f"warehouse {config.warehouse} is readable: {len(databases)} database(s); "
                        f"opened {database}.{tables[0]}"
                    )
            return (
                f"warehouse {config.warehouse} is reachable and holds no Delta tables yet "
                f"({len(databases)} database(s); tables live at <warehouse>/<database>/<table>/{_LOG_DIR})"
            )

        return check_connection(check, timeout=timeout, target=config.warehouse,
                                explain=lambda e: _explain(config, e), secrets=_secrets(config))

    def list_databases(self, config: DeltaConfig, *, timeout: float) -> list[str]:
        """Directories directly under the warehouse (hidden and `_`-prefixed ones left out)."""
        return self._browse(config, lambda: _store(config).directories(config.warehouse, missing="warehouse"), timeout)

    def list_tables(self, config: DeltaConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Directories of `<warehouse>/<database>` that hold a `_delta_log`; an unknown database raises 404."""

        _check_name(database, "database")

        def run() -> list[TableSummary]:
            store = _store(config)
            path = f"{config.warehouse}/{database}"
            store.directories(path, missing="database")  # 404 for a missing database, not an empty list
            return [TableSummary(name=name, kind="delta") for name in store.tables(path)]

        return self._browse(config, run, timeout)

    def describe_table(self, config: DeltaConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """Schema, partition columns, current version, location and row count (from the log's numRecords)."""

        _check_name(database, "database")
        _check_name(table, "table")

        def run() -> TableDetail:
            dt = _load(config, database, table)
            meta = dt.metadata()
            fields = json.loads(dt.schema().to_json())["fields"]
            columns = [
                Column(name=f["name"], type=spark_type(f["type"]), nullable=bool(f.get("nullable", True)),
                       comment=(f.get("metadata") or {}).get("comment"))
                for f in fields
            ]
            properties = {k: str(v) for k, v in (meta.configuration or {}).items()}
            if meta.description:
                properties["comment"] = meta.description
            return TableDetail(
                database=database,
                name=table,
                columns=columns,
                partition_columns=list(meta.partition_columns),
                kind="delta",
                location=_table_uri(config, database, table),
                version=dt.version(),
                row_count=_row_count(dt),
                properties=properties,
            )

        return self._browse(config, run, timeout)

    def _browse(self, config: DeltaConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(run, timeout=timeout, target=config.warehouse, explain=lambda e: _explain(config, e),
                      secrets=_secrets(config))


# ---- tables ----------------------------------------------------------------------------------------------
def _table_uri(config: DeltaConfig, database: str, table: str) -> str:
    return f"{config.warehouse}/{database}/{table}"


def _load(config: DeltaConfig, database: str, table: str) -> Any:
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    uri = _table_uri(config, database, table)
    try:
        return DeltaTable(uri, storage_options=dict(config.storage_options) or None)
    except TableNotFoundError:
        store = _store(config)
        store.directories(f"{config.warehouse}/{database}", missing="database")
        raise MetadataError(f"table '{database}.{table}' does not exist (no Delta log at {uri})", status=404) from None


def _row_count(dt: Any) -> int | None:
    """Sum of numRecords over the snapshot's add actions; None when any file was written without stats."""
    import pyarrow as pa
    import pyarrow.compute as pc

    actions = pa.table(dt.get_add_actions(flatten=True))
    if actions.num_rows == 0:
        return 0
    if "num_records" not in actions.column_names:
        return None
    counts = actions.column("num_records")
    if counts.null_count:
        return None
    return int(pc.sum(counts).as_py() or 0)


# ---- storage ---------------------------------------------------------------------------------------------
class _LocalStore:
    """A warehouse on this machine's file system."""

    def directories(self, path: str, *, missing: str) -> list[str]:
        if not os.path.isdir(path):
            raise _missing(path, missing)
        with os.scandir(path) as entries:
            return sorted(e.name for e in entries if e.is_dir() and not e.name.startswith((".", "_")))

    def tables(self, path: str) -> list[str]:
        with os.scandir(path) as entries:
            return sorted(
                e.name for e in entries
                if e.is_dir() and not e.name.startswith((".", "_")) and os.path.isdir(os.path.join(e.path, _LOG_DIR))
            )


class _S3Store:
    """An s3a:// or s3:// warehouse listed with pyarrow's S3 file system and the catalog's storage options."""

    def __init__(self, options: dict[str, str]) -> None:
        from pyarrow import fs

        lowered = {k.lower(): v for k, v in options.items()}
        kwargs: dict[str, Any] = {}
        for key, arg in (("aws_access_key_id", "access_key"), ("aws_secret_access_key", "secret_key"),
                         ("aws_session_token", "session_token"), ("aws_region", "region")):
            if key in lowered:
                kwargs[arg] = lowered[key]
        endpoint = lowered.get("aws_endpoint_url") or lowered.get("aws_endpoint")
        if endpoint:
            kwargs["endpoint_override"] = endpoint
            if endpoint.startswith("http://"):
                kwargs["scheme"] = "http"
        self.fs = fs.S3FileSystem(**kwargs)

    @staticmethod
    def _key(path: str) -> str:
        return path.split("://", 1)[1].rstrip("/")

    def _children(self, path: str) -> list[Any]:
        from pyarrow import fs

        return list(self.fs.get_file_info(fs.FileSelector(self._key(path), allow_not_found=True)))

    def directories(self, path: str, *, missing: str) -> list[str]:
        from pyarrow import fs

        children = self._children(path)
        if not children and self.fs.get_file_info(self._key(path)).type == fs.FileType.NotFound:
            raise _missing(path, missing)
        return sorted(i.base_name for i in children
                      if i.type == fs.FileType.Directory and not i.base_name.startswith((".", "_")))

    def tables(self, path: str) -> list[str]:
        from pyarrow import fs

        names = self.directories(path, missing="database")
        infos = self.fs.get_file_info([f"{self._key(path)}/{n}/{_LOG_DIR}" for n in names])
        return [n for n, i in zip(names, infos, strict=True) if i.type == fs.FileType.Directory]


def _missing(path: str, what: str) -> MetadataError:
    if what == "database":
        return MetadataError(f"database '{path.rsplit('/', 1)[-1]}' does not exist", status=404)
    return MetadataError(f"warehouse {path} does not exist", status=502)


def _check_name(name: str, what: str) -> None:
    # Names become path segments: never let one climb out of the warehouse or into a hidden directory.
    if not name or name in {".", ".."} or any(ch in name for ch in "/\\\x00") or name.startswith((".", "_")):
        raise MetadataError(f"{what} '{name}' does not exist", status=404)


def _store(config: DeltaConfig) -> Any:
    if config.is_local:
        return _LocalStore()
    if config.warehouse.startswith(("s3a://", "s3://")):
        return _S3Store(dict(config.storage_options))
    scheme = config.warehouse.split("://", 1)[0]
    raise MetadataError(
        f"listing {scheme}:// warehouses is not supported yet; tables there are still usable from Spark jobs",
        status=501,
    )


# ---- messages --------------------------------------------------------------------------------------------
def _secrets(config: DeltaConfig) -> list[str]:
    return [v for v in config.storage_options.values() if v]


def _explain(config: DeltaConfig, exc: BaseException) -> str:
    if isinstance(exc, MetadataError):
        return str(exc)
    if isinstance(exc, PermissionError):
        return f"permission denied reading warehouse {config.warehouse}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "timed out" in text.lower() or isinstance(exc, TimeoutError):
        return f"timed out reading warehouse {config.warehouse}"
    return f"reading warehouse {config.warehouse} failed: {type(exc).__name__}: {text}"
