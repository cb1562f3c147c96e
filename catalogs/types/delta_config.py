"""Configuration of `delta` catalogs: a warehouse directory of Delta tables, `<warehouse>/<db>/<table>`."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from catalogs.types.base import CatalogConfig, secret_map_field
from catalogs.types.paths import check_local_path

_REMOTE = re.compile(r"^(s3a|s3|abfss|gs)://[A-Za-z0-9._-]+(/[^\s]*)?$")
_OPTION_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,127}$")


class DeltaConfig(CatalogConfig):
    """Delta Lake tables under one warehouse; the transaction log is read with delta-rs."""

    warehouse: str = Field(description="Local path or s3a:// / abfss:// / gs:// URI.", max_length=1000)
    storage_options: dict[str, str] = secret_map_field(
        default_factory=dict, alias="storage-options", description="Object-store credentials (write-only)."
    )
    default_database: str = Field(default="default", alias="default-database", pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
    max_versions_per_batch: int | None = Field(
        default=None, alias="max-versions-per-batch", ge=1, le=1_000_000,
        description="A STREAM over this catalog's tables reads at most this many table versions per micro-batch.")

    @field_validator("warehouse")
    @classmethod
    def _warehouse(cls, value: str) -> str:
        if "://" in value:
            if value.startswith("file://"):
                return check_local_path(value.removeprefix("file://"))
            if not _REMOTE.match(value):
                raise ValueError("use a local absolute path or an s3a://, abfss:// or gs:// URI.")
            if "/../" in value + "/" or value.endswith("/.."):
                raise ValueError("must not contain '..'.")
            return value.rstrip("/")
        return check_local_path(value)

    @field_validator("storage_options")
    @classmethod
    def _option_keys(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if not _OPTION_KEY.match(key):
                raise ValueError(f"'{key}' is not a valid storage option name.")
        return value

    @property
    def is_local(self) -> bool:
        """True when the warehouse is a directory on this machine."""
        return "://" not in self.warehouse
