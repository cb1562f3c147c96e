"""A Paimon filesystem catalog on a local warehouse: pypaimon's own layout (`<warehouse>/<db>.db/<table>`).

Django-free and pyspark-free: the catalog API (browsing, test connection) and the Spark connector both open
catalogs here, so both sides apply the same confinement — a table's directory must lie inside the warehouse
(symlinks resolved) and options that send files elsewhere (`*external-path*`, `path`) are refused (`check_table`);
names are plain directory names (`check_name`).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from lakeport_kernel.redaction import redact

if TYPE_CHECKING:
    from pypaimon.catalog.catalog import Catalog

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_$-]{0,127}$")
# Options that would put a table's files outside its directory: never accepted, never read (rule paimon-location).
_PATH_OPTION = re.compile(r"(external-path|^path$|location)", re.IGNORECASE)
MERGE_ENGINES = ("deduplicate", "partial-update", "aggregation", "first-row")  # what pypaimon's read merges


class PaimonError(Exception):
    """A statement or call on a Paimon catalog could not run; the message names the catalog, table or rule."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))

    @property
    def message(self) -> str:
        """The (redacted) message."""
        return str(self)


def check_name(name: str, *, what: str, catalog: str) -> str:
    """A database or table name that is one plain path segment; PaimonError otherwise."""
    if not _NAME.match(name):
        raise PaimonError(f"'{name}' is not a valid {what} name in Paimon catalog '{catalog}': use letters, digits, "
                          "'_', '$', '-' and start with a letter or digit.")
    return name


def open_catalog(warehouse: str) -> Catalog:
    """pypaimon's filesystem catalog of an existing local warehouse (FileNotFoundError when it is missing)."""
    from pypaimon import CatalogFactory

    if not os.path.isdir(warehouse):
        raise FileNotFoundError(warehouse)
    return CatalogFactory.create({"warehouse": warehouse})


def table_path(warehouse: str, database: str, table: str) -> str:
    """Where the filesystem catalog keeps a table: `<warehouse>/<database>.db/<table>`."""
    return os.path.join(warehouse, f"{database}.db", table)


def confined(path: str, warehouse: str, *, table: str) -> str:
    """`path` resolved when it lies inside `warehouse` (symlinks resolved); PaimonError otherwise."""
    local = path.removeprefix("file://")
    resolved = os.path.realpath(local) if local.startswith("/") else ""
    root = os.path.realpath(warehouse)
    if not resolved or not (resolved == root or resolved.startswith(root.rstrip("/") + "/")):
        raise PaimonError(f"Paimon table {table}: its files are outside the catalog's warehouse (rule "
                          "paimon-location); only files under the warehouse are read or written.")
    return resolved


def check_options(options: dict[str, str], *, table: str) -> None:
    """Refuse table options that would place files outside the table's directory (rule paimon-location)."""
    for key in options:
        if _PATH_OPTION.search(key):
            raise PaimonError(f"Paimon table {table}: option '{key}' is not allowed (rule paimon-location); a "
                              "table's files live in its directory under the warehouse.")


def check_table(loaded: Any, warehouse: str, *, table: str) -> None:  # noqa: ANN401 - pypaimon's FileStoreTable
    """A loaded table must keep its files inside the warehouse."""
    confined(str(loaded.table_path), warehouse, table=table)
    check_options(dict(loaded.table_schema.options), table=table)


def merge_engine(loaded: Any) -> str | None:  # noqa: ANN401 - pypaimon's FileStoreTable
    """The merge engine of a primary-key table (None for an append table)."""
    if not loaded.table_schema.primary_keys:
        return None
    return str(loaded.table_schema.options.get("merge-engine", "deduplicate"))


def check_readable(loaded: Any, *, table: str) -> None:  # noqa: ANN401 - pypaimon's FileStoreTable
    """Refuse, by name, a primary-key table whose merge pypaimon cannot do (the rows would be wrong)."""
    engine = merge_engine(loaded)
    if engine is None:
        return
    if engine not in MERGE_ENGINES:
        raise PaimonError(f"Paimon table {table}: merge-engine '{engine}' is not supported by the embedded Paimon "
                          f"connector (supported: {', '.join(MERGE_ENGINES)}).")
    from pypaimon.read.merge_engine_support import check_supported

    try:
        check_supported(loaded)
    except (NotImplementedError, ValueError) as exc:
        raise PaimonError(f"Paimon table {table}: merge-engine '{engine}' with these options is not supported by "
                          f"the embedded Paimon connector: {_first_line(exc)}") from None


def type_text(kind: Any) -> str:  # noqa: ANN401 - a pyarrow DataType
    """Spark's type text for a column (via its Arrow type), for browsing and DESCRIBE."""
    from pyspark.sql.pandas.types import from_arrow_type

    try:
        return str(from_arrow_type(kind).simpleString())
    except Exception:
        return str(kind)


def arrow_schema(loaded: Any) -> Any:  # noqa: ANN401 - pypaimon's FileStoreTable → pyarrow.Schema
    """The table's columns as an Arrow schema."""
    import pyarrow as pa
    from pypaimon.schema.data_types import PyarrowFieldParser

    return pa.schema([PyarrowFieldParser.from_paimon_field(f) for f in loaded.table_schema.fields])


def _first_line(exc: BaseException) -> str:
    text = redact(str(exc).strip())
    return text.splitlines()[0] if text else type(exc).__name__
