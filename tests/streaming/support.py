"""Helpers of the streaming runtime tests: a file-drop stream of JSON events, Delta sink tables read by delta-rs,
and the same SQL run as a batch over every event (the answer a streaming sink must end up equal to)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pytest

from lakeport_engine.resolver import CatalogResolver

EVENT_DDL = "room STRING, ts TIMESTAMP, v INT"
_drops = itertools.count()


class FileDrops:
    """A directory that receives JSON-lines files atomically (written aside, then renamed into place)."""

    def __init__(self, root: Path, ddl: str = EVENT_DDL) -> None:
        self.root = root
        self.ddl = ddl
        self.root.mkdir(parents=True, exist_ok=True)
        self.events: list[dict[str, Any]] = []

    def drop(self, events: Iterable[dict[str, Any]], *, raw: str | None = None) -> None:
        """Add one file of events (or of `raw` text, for malformed input)."""
        events = list(events)
        self.events += events
        name = f"part-{next(_drops):06d}.json"
        tmp = self.root.parent / f".{name}.tmp"
        tmp.write_text(raw if raw is not None else "".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        os.replace(tmp, self.root / name)

    def view_factory(self) -> Any:
        """A `StreamViewFactory` reading this directory with Spark's file source (stands in for a files catalog)."""
        counter = itertools.count(1)

        def stream_view(resolver: CatalogResolver, catalog: str, database: str, table: str) -> str:
            name = f"__lp_stream_t{next(counter)}"
            resolver.spark.readStream.schema(self.ddl).json(str(self.root)).createOrReplaceTempView(name)
            return name

        return stream_view


def event(room: str, second: int, v: int = 1) -> dict[str, Any]:
    """An event `second` seconds after 2026-01-01 00:00:00 UTC."""
    ts = dt.datetime(2026, 1, 1) + dt.timedelta(seconds=second)
    return {"room": room, "ts": ts.isoformat(), "v": v}


def delta_table(warehouse: Path, database: str, table: str, schema: pa.Schema) -> str:
    """An empty Delta table at `<warehouse>/<database>/<table>`; returns its path."""
    path = warehouse / database / table
    deltalake.write_deltalake(str(path), schema.empty_table())
    return str(path)


def delta_rows(path: str, columns: list[str] | None = None) -> list[tuple[Any, ...]]:
    """The table's rows as sorted tuples (timestamps as naive UTC datetimes), read by delta-rs."""
    data = deltalake.DeltaTable(path).to_pyarrow_table()
    names = columns or data.column_names
    rows = [tuple(_plain(r[c]) for c in names) for r in data.to_pylist()]
    return sorted(rows, key=repr)


def batch_rows(spark: Any, ddl: str, events: list[dict[str, Any]], sql: str) -> list[tuple[Any, ...]]:
    """`sql` over all `events` as a batch (the events are table `events`): the result a sink must equal."""
    frame = spark.createDataFrame([json.dumps(e) for e in events], "string")
    spark.read.schema(ddl).json(frame.rdd.map(lambda r: r[0])).createOrReplaceTempView("events")
    return sorted((tuple(_plain(v) for v in r) for r in spark.sql(sql).collect()), key=repr)


def _plain(value: Any) -> Any:
    if hasattr(value, "tzinfo") and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


@pytest.fixture(scope="module")
def stream_spark() -> Iterator[Any]:
    """The suite's SparkSession when one is running; else a plain local one for this module (streaming needs no
    Hive Metastore, whose start dominates a lone run of these tests). Stopped only if this fixture made it."""
    from pyspark.sql import SparkSession

    from lakeport_engine.guard import ENGINE_STATIC_CONF
    from tests.conftest import JDBC_JARS

    active = SparkSession.getActiveSession()
    if active is not None:
        yield active
        return
    session = (SparkSession.builder.master("local[2]").appName("lakeport-streaming-tests")
               .config("spark.jars", ",".join(j for j in JDBC_JARS if Path(j).exists()))
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").config("spark.driver.memory", "1g")
               .config("spark.python.authenticate.socketTimeout", "120s")  # Python data sources on a loaded machine
               .config(map=ENGINE_STATIC_CONF).getOrCreate())
    yield session
    session.stop()


@pytest.fixture
def session(stream_spark: Any) -> Iterator[Any]:
    """A child session of the module's SparkSession in UTC with 2 shuffle partitions; its queries stopped after."""
    child = stream_spark.newSession()
    child.conf.set("spark.sql.session.timeZone", "UTC")
    child.conf.set("spark.sql.shuffle.partitions", "2")
    yield child
    for query in child.streams.active:
        query.stop()
