"""`paimon` catalogs: Apache Paimon tables in one local filesystem warehouse (the configuration model).

Paimon's filesystem catalog keeps everything under the warehouse (`<warehouse>/<database>.db/<table>`), the one
path the platform checked against the team's data roots (docs/paimon.md).
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from lakeport_engine.catalog_types.base import CatalogConfig, CatalogTypeDefinition, check_local_path


class PaimonConfig(CatalogConfig):
    """Paimon tables under one warehouse directory; metadata and merge-on-read by pypaimon, work spread by Spark."""

    warehouse: str = Field(description="Local absolute path inside the team's data roots.", max_length=1000)
    default_database: str = Field(default="default", alias="default-database",
                                  pattern=r"^[A-Za-z0-9][A-Za-z0-9_$-]{0,127}$")
    max_snapshots_per_batch: int | None = Field(
        default=None, alias="max-snapshots-per-batch", ge=1, le=1_000_000,
        description="A STREAM over this catalog's tables reads at most this many snapshots per micro-batch.")

    @field_validator("warehouse")
    @classmethod
    def _warehouse(cls, value: str, info: ValidationInfo) -> str:
        if value.startswith("file://"):
            value = value.removeprefix("file://")
        if "://" in value:
            raise ValueError("use a local absolute path (object-store and REST catalogs are not supported yet).")
        return check_local_path(value, info)


DEFINITION = CatalogTypeDefinition(key="paimon", display_name="Apache Paimon", config_model=PaimonConfig,
                                   local_path_fields=("warehouse",))
