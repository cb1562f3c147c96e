"""An Iceberg catalog on a local warehouse: pyiceberg's SQL catalog in `<warehouse>/_lakeport_iceberg/catalog.db`.

Django-free and pyspark-free: the catalog API (browsing, test connection) and the Spark connector both open
catalogs here, so both sides apply the same confinement — every metadata, data and delete file a table names must
lie inside the warehouse (`confined`), and names are plain directory names (`check_name`).
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from lakeport_kernel.redaction import redact

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table
    from pyiceberg.types import IcebergType

CATALOG_DIR = "_lakeport_iceberg"  # a `_` name: never listed as a namespace, never a table directory
CATALOG_FILE = "catalog.db"
SQL_CATALOG_NAME = "lakeport"  # the SQL catalog's own name column: fixed, so renaming the Lakeport catalog keeps tables
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_$-]{0,127}$")


class IcebergError(Exception):
    """A statement or call on an Iceberg catalog could not run; the message names the catalog, table or rule."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))

    @property
    def message(self) -> str:
        return str(self)


class IcebergConflictError(IcebergError):
    """A concurrent commit won the race and retrying could lose data or ran out of attempts; nothing was committed."""


def check_name(name: str, *, what: str, catalog: str) -> str:
    """A namespace or table name that is one plain path segment (no `/`, `..`, `.`, hidden prefix); else IcebergError."""
    if not _NAME.match(name):
        raise IcebergError(f"'{name}' is not a valid {what} name in Iceberg catalog '{catalog}': use letters, digits, "
                           "'_', '$', '-' and start with a letter or digit.")
    return name


def local_path(location: str) -> str:
    """A `file:` URI or an absolute path as a resolved local path ("" when it is not a local location)."""
    if location.startswith("file:"):
        location = urlsplit(location).path  # Iceberg paths are plain strings: `%` in them is literal, never decoded
    if not location.startswith("/") or "\x00" in location:
        return ""
    return os.path.realpath(location)


def confined(location: str, warehouse: str, *, what: str, table: str) -> str:
    """`location` as a local path when it lies inside `warehouse` (symlinks resolved); IcebergError otherwise."""
    path = local_path(location)
    root = os.path.realpath(warehouse)
    if not path or not (path == root or path.startswith(root.rstrip("/") + "/")):
        raise IcebergError(f"Iceberg table {table}: its {what} is outside the catalog's warehouse (rule "
                           "iceberg-location); only files under the warehouse are read or written.")
    return path


def catalog_path(warehouse: str) -> Path:
    """Where the SQL catalog's SQLite database lives."""
    return Path(warehouse) / CATALOG_DIR / CATALOG_FILE


def open_catalog(warehouse: str, *, create: bool = True) -> SqlCatalog:
    """pyiceberg's SQL catalog of a warehouse (the warehouse must exist; its catalog database is created on demand
    unless `create` is False, when a warehouse without one raises FileNotFoundError)."""
    from pyiceberg.catalog.sql import SqlCatalog

    root = Path(warehouse)
    if not root.is_dir():
        raise FileNotFoundError(warehouse)
    path = catalog_path(warehouse)
    if not path.exists():
        if not create:
            raise FileNotFoundError(str(path))
        path.parent.mkdir(exist_ok=True)
        sqlite3.connect(path).close()
    return SqlCatalog(SQL_CATALOG_NAME, uri=f"sqlite:///{path}", warehouse=root.as_uri())


def table_location(warehouse: str, namespace: str, table: str) -> str:
    """The location a new table gets: `<warehouse>/<namespace>/<table>`, as a file URI."""
    return (Path(warehouse) / namespace / table).as_uri()


def check_table_files(table: Table, warehouse: str, name: str) -> None:
    """Refuse a table whose location or metadata file lies outside the warehouse."""
    confined(table.location(), warehouse, what="location", table=name)
    confined(table.metadata_location, warehouse, what="metadata file", table=name)


def type_text(kind: IcebergType) -> str:
    """Spark's type text for an Iceberg type (`bigint`, `decimal(10,2)`, `struct<a:int>`), for browsing."""
    from pyiceberg import types as it

    simple = {it.BooleanType: "boolean", it.IntegerType: "int", it.LongType: "bigint", it.FloatType: "float",
              it.DoubleType: "double", it.DateType: "date", it.TimestampType: "timestamp_ntz",
              it.TimestamptzType: "timestamp", it.StringType: "string", it.BinaryType: "binary",
              it.UUIDType: "binary", it.TimeType: "time"}
    for cls, text in simple.items():
        if isinstance(kind, cls):
            return text
    if isinstance(kind, it.DecimalType):
        return f"decimal({kind.precision},{kind.scale})"
    if isinstance(kind, it.FixedType):
        return "binary"
    if isinstance(kind, it.StructType):
        return "struct<" + ",".join(f"{f.name}:{type_text(f.field_type)}" for f in kind.fields) + ">"
    if isinstance(kind, it.ListType):
        return f"array<{type_text(kind.element_type)}>"
    if isinstance(kind, it.MapType):
        return f"map<{type_text(kind.key_type)},{type_text(kind.value_type)}>"
    return str(kind)
