"""files catalogs: landing directories `<root>/<database>/<table>/` of JSON, CSV or Parquet files, read with
Spark's own file stream source and the table's declared schema (Spark's checkpoint remembers which files a
query has read, so a replay reads the same files).

Spark's file source follows symbolic links, so a landing directory reached through one, or holding one, is refused
when a query starts or samples it (lakeport_engine/confined.py); engines run as the team's own user besides.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine import confined
from lakeport_engine.bindings.base import Binding, typed_config
from lakeport_engine.bindings.redis_streams import StreamCatalogBinding
from lakeport_engine.catalog_types import files
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.files import FilesConfig
from lakeport_engine.datasets import Dataset, stream_dataset
from lakeport_engine.streamio.tables import StreamSourceError, StreamTable, declared_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, DataFrameReader, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamReader

FORMATS = ("json", "csv", "parquet")
SAMPLE_FILES = 50  # newest files read for a sample


class FilesBinding(StreamCatalogBinding):
    """files catalogs."""

    definition: ClassVar[CatalogTypeDefinition] = files.DEFINITION
    key: ClassVar[str] = files.DEFINITION.key
    display_name: ClassVar[str] = "Files"

    @staticmethod
    def config(binding: Binding) -> FilesConfig:
        """The catalog's configuration, typed."""
        return typed_config(FilesConfig, binding.name, binding.configuration)

    def summary(self, binding: Binding) -> str:
        """`files at <root>`."""
        return f"files at {self.config(binding).root}"

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The landing directory, in namespace `file`."""
        path = os.path.abspath(self.config(binding).table_dir(database, table))
        return stream_dataset(binding.name, database, table, kind=self.key, namespace="file", physical_name=path)

    def databases(self, config: dict[str, Any]) -> list[str]:
        """The sub-directories of the root (symlinks are not databases: never followed)."""
        try:
            found = confined.entries(str(config.get("root", "")))
        except OSError:
            return []
        return sorted(e.name for e in found if e.is_dir and not e.name.startswith((".", "_")))

    def _checked(self, binding: Binding, database: str, table: str) -> tuple[StreamTable, Path]:
        label = f"{binding.name}.{database}.{table}"
        spec = declared_table(binding.configuration, binding.name, database, table)
        config = self.config(binding)
        path = config.table_dir(database, table)
        root = config.root
        try:
            # Spark's file source follows symlinks: refuse a landing directory reached through one or holding one
            exists = confined.is_dir(root, database, table)
            links = confined.symlinks(root, database, table) if exists else []
        except confined.ConfinedPathError as exc:
            raise StreamSourceError(f"Stream table {label}: {exc}") from None
        if links:
            raise StreamSourceError(f"Stream table {label}: {database}/{table}/{links[0]} is a symbolic link; files "
                                    "catalogs never follow symbolic links (rule: no-symlinks).")
        if not exists:
            raise StreamSourceError(f"Stream table {label}: its landing directory {database}/{table} does not exist "
                                    f"under catalog '{binding.name}''s root.")
        fmt = spec.format or "json"
        if fmt not in FORMATS:
            raise StreamSourceError(f"Stream table {label}: format '{fmt}' is not one of {', '.join(FORMATS)}.")
        return spec, path

    def _options(self, reader: DataFrameReader | DataStreamReader, spec: StreamTable) -> Any:
        fmt = spec.format or "json"
        reader = reader.format(fmt).schema(spec.ddl())
        if fmt in ("json", "csv"):
            reader = reader.option("mode", "FAILFAST")  # a malformed record fails the batch, naming the file
        if fmt == "csv":
            reader = reader.option("header", "true")
        return reader

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """Spark's file stream source over the landing directory, oldest files first."""
        spec, path = self._checked(binding, database, table)
        reader = self._options(spark.readStream, spec)
        limit = self.config(binding).max_files_per_batch
        if limit:
            reader = reader.option("maxFilesPerTrigger", str(limit))
        frame: DataFrame = reader.load(str(path))
        return frame

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The last `limit` records of the newest files."""
        spec, path = self._checked(binding, database, table)
        files = sorted((e for e in confined.entries(self.config(binding).root, database, table)
                        if not e.is_dir and not e.name.startswith((".", "_"))),
                       key=lambda e: e.mtime_ns)[-SAMPLE_FILES:]
        if not files:
            return spark.createDataFrame([], schema=spec.ddl())
        rows = self._options(spark.read, spec).load([str(path / f.name) for f in files]).tail(limit)
        return spark.createDataFrame(rows, schema=spec.ddl())
