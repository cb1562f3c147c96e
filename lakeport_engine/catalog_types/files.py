"""`files` catalogs: landing directories `<root>/<database>/<table>/` of JSON-lines, CSV (with a header) or
Parquet files, under one of the team's data directories (the configuration model)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from lakeport_engine.catalog_types.base import CatalogTypeDefinition, check_local_path
from lakeport_engine.catalog_types.streams import StreamCatalogConfig


class FilesConfig(StreamCatalogConfig):
    """A root directory whose `<database>/<table>` sub-directories are landing directories."""

    root: str = Field(description="Absolute path inside one of the team's data directories.", max_length=1000)
    format: Literal["json", "csv", "parquet"] = Field(default="json", description="Default file format.")
    max_files_per_batch: int | None = Field(default=None, alias="max-files-per-batch", ge=1, le=100_000)

    @field_validator("root")
    @classmethod
    def _root(cls, value: str, info: ValidationInfo) -> str:
        check_local_path(value, info)
        # kept as written, not resolved: a root that is (or turned into) a symlink is refused when read
        return os.path.normpath(value)

    def table_dir(self, database: str, table: str) -> Path:
        """The landing directory of `database.table`."""
        return Path(self.root) / database / table


DEFINITION = CatalogTypeDefinition(key="files", display_name="Files (landing directories)", config_model=FilesConfig,
                                   local_path_fields=("root",))
