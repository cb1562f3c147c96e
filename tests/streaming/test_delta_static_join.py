"""A stream joined with an embedded Delta table (the static side): the rows come out enriched, each micro-batch
reads the table's latest version (a row added or deleted between two batches counts from the next batch on),
deletion vectors and column mapping read as a batch read does, the table is an input of the query's lineage, and a
Delta table the team may not read is refused before anything starts."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pytest
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.snapshot import open_table, snapshot_frame
from lakeport_engine.delta.static_source import check_planned_columns
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.query import StreamingPlan, plan_streaming, start_streaming, streaming_lineage
from lakeport_engine.streaming.sources import stream_view
from lakeport_engine.streaming.static_tables import delta_static_tables, without_watermarks
from tests.streaming import support
from tests.streaming.support import FileDrops, delta_rows, delta_table, event

pytestmark = pytest.mark.spark
stream_spark = support.stream_spark
session = support.session  # a child session per test

CLICKS = {"format": "json", "event-time": "ts", "columns": [
    {"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"}, {"name": "v", "type": "int"}]}
GOLDEN = Path(__file__).resolve().parents[1] / "delta" / "golden"
ENRICHED = pa.schema([("room", pa.string()), ("label", pa.string()), ("v", pa.int32())])


class Lake:
    """A files catalog `landing` (web.clicks) and a Delta catalog `lake` of team acme, in `tmp_path`."""

    def __init__(self, session: Any, tmp_path: Path) -> None:
        self.warehouse = tmp_path / "lake"
        self.drops = FileDrops(tmp_path / "landing" / "web" / "clicks")
        self.checkpoint = str(tmp_path / "ckpt")
        entries = [CatalogEntry("landing", "files", {"root": str(tmp_path / "landing"), "tables": {"web.clicks": CLICKS}}),
                   CatalogEntry("lake", "delta", {"warehouse": str(self.warehouse)})]
        self.runner = ScriptRunner(session, InMemoryCatalogStore(entries, team="acme"), team="acme")

    def rooms(self, rooms: list[str], labels: list[str], mode: str = "append") -> str:
        path = str(self.warehouse / "web" / "rooms")
        deltalake.write_deltalake(path, pa.table({"room": rooms, "label": labels}), mode=mode)
        return path

    def plan(self, sql: str) -> StreamingPlan:
        return plan_streaming(self.runner.resolver, split_statements(sql)[0], stream_view=stream_view)


def settle(query: Any) -> None:
    query.processAllAvailable()
    assert query.exception() is None


def test_each_micro_batch_joins_the_delta_table_at_its_latest_version(session: Any, tmp_path: Path) -> None:
    lake = Lake(session, tmp_path)
    rooms = lake.rooms(["a", "b"], ["Atrium", "Basement"])
    sink = delta_table(lake.warehouse, "web", "enriched", ENRICHED)
    plan = lake.plan("INSERT INTO lake.web.enriched SELECT c.room, r.label, c.v FROM STREAM(landing.web.clicks) c "
                     "JOIN lake.web.rooms r ON c.room = r.room")
    lake.drops.drop([event("a", 1, 3), event("b", 2, 5), event("z", 3, 7)])
    query = start_streaming(plan, checkpoint=lake.checkpoint)
    settle(query)
    assert delta_rows(sink) == [("a", "Atrium", 3), ("b", "Basement", 5)]  # 'z' has no room yet: an inner join

    lake.rooms(["z"], ["Zen garden"])  # new versions of the dimension between two micro-batches
    deltalake.DeltaTable(rooms).delete("room = 'a'")
    lake.drops.drop([event("a", 4, 1), event("b", 5, 2), event("z", 6, 4)])
    settle(query)
    query.stop()
    assert delta_rows(sink) == [("a", "Atrium", 3), ("b", "Basement", 2), ("b", "Basement", 5),
                                ("z", "Zen garden", 4)]  # the earlier batch's rows stay as they were joined

    # a restart plans the query again over the same checkpoint: the dimension as it is now, no batch twice
    lake.rooms(["a"], ["Annex"])
    lake.drops.drop([event("a", 7, 9)])
    restarted = start_streaming(Lake(session.newSession(), tmp_path).plan(
        "INSERT INTO lake.web.enriched SELECT c.room, r.label, c.v FROM STREAM(landing.web.clicks) c "
        "JOIN lake.web.rooms r ON c.room = r.room"), checkpoint=lake.checkpoint)
    settle(restarted)
    restarted.stop()
    assert delta_rows(sink) == [("a", "Annex", 9), ("a", "Atrium", 3), ("b", "Basement", 2), ("b", "Basement", 5),
                                ("z", "Zen garden", 4)]


def test_the_delta_table_is_an_input_of_the_streaming_lineage(session: Any, tmp_path: Path) -> None:
    lake = Lake(session, tmp_path)
    rooms = lake.rooms(["a"], ["Atrium"])
    sink = delta_table(lake.warehouse, "web", "enriched", ENRICHED)
    plan = lake.plan("INSERT INTO lake.web.enriched SELECT c.room, rooms.label, c.v FROM STREAM(landing.web.clicks) c "
                     "LEFT JOIN lake.web.rooms ON c.room = rooms.room")  # no alias: `rooms.label` still resolves

    lineage = streaming_lineage(lake.runner.resolver, plan).as_dict()

    inputs = {d["name"]: d for d in lineage["inputs"]}
    assert set(inputs) == {"landing.web.clicks", "lake.web.rooms"}
    assert (inputs["lake.web.rooms"]["namespace"], inputs["lake.web.rooms"]["physical_name"]) == ("file", rooms)
    (output,) = lineage["outputs"]
    assert (output["physical_name"], output["name"]) == (sink, "lake.web.enriched")
    columns = {c["column"]: [tuple(i) for i in c["inputs"]] for c in lineage["columns"]}
    assert columns["label"] == [(f"file/{rooms}", "label")]


def test_a_watermarked_aggregation_over_the_join_emits_final_windows(session: Any, tmp_path: Path) -> None:
    lake = Lake(session, tmp_path)
    lake.rooms(["a", "b"], ["Atrium", "Atrium"])  # two rooms, one label: windows are counted per label
    sink = delta_table(lake.warehouse, "web", "per_label", pa.schema(
        [("label", pa.string()), ("start", pa.timestamp("us", tz="UTC")), ("clicks", pa.int64())]))
    plan = lake.plan("INSERT INTO lake.web.per_label SELECT r.label, window.start, count(*) "
                     "FROM STREAM(landing.web.clicks) WATERMARK ts DELAY OF INTERVAL 5 SECONDS c "
                     "JOIN lake.web.rooms r ON c.room = r.room GROUP BY r.label, window(c.ts, '10 seconds') "
                     "EMIT AFTER WATERMARK")
    query = start_streaming(plan, checkpoint=lake.checkpoint)
    lake.drops.drop([event("a", 1), event("b", 2), event("a", 3)])
    settle(query)
    lake.drops.drop([event("a", 30)])  # moves the watermark past the first window
    settle(query)
    query.stop()
    assert delta_rows(sink) == [("Atrium", dt.datetime(2026, 1, 1), 3)]


@pytest.mark.parametrize("golden", ["dv-partitioned-with-checkpoint", "dv-with-columnmapping"])
def test_the_static_side_reads_as_a_batch_read_does(session: Any, tmp_path: Path, golden: str) -> None:
    lake = Lake(session, tmp_path)
    shutil.copytree(GOLDEN / golden, lake.warehouse / "gold" / "t")
    resolver = lake.runner.resolver
    resolver.bind("lake")
    view = stream_view(resolver, "landing", "web", "clicks")
    query, static = delta_static_tables(resolver, f"SELECT d.* FROM {view} s CROSS JOIN lake.gold.t d")
    assert [(s.catalog, s.database, s.table) for s in static] == [("lake", "gold", "t")]
    seen: list[tuple[Any, ...]] = []
    lake.drops.drop([event("a", 1)])  # one event: the batch holds every row of the table once
    running = (session.sql(query).writeStream.foreachBatch(lambda b, _: seen.extend(tuple(r) for r in b.collect()))
               .option("checkpointLocation", lake.checkpoint).trigger(availableNow=True).start())
    running.awaitTermination()
    catalog = DeltaCatalog.from_config("lake", {"warehouse": str(lake.warehouse)})
    ref = TableRef("lake", "gold", "t")
    expected = [tuple(r) for r in snapshot_frame(session, open_table(catalog, ref), ref).collect()]
    assert expected and sorted(seen, key=repr) == sorted(expected, key=repr)


def test_a_delta_table_of_another_team_is_refused_and_nothing_starts(session: Any, tmp_path: Path) -> None:
    # another team's Delta catalog `vault`: its table is on this machine, but team acme's store does not hold it
    deltalake.write_deltalake(str(tmp_path / "vault" / "hr" / "salaries"), pa.table({"room": ["a"], "label": ["x"]}))
    lake = Lake(session, tmp_path)
    delta_table(lake.warehouse, "web", "enriched", ENRICHED)
    with pytest.raises(SparkRuntimeError) as refused:
        lake.plan("INSERT INTO lake.web.enriched SELECT c.room, s.label, c.v FROM STREAM(landing.web.clicks) c "
                  "JOIN vault.hr.salaries s ON c.room = s.room")
    assert "'vault'" in refused.value.message and "acme" in refused.value.message
    assert not session.streams.active


def test_time_travel_on_the_static_side_is_refused(session: Any, tmp_path: Path) -> None:
    lake = Lake(session, tmp_path)
    lake.rooms(["a"], ["Atrium"])
    delta_table(lake.warehouse, "web", "enriched", ENRICHED)
    with pytest.raises(SparkRuntimeError, match="each micro-batch reads its latest version; VERSION AS OF"):
        lake.plan("INSERT INTO lake.web.enriched SELECT c.room, r.label, c.v FROM STREAM(landing.web.clicks) c "
                  "JOIN lake.web.rooms VERSION AS OF 0 r ON c.room = r.room")


def test_a_version_that_drops_a_planned_column_fails_the_batch() -> None:
    planned = T.StructType([T.StructField("room", T.StringType()), T.StructField("label", T.StringType())])
    check_planned_columns("lake.web.rooms", 3, planned, T.StructType(
        [*planned.fields, T.StructField("floor", T.IntegerType())]))  # an added column is fine
    with pytest.raises(DeltaConnectorError, match=r"version 4 no longer has the column\(s\) label string"):
        check_planned_columns("lake.web.rooms", 4, planned, T.StructType([planned.fields[0]]))


def test_watermark_clauses_are_blanked_in_place() -> None:
    sql = ("SELECT * FROM v WATERMARK c.ts DELAY OF INTERVAL '1' MINUTE 30 SECONDS c JOIN lake.db.t ON x "
           "WHERE watermark = 1")
    blanked = without_watermarks(sql)
    assert len(blanked) == len(sql) and blanked.index("lake.db.t") == sql.index("lake.db.t")
    assert " ".join(blanked.split()) == "SELECT * FROM v c JOIN lake.db.t ON x WHERE watermark = 1"
