"""Lineage of a streaming query, from the plan Spark analysed to start it: the stream source by its physical
identity, a JDBC table joined to it, the sink, and where each sink column comes from — then the query runs and
writes what its lineage says it writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pyarrow as pa
import pytest

from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.query import plan_streaming, start_streaming, streaming_lineage
from lakeport_engine.streaming.sources import stream_view
from tests.conftest import PgDatabase
from tests.streaming import support
from tests.streaming.support import FileDrops, delta_rows, delta_table, event

pytestmark = pytest.mark.spark
stream_spark = support.stream_spark
session = support.session  # a child session per test

PG_PASSWORD = "pg-Stream-Lineage-5ecret"
CLICKS = {"format": "json", "event-time": "ts", "columns": [
    {"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"}, {"name": "v", "type": "int"}]}


@pytest.fixture
def rooms(pg_source: PgDatabase) -> PgDatabase:
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.rooms (room text PRIMARY KEY, label text NOT NULL)")
        conn.execute("INSERT INTO shop.rooms VALUES ('a', 'Atrium'), ('b', 'Basement')")
    return pg_source


def test_a_streaming_query_names_its_stream_joined_table_sink_and_column_sources(
    session: Any, rooms: PgDatabase, tmp_path: Path,
) -> None:
    landing = tmp_path / "landing"
    drops = FileDrops(landing / "web" / "clicks")
    sink = delta_table(tmp_path / "lake", "web", "enriched",
                       pa.schema([("room", pa.string()), ("label", pa.string()), ("double_v", pa.int32())]))
    entries = [
        CatalogEntry("landing", "files", {"root": str(landing), "tables": {"web.clicks": CLICKS}}),
        CatalogEntry("lake", "delta", {"warehouse": str(tmp_path / "lake")}),
        CatalogEntry("pg", "jdbc", {"type": "postgresql", "base-url": f"jdbc:postgresql://{rooms.host}:{rooms.port}/",
                                    "default-database": rooms.name, "username": rooms.user, "password": PG_PASSWORD}),
    ]
    runner = ScriptRunner(session, InMemoryCatalogStore(entries, team="acme"), team="acme")
    sql = ("INSERT INTO lake.web.enriched SELECT c.room, r.label, c.v * 2 FROM STREAM(landing.web.clicks) c "
           "JOIN pg.shop.rooms r ON c.room = r.room")
    plan = plan_streaming(runner.resolver, split_statements(sql)[0], stream_view=stream_view)

    lineage = streaming_lineage(runner.resolver, plan).as_dict()

    inputs = {(d["namespace"], d["physical_name"]): d for d in lineage["inputs"]}
    clicks = ("file", str((landing / "web" / "clicks").resolve()))
    table = ("postgres://127.0.0.1:5432", f"{rooms.name}.shop.rooms")
    assert set(inputs) == {clicks, table}
    assert (inputs[clicks]["name"], inputs[clicks]["kind"]) == ("landing.web.clicks", "files")
    assert inputs[table]["name"] == "pg.shop.rooms"
    (output,) = lineage["outputs"]
    assert (output["namespace"], output["physical_name"], output["name"]) == ("file", sink, "lake.web.enriched")
    columns = {c["column"]: (c["kind"], [tuple(i) for i in c["inputs"]]) for c in lineage["columns"]}
    assert columns == {
        "room": ("identity", [("/".join(clicks), "room")]),
        "label": ("identity", [("/".join(table), "label")]),
        "double_v": ("expression", [("/".join(clicks), "v")]),
    }
    assert PG_PASSWORD not in repr(lineage)

    # the query it describes runs and writes what it says
    drops.drop([event("a", 1, 3), event("b", 2, 5), event("z", 3, 7)])
    query = start_streaming(plan, checkpoint=str(tmp_path / "ckpt"))
    query.processAllAvailable()
    query.stop()
    assert delta_rows(sink) == [("a", "Atrium", 6), ("b", "Basement", 10)]
