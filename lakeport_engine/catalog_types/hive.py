"""`hive` catalogs: a Hive Metastore reached over Thrift (the configuration model and its servers)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from lakeport_engine.catalog_types.base import (
    CatalogConfig,
    CatalogTypeDefinition,
    Endpoint,
    check_local_path,
    url_endpoint,
)
from lakeport_engine.hive_site import URIS, HiveSiteError, hive_site, split_uris

# A warehouse on another file system (the team's HDFS or bucket); a local one must be an absolute path.
_REMOTE_WAREHOUSE = re.compile(r"^(hdfs|s3a|abfss|gs)://[A-Za-z0-9._:-]+(/[^\s]*)?$")
_THRIFT_URI = re.compile(r"^thrift://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$")


class HiveConfig(CatalogConfig):
    """A Hive Metastore; Spark uses it as its session catalog."""

    metastore_uris: str | None = Field(
        default=None, alias="metastore-uris", description="thrift://host:9083, comma-separated.", max_length=1000
    )
    hive_conf_dir: str | None = Field(
        default=None, alias="hive-conf-dir", description="Directory holding hive-site.xml.", max_length=1000
    )
    default_database: str = Field(default="default", alias="default-database", max_length=128)
    hive_version: str = Field(default="2.3.10", alias="hive-version", pattern=r"^\d+\.\d+(\.\d+)?$")
    warehouse: str | None = Field(default=None, description="Warehouse location for new tables.", max_length=1000)
    hadoop_conf_dir: str | None = Field(default=None, alias="hadoop-conf-dir", max_length=1000)

    @field_validator("metastore_uris")
    @classmethod
    def _uris(cls, value: str | None) -> str | None:
        if value is None:
            return None
        uris = [u.strip() for u in value.split(",") if u.strip()]
        if not uris:
            raise ValueError("give at least one thrift://host:port URI.")
        for uri in uris:
            if not _THRIFT_URI.match(uri):
                raise ValueError(f"'{uri}' is not a thrift://host:port URI.")
        return ",".join(uris)

    @field_validator("hive_conf_dir", "hadoop_conf_dir")
    @classmethod
    def _local_dirs(cls, value: str | None, info: ValidationInfo) -> str | None:
        return check_local_path(value, info) if value else value

    @field_validator("warehouse")
    @classmethod
    def _warehouse(cls, value: str | None, info: ValidationInfo) -> str | None:
        # checked against the team's data roots on save (catalogs/services/paths.py), like a Delta warehouse
        if not value:
            return value
        if value.startswith("file://"):
            return check_local_path(value.removeprefix("file://"), info)
        if "://" in value:
            if not _REMOTE_WAREHOUSE.match(value) or "/../" in value + "/":
                raise ValueError("use a local absolute path or an hdfs://, s3a://, abfss:// or gs:// URI.")
            return value.rstrip("/")
        return check_local_path(value, info)

    @model_validator(mode="after")
    def _one_source(self) -> HiveConfig:
        if not self.metastore_uris and not self.hive_conf_dir:
            raise ValueError("set metastore-uris or hive-conf-dir.")
        return self

    @property
    def uris(self) -> list[str]:
        """The metastore URIs as a list."""
        return self.metastore_uris.split(",") if self.metastore_uris else []


def endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """The metastores: `metastore-uris`, else the `hive-conf-dir`'s hive-site.xml."""
    uris = str(plain.get("metastore-uris") or "")
    if not uris and plain.get("hive-conf-dir"):
        try:
            uris = hive_site(str(plain["hive-conf-dir"])).get(URIS, "")
        except HiveSiteError:
            uris = ""
    found = (url_endpoint(u, "thrift") for u in split_uris(uris))
    return [e for e in found if e is not None]


DEFINITION = CatalogTypeDefinition(key="hive", display_name="Hive Metastore", config_model=HiveConfig,
                                   local_path_fields=("hive-conf-dir", "hadoop-conf-dir", "warehouse"),
                                   endpoints=endpoints, endpoint_field="metastore-uris")
