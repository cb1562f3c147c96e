"""`iceberg` catalogs: Apache Iceberg tables under one local warehouse (the configuration model).

Table metadata is kept by pyiceberg's SQL catalog in a SQLite file inside the warehouse
(`<warehouse>/_lakeport_iceberg/catalog.db`), table data under `<warehouse>/<namespace>/<table>`: everything a
catalog holds lies under the one path the platform checked against the team's data roots (docs/iceberg.md).
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from lakeport_engine.catalog_types.base import CatalogConfig, CatalogTypeDefinition, check_local_path


class IcebergConfig(CatalogConfig):
    """Iceberg tables under one warehouse directory; metadata through pyiceberg, data through Spark."""

    warehouse: str = Field(description="Local absolute path inside the team's data roots.", max_length=1000)
    default_namespace: str = Field(default="default", alias="default-namespace",
                                   pattern=r"^[A-Za-z0-9][A-Za-z0-9_$-]{0,127}$")
    commit_retries: int = Field(default=4, alias="commit-retries", ge=0, le=20,
                                description="How often a commit that lost a race to a concurrent one is retried.")

    @field_validator("warehouse")
    @classmethod
    def _warehouse(cls, value: str, info: ValidationInfo) -> str:
        if value.startswith("file://"):
            value = value.removeprefix("file://")
        if "://" in value:
            # object stores need a catalog database outside the warehouse (planned with the REST endpoint)
            raise ValueError("use a local absolute path (object-store warehouses are not supported yet).")
        return check_local_path(value, info)


DEFINITION = CatalogTypeDefinition(key="iceberg", display_name="Apache Iceberg", config_model=IcebergConfig,
                                   local_path_fields=("warehouse",))
