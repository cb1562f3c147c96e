"""The Python data sources of JSON records in declared columns (Redis Streams, JetStream): what they share.

A source gets its columns as the option `columns` (JSON `[[name, type], …]`, written by its catalog binding);
Spark asks it for its schema as DDL and for a stream reader over its options.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Protocol

from pyspark.sql.datasource import DataSource, DataSourceStreamReader


def declared_columns(option: str) -> list[tuple[str, str]]:
    """The `columns` option as (name, Spark SQL type) pairs."""
    return [(str(name), str(type_name)) for name, type_name in json.loads(option)]


class ReaderFactory(Protocol):
    """A stream reader class: built from the source's options."""

    def __call__(self, options: dict[str, str]) -> DataSourceStreamReader:
        """The reader over `options`."""
        ...


class RecordSource(DataSource):
    """`spark.readStream.format(FORMAT)`: a stream of records in the declared `columns`, read by READER."""

    FORMAT: ClassVar[str]
    READER: ClassVar[ReaderFactory]

    @classmethod
    def name(cls) -> str:
        return cls.FORMAT

    def schema(self) -> str:
        return ", ".join(f"`{name}` {type_name}" for name, type_name in declared_columns(self.options["columns"]))

    def streamReader(self, schema: Any) -> DataSourceStreamReader:
        return self.READER(dict(self.options))
