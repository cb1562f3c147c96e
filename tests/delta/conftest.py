"""Fixtures for the embedded Delta connector: a connector on the shared SparkSession and a fresh warehouse."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from lakeport_engine.delta import EmbeddedDelta, snapshot


@dataclass
class Lake:
    """A registered Delta catalog `lake` over a tmp warehouse, and helpers to run SQL through the connector."""

    spark: Any
    delta: EmbeddedDelta
    warehouse: Path
    name: str = "lake"

    def sql(self, statement: str, *, catalog: str | None = None, database: str | None = None) -> Any:
        """Run a statement the way the resolver does: through the connector when it handles it, else Spark."""
        if self.delta.handles(statement, current_catalog=catalog, current_database=database):
            return self.delta.execute(statement, current_catalog=catalog, current_database=database)
        return self.spark.sql(statement)

    def rows(self, statement: str, **kwargs: Any) -> list[tuple[Any, ...]]:
        """Sorted result rows as tuples."""
        frame = self.sql(statement, **kwargs)
        return sorted((tuple(r) for r in frame.collect()), key=repr)

    def path(self, database: str, table: str) -> str:
        return str(self.warehouse / database / table)

    def table(self, database: str, table: str, version: int | None = None) -> DeltaTable:
        """The table read directly with delta-rs, not through the connector."""
        return DeltaTable(self.path(database, table), version=version)

    def arrow(self, database: str, table: str, version: int | None = None) -> pa.Table:
        return self.table(database, table, version).to_pyarrow_table()


@pytest.fixture
def lake(spark: Any, tmp_path: Path) -> Iterator[Lake]:
    """A fresh warehouse registered as Delta catalog `lake` (database `default` exists implicitly)."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    delta = EmbeddedDelta(spark)
    delta.register("lake", {"warehouse": str(warehouse), "default-database": "default"})
    yield Lake(spark=spark, delta=delta, warehouse=warehouse)


@pytest.fixture(params=["jvm", "sql"])
def dv_reader(request: pytest.FixtureRequest, lake: Lake) -> Iterator[str]:
    """Deleted rows dropped by the platform's JVM reader (platform/jvm), or by SQL expressions as on an engine
    without the platform jar (the reader the connector falls back to)."""
    app = lake.spark.sparkContext.applicationId
    if request.param == "jvm" and not snapshot.jvm_reader_available(lake.spark):
        pytest.fail("the platform jar is not built: run platform/scripts/build-jvm.sh (make test does)")
    before = snapshot._JVM_READER_LOADABLE.get(app)  # noqa: SLF001 — the connector's per-application answer
    snapshot._JVM_READER_LOADABLE[app] = request.param == "jvm"  # noqa: SLF001
    yield request.param
    if before is None:
        snapshot._JVM_READER_LOADABLE.pop(app, None)  # noqa: SLF001
    else:
        snapshot._JVM_READER_LOADABLE[app] = before  # noqa: SLF001


@pytest.fixture
def plain_parquet(spark: Any, tmp_path: Path) -> Callable[[str, pa.Table], None]:
    """Register arrow data as a plain-parquet temp view (the baseline every Delta read is compared against)."""
    import pyarrow.parquet as pq

    created: list[str] = []

    def make(view: str, data: pa.Table) -> None:
        target = tmp_path / f"plain_{view}"
        target.mkdir()
        pq.write_table(data, target / "part-0.parquet")
        spark.read.parquet(str(target)).createOrReplaceTempView(view)
        created.append(view)

    yield make  # type: ignore[misc]
    for view in created:
        spark.catalog.dropTempView(view)


def data_files(root: str) -> list[Path]:
    """Every parquet file under a table root (committed or not)."""
    return sorted(p for p in Path(root).rglob("*.parquet"))
