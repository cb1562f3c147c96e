"""A registered Delta catalog: a warehouse of Delta tables at `<warehouse>/<database>/<table>`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_kernel.redaction import register_secret

# Directories whose names start with "_" or "." are Delta/Spark bookkeeping, never databases or tables.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_$-]{0,254}$")
_REMOTE_SCHEMES = ("s3a://", "s3://", "abfss://", "gs://")


@dataclass(frozen=True)
class TableRef:
    """A Delta table addressed as `catalog.database.table` (`metadata`: an Iceberg metadata table of it, `….snapshots`)."""

    catalog: str
    database: str
    table: str
    metadata: str | None = None

    def __str__(self) -> str:
        return f"{self.catalog}.{self.database}.{self.table}" + (f".{self.metadata}" if self.metadata else "")


@dataclass(frozen=True)
class DeltaCatalog:
    """The plain configuration of one Delta catalog, as the resolver hands it over."""

    name: str
    warehouse: str
    default_database: str = "default"
    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_config(cls, name: str, config: Mapping[str, Any]) -> DeltaCatalog:
        """Validate `{"warehouse", "storage-options", "default-database"}`; secrets are registered for redaction."""
        warehouse = str(config.get("warehouse") or "").strip()
        if not warehouse:
            raise DeltaConnectorError(f"Delta catalog '{name}' has no 'warehouse' configured.")
        if warehouse.startswith("file://"):
            warehouse = warehouse.removeprefix("file://")
        if "://" in warehouse:
            if not warehouse.startswith(_REMOTE_SCHEMES):
                raise DeltaConnectorError(
                    f"Delta catalog '{name}': warehouse must be a local absolute path or an s3a://, abfss:// or gs:// URI."
                )
        elif not warehouse.startswith("/"):
            raise DeltaConnectorError(f"Delta catalog '{name}': warehouse '{warehouse}' is not an absolute path.")
        options = {str(k): str(v) for k, v in dict(config.get("storage-options") or {}).items()}
        for value in options.values():
            register_secret(value)  # a storage credential must never surface in an error or a log line
        default_db = str(config.get("default-database") or "default")
        check_name(default_db, what="database", catalog=name)
        return cls(name=name, warehouse=warehouse.rstrip("/") or "/", default_database=default_db,
                   storage_options=options)

    @property
    def is_local(self) -> bool:
        """True when the warehouse is a directory on this machine."""
        return "://" not in self.warehouse

    def database_uri(self, database: str) -> str:
        """Where the database's directory lives (delta-rs / local form)."""
        return f"{self.warehouse}/{database}"

    def table_uri(self, ref: TableRef) -> str:
        """Where the table's root (holding `_delta_log`) lives (delta-rs / local form)."""
        return f"{self.warehouse}/{ref.database}/{ref.table}"

    def delta_options(self) -> dict[str, str] | None:
        """Storage options for delta-rs, or None for local warehouses."""
        return dict(self.storage_options) or None


def spark_path(uri: str) -> str:
    """The form of a delta-rs path or URI that Spark's Hadoop file systems understand."""
    if uri.startswith("/"):
        return "file://" + uri
    if uri.startswith("s3://"):
        return "s3a://" + uri.removeprefix("s3://")  # Hadoop's S3 connector answers to s3a://
    return uri


def check_name(name: str, *, what: str, catalog: str) -> str:
    """Refuse database/table names that are not plain directory names (no '/', '..', hidden prefixes)."""
    if not _NAME.match(name):
        raise DeltaConnectorError(
            f"'{name}' is not a valid {what} name in Delta catalog '{catalog}': use letters, digits, '_', '-' "
            "and start with a letter or digit."
        )
    return name
