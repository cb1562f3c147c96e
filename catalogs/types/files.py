"""`files` catalogs: landing directories `<root>/<database>/<table>/` of JSON-lines, CSV (with a header) or
Parquet files, under one of the team's data directories (catalogs/types/paths.py)."""

from __future__ import annotations

import collections
import csv
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from catalogs.types.base import CatalogConfig, ConnectionResult, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import browse, check_connection
from catalogs.types.paths import check_local_path
from catalogs.types.streams import StreamCatalogConfig, StreamSample, json_records, stream_detail

SAMPLE_FILES = 5
SAMPLE_RECORDS = 50


class FilesConfig(StreamCatalogConfig):
    """A root directory whose `<database>/<table>` sub-directories are landing directories."""

    root: str = Field(description="Absolute path inside one of the team's data directories.", max_length=1000)
    format: Literal["json", "csv", "parquet"] = Field(default="json", description="Default file format.")
    max_files_per_batch: int | None = Field(default=None, alias="max-files-per-batch", ge=1, le=100_000)

    @field_validator("root")
    @classmethod
    def _root(cls, value: str) -> str:
        return check_local_path(value)


def _dirs(path: Path) -> list[str]:
    return sorted(e.name for e in os.scandir(path) if e.is_dir() and not e.name.startswith((".", "_")))


def _newest_files(path: Path) -> list[Path]:
    files = [e for e in os.scandir(path) if e.is_file() and not e.name.startswith((".", "_"))]
    return [Path(e.path) for e in sorted(files, key=lambda e: e.stat().st_mtime_ns)[-SAMPLE_FILES:]]


def _sample(path: Path, fmt: str) -> tuple[list[dict[str, Any]], bool]:
    """Records from the newest files, and whether their values are text (CSV)."""
    records: list[dict[str, Any]] = []
    for file in reversed(_newest_files(path)):
        if fmt == "parquet":
            import pyarrow.parquet as pq

            records += pq.read_table(file).slice(0, SAMPLE_RECORDS).to_pylist()
        elif fmt == "csv":
            with file.open(newline="", encoding="utf-8", errors="replace") as handle:
                records += [dict(r) for _, r in zip(range(SAMPLE_RECORDS), csv.DictReader(handle), strict=False)]
        else:
            with file.open("rb") as handle:
                records += json_records([line for _, line in zip(range(SAMPLE_RECORDS), handle, strict=False)])
        if len(records) >= SAMPLE_RECORDS:
            break
    return records[:SAMPLE_RECORDS], fmt == "csv"


def _tail(path: Path, fmt: str, limit: int) -> list[dict[str, Any]]:
    """The last `limit` records of the newest files, oldest first (newest files read first, then stitched)."""
    chunks: list[list[dict[str, Any]]] = []
    wanted = limit
    for file in reversed(_newest_files(path)):
        if wanted <= 0:
            break
        if fmt == "parquet":
            import pyarrow.parquet as pq

            data = pq.read_table(file)
            records = data.slice(max(0, data.num_rows - wanted)).to_pylist()
        elif fmt == "csv":
            with file.open(newline="", encoding="utf-8", errors="replace") as handle:
                records = [dict(r) for r in collections.deque(csv.DictReader(handle), maxlen=wanted)]
        else:
            with file.open("rb") as handle:
                records = json_records(list(collections.deque(handle, maxlen=wanted)))
        chunks.append(records)
        wanted -= len(records)
    return [record for chunk in reversed(chunks) for record in chunk]


class FilesCatalogType:
    """Landing directories of files."""

    key: ClassVar[str] = "files"
    display_name: ClassVar[str] = "Files (landing directories)"
    config_model: ClassVar[type[CatalogConfig]] = FilesConfig

    def test_connection(self, config: FilesConfig, *, timeout: float) -> ConnectionResult:
        """Check that the root is a readable directory."""

        def check() -> str:
            databases = _dirs(Path(config.root))
            return f"root {config.root} is readable: {len(databases)} database(s)"

        return check_connection(check, timeout=timeout, target=config.root, explain=lambda e: _explain(config, e))

    def list_databases(self, config: FilesConfig, *, timeout: float) -> list[str]:
        """Directories under the root."""
        return self._browse(config, lambda: _dirs(Path(config.root)), timeout)

    def list_tables(self, config: FilesConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Landing directories of the database."""

        def run() -> list[TableSummary]:
            path = Path(config.root) / database
            if not path.is_dir():
                raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)
            return [TableSummary(name=n, kind="stream") for n in _dirs(path)]

        return self._browse(config, run, timeout)

    def describe_table(self, config: FilesConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """The declared schema, or one inferred from the newest files."""

        def run() -> TableDetail:
            path = Path(config.root) / database / table
            if not path.is_dir():
                raise MetadataError(f"Table '{database}.{table}' does not exist in this catalog.", status=404)
            spec = config.declared(database, table)
            fmt = (spec.format if spec and spec.format else None) or config.format
            records, text = _sample(path, fmt)
            files = sum(1 for e in os.scandir(path) if e.is_file())
            return stream_detail(config, database, table, records, row_count=None, location=str(path),
                                 properties={"format": fmt, "files": str(files)}, from_text=text)

        return self._browse(config, run, timeout)

    def sample_records(self, config: FilesConfig, database: str, table: str, limit: int, *,
                       timeout: float) -> StreamSample:
        """The last `limit` records of the newest files, oldest first."""

        def run() -> StreamSample:
            path = Path(config.root) / database / table
            if not path.is_dir():
                raise MetadataError(f"Table '{database}.{table}' does not exist in this catalog.", status=404)
            spec = config.declared(database, table)
            fmt = (spec.format if spec and spec.format else None) or config.format
            return StreamSample(_tail(path, fmt, limit), from_text=fmt == "csv")

        return self._browse(config, run, timeout)

    def _browse(self, config: FilesConfig, run: Callable[[], Any], timeout: float) -> Any:
        return browse(run, timeout=timeout, target=config.root, explain=lambda e: _explain(config, e))


def _explain(config: FilesConfig, exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"root {config.root} does not exist"
    if isinstance(exc, PermissionError):
        return f"root {config.root} is not readable by the platform"
    return f"reading {config.root} failed: {type(exc).__name__}"
