"""`files` catalogs: landing directories `<root>/<database>/<table>/` of JSON-lines, CSV (with a header) or
Parquet files, under one of the team's data directories (catalogs/types/paths.py).

Browsing runs in the web process as the platform's user, so every path is opened without following a symbolic
link (lakeport_engine/confined.py): a symlink at any level is refused (409, rule no-symlinks), never read.
"""

from __future__ import annotations

import collections
import csv
import io
from collections.abc import Callable
from itertools import islice
from typing import Any, ClassVar

from catalogs.types.base import ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from catalogs.types.streams import StreamSample, json_records, stream_detail
from lakeport_engine import confined
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.files import DEFINITION, FilesConfig

SAMPLE_FILES = 5
SAMPLE_RECORDS = 50


def _dirs(root: str, *parts: str) -> list[str]:
    # a symlinked sub-directory is not a database or table: it is left out here and refused when named
    return sorted(e.name for e in confined.entries(root, *parts) if e.is_dir and not e.name.startswith((".", "_")))


def _newest_files(root: str, *parts: str) -> list[str]:
    """Names of the newest data files of a landing directory; one holding a symlink is refused, not half-read."""
    links = confined.symlinks(root, *parts)
    if links:
        raise confined.ConfinedPathError(f"{'/'.join(parts)}/{links[0]} is a symbolic link; files catalogs never "
                                         "follow symbolic links (rule: no-symlinks).")
    files = [e for e in confined.entries(root, *parts) if not e.is_dir and not e.name.startswith((".", "_"))]
    return [e.name for e in sorted(files, key=lambda e: e.mtime_ns)[-SAMPLE_FILES:]]


def _records(root: str, parts: tuple[str, ...], name: str, fmt: str, limit: int, *, tail: bool) -> list[dict[str, Any]]:
    """Up to `limit` records of one file (its first or, with `tail`, its last), read through a no-follow open."""
    with confined.open_file(root, *parts, name) as handle:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            data = pq.read_table(handle)
            start = max(0, data.num_rows - limit) if tail else 0
            rows: list[dict[str, Any]] = data.slice(start, limit).to_pylist()
            return rows
        if fmt == "csv":
            reader = csv.DictReader(io.TextIOWrapper(handle, encoding="utf-8", errors="replace", newline=""))
            return [dict(r) for r in (collections.deque(reader, maxlen=limit) if tail else islice(reader, limit))]
        return json_records(list(collections.deque(handle, maxlen=limit) if tail else islice(handle, limit)))


def _sample(root: str, parts: tuple[str, ...], fmt: str) -> tuple[list[dict[str, Any]], bool]:
    """Records from the newest files, and whether their values are text (CSV)."""
    records: list[dict[str, Any]] = []
    for name in reversed(_newest_files(root, *parts)):
        records += _records(root, parts, name, fmt, SAMPLE_RECORDS, tail=False)
        if len(records) >= SAMPLE_RECORDS:
            break
    return records[:SAMPLE_RECORDS], fmt == "csv"


def _tail(root: str, parts: tuple[str, ...], fmt: str, limit: int) -> list[dict[str, Any]]:
    """The last `limit` records of the newest files, oldest first (newest files read first, then stitched)."""
    chunks: list[list[dict[str, Any]]] = []
    wanted = limit
    for name in reversed(_newest_files(root, *parts)):
        if wanted <= 0:
            break
        records = _records(root, parts, name, fmt, wanted, tail=True)
        chunks.append(records)
        wanted -= len(records)
    return [record for chunk in reversed(chunks) for record in chunk]


def _confined(run: Callable[[], T]) -> Callable[[], T]:
    """`run` with a symlink on the way refused as a clear 409 naming the rule (never followed, never a 502)."""

    def call() -> T:
        try:
            return run()
        except confined.ConfinedPathError as exc:
            raise MetadataError(str(exc), status=409) from None

    return call


class FilesCatalogType(DefinedCatalogType):
    """Landing directories of files."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: FilesConfig, *, timeout: float) -> ConnectionResult:
        """Check that the root is a readable directory."""

        def check() -> str:
            databases = _dirs(config.root)
            return f"root {config.root} is readable: {len(databases)} database(s)"

        return check_connection(_confined(check), timeout=timeout, target=config.root,
                                explain=lambda e: _explain(config, e))

    def list_databases(self, config: FilesConfig, *, timeout: float) -> list[str]:
        """Directories under the root."""
        return self._browse(config, lambda: _dirs(config.root), timeout)

    def list_tables(self, config: FilesConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Landing directories of the database."""

        def run() -> list[TableSummary]:
            if not confined.is_dir(config.root, database):
                raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)
            return [TableSummary(name=n, kind="stream") for n in _dirs(config.root, database)]

        return self._browse(config, run, timeout)

    def describe_table(self, config: FilesConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """The declared schema, or one inferred from the newest files."""

        def run() -> TableDetail:
            if not confined.is_dir(config.root, database, table):
                raise MetadataError(f"Table '{database}.{table}' does not exist in this catalog.", status=404)
            spec = config.declared(database, table)
            fmt = (spec.format if spec and spec.format else None) or config.format
            records, text = _sample(config.root, (database, table), fmt)
            files = sum(1 for e in confined.entries(config.root, database, table) if not e.is_dir)
            location = str(config.table_dir(database, table))
            return stream_detail(config, database, table, records, row_count=None, location=location,
                                 properties={"format": fmt, "files": str(files)}, from_text=text)

        return self._browse(config, run, timeout)

    def sample_records(self, config: FilesConfig, database: str, table: str, limit: int, *,
                       timeout: float) -> StreamSample:
        """The last `limit` records of the newest files, oldest first."""

        def run() -> StreamSample:
            if not confined.is_dir(config.root, database, table):
                raise MetadataError(f"Table '{database}.{table}' does not exist in this catalog.", status=404)
            spec = config.declared(database, table)
            fmt = (spec.format if spec and spec.format else None) or config.format
            return StreamSample(_tail(config.root, (database, table), fmt, limit), from_text=fmt == "csv")

        return self._browse(config, run, timeout)

    def _browse(self, config: FilesConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(_confined(run), timeout=timeout, target=config.root, explain=lambda e: _explain(config, e))


def _explain(config: FilesConfig, exc: BaseException) -> str:
    if isinstance(exc, MetadataError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"root {config.root} does not exist"
    if isinstance(exc, PermissionError):
        return f"root {config.root} is not readable by the platform"
    return f"reading {config.root} failed: {type(exc).__name__}"
