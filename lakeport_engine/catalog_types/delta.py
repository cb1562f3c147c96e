"""`delta` catalogs: a warehouse directory of Delta tables, `<warehouse>/<db>/<table>` (the configuration model)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from lakeport_engine.catalog_types.base import (
    CatalogConfig,
    CatalogTypeDefinition,
    Endpoint,
    check_local_path,
    secret_map_field,
    url_endpoint,
)

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
    def _warehouse(cls, value: str, info: ValidationInfo) -> str:
        if "://" in value:
            if value.startswith("file://"):
                return check_local_path(value.removeprefix("file://"), info)
            if not _REMOTE.match(value):
                raise ValueError("use a local absolute path or an s3a://, abfss:// or gs:// URI.")
            if "/../" in value + "/" or value.endswith("/.."):
                raise ValueError("must not contain '..'.")
            return value.rstrip("/")
        return check_local_path(value, info)

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


def endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """Object-store endpoints (AWS_ENDPOINT_URL, …): servers the engine connects to as well."""
    options = plain.get("storage-options") or {}
    found = (url_endpoint(str(v), "http") for v in options.values() if "://" in str(v))
    return [e for e in found if e is not None]


DEFINITION = CatalogTypeDefinition(key="delta", display_name="Delta Lake", config_model=DeltaConfig,
                                   local_path_fields=("warehouse",), endpoints=endpoints, endpoint_field="storage-options")
