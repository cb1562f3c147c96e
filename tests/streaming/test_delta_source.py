"""Embedded Delta tables as streaming sources: the snapshot, then each appended version once, into Delta and
PostgreSQL while versions are appended; a restart from the checkpoint reads no version twice; a version that
removes rows stops the query with a message naming it; deletion vectors and column mapping read as a batch does."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import deltalake
import psycopg
import pyarrow as pa
import pytest

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.snapshot import open_table, snapshot_frame
from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.query import StreamingPlan, plan_streaming, start_streaming
from lakeport_engine.streaming.sources import stream_view
from tests.conftest import PgDatabase
from tests.streaming import support
from tests.streaming.support import delta_rows, delta_table
from tests.streaming.test_sinks import pg_entry, pg_rows, shop  # noqa: F401 - `shop` is a fixture

pytestmark = pytest.mark.spark
stream_spark = support.stream_spark
session = support.session  # a child session per test

UTC_TS = pa.timestamp("us", tz="UTC")
CLICKS = pa.schema([("room", pa.string()), ("ts", UTC_TS), ("v", pa.int32())])
GOLDEN = Path(__file__).resolve().parents[1] / "delta" / "golden"


def t(second: int) -> dt.datetime:
    return dt.datetime(2026, 1, 1) + dt.timedelta(seconds=second)


def clicks(*rows: tuple[str, int, int]) -> pa.Table:
    """Rows (room, second, v) as a table of CLICKS."""
    return pa.table({"room": [r[0] for r in rows], "ts": [t(r[1]).replace(tzinfo=dt.UTC) for r in rows],
                     "v": [r[2] for r in rows]}, schema=CLICKS)


def append(path: str, *rows: tuple[str, int, int]) -> None:
    """One new version of the source table (delta-rs, as another writer would)."""
    deltalake.write_deltalake(path, clicks(*rows), mode="append")


def as_rows(rows: list[tuple[str, int, int]]) -> list[tuple[Any, ...]]:
    return sorted(((r, t(s), v) for r, s, v in rows), key=repr)


class DeltaHarness:
    """Plans and runs streaming statements of team acme whose sources are real stream views (the runner's path)."""

    def __init__(self, session: Any, entries: list[CatalogEntry]) -> None:
        self.session = session
        self.runner = ScriptRunner(session, InMemoryCatalogStore(entries, team="acme"), team="acme")

    def plan(self, sql: str) -> StreamingPlan:
        return plan_streaming(self.runner.resolver, split_statements(sql)[0], stream_view=stream_view)

    def start(self, sql: str, checkpoint: Path) -> Any:
        return start_streaming(self.plan(sql), checkpoint=str(checkpoint))


def settle(query: Any) -> None:
    query.processAllAvailable()
    assert query.exception() is None


def test_delta_to_delta_reads_each_version_once_across_restarts(session: Any, stream_spark: Any,
                                                                 tmp_path: Path) -> None:
    warehouse = tmp_path / "lake"
    source = delta_table(warehouse, "web", "clicks", CLICKS)
    target = delta_table(warehouse, "web", "clicks_copy", CLICKS)
    sent = [("a", 1, 1), ("b", 2, 2)]
    append(source, *sent)
    entries = [CatalogEntry("lake", "delta", {"warehouse": str(warehouse)})]
    sql = "INSERT INTO lake.web.clicks_copy SELECT room, ts, v FROM STREAM(lake.web.clicks)"
    query = DeltaHarness(session, entries).start(sql, tmp_path / "ckpt")
    settle(query)
    assert delta_rows(target) == as_rows(sent)  # the snapshot at the start is the first batch
    for i in range(3):  # versions appended while the query runs: one micro-batch each, nothing twice
        more = [(f"r{i}", 10 + i, i), (f"s{i}", 20 + i, 10 * i)]
        append(source, *more)
        sent += more
        settle(query)
        assert delta_rows(target) == as_rows(sent)
    query.stop()

    later = [("c", 30, 3)]
    append(source, *later)  # written while the query is down
    append(source, ("d", 31, 4))
    sent += [*later, ("d", 31, 4)]
    restarted = DeltaHarness(stream_spark.newSession(), entries).start(sql, tmp_path / "ckpt")
    settle(restarted)
    restarted.stop()
    assert delta_rows(target) == as_rows(sent)  # resumed after the last version read: no duplicate, no gap
    versions = deltalake.DeltaTable(target).history()
    assert sum(1 for h in versions if h.get("operation") == "WRITE") == 6  # the empty table, then one commit per batch with rows


def test_delta_to_postgresql_upserts_per_version_and_refuses_a_delete(session: Any, tmp_path: Path,
                                                                      shop: PgDatabase) -> None:  # noqa: F811
    warehouse = tmp_path / "lake"
    source = delta_table(warehouse, "web", "clicks", CLICKS)
    append(source, ("a", 1, 5), ("b", 2, 1))
    entries = [CatalogEntry("lake", "delta", {"warehouse": str(warehouse)}), pg_entry(shop)]
    harness = DeltaHarness(session, entries)
    sql = "INSERT INTO pg.shop.room_totals SELECT room, count(*), sum(v) FROM STREAM(lake.web.clicks) GROUP BY room"
    query = harness.start(sql + " EMIT STREAM", tmp_path / "ckpt")
    settle(query)
    append(source, ("a", 3, 2), ("c", 4, 7))
    settle(query)
    append(source, ("c", 5, 1))
    settle(query)
    assert pg_rows(shop, "SELECT room, clicks, total FROM shop.room_totals") == [("a", 2, 7), ("b", 1, 1),
                                                                                 ("c", 2, 8)]

    deltalake.DeltaTable(source).delete("room = 'b'")  # a version that removes rows
    removing = deltalake.DeltaTable(source).version()
    with pytest.raises(Exception) as failure:
        query.processAllAvailable()
    message = str(failure.value)
    assert f"Delta table lake.web.clicks: version {removing} (DELETE) removes or changes rows" in message
    assert "appended rows only" in message
    # nothing of the refused version reached the sink
    assert pg_rows(shop, "SELECT room, clicks, total FROM shop.room_totals") == [("a", 2, 7), ("b", 1, 1),
                                                                                 ("c", 2, 8)]
    with psycopg.connect(shop.dsn) as conn:
        assert conn.execute("SELECT count(*) FROM shop.lakeport_stream_batches").fetchone() == (1,)


@pytest.mark.parametrize("golden", ["dv-partitioned-with-checkpoint", "dv-with-columnmapping"])
def test_the_first_batch_is_the_snapshot_less_deleted_rows(session: Any, tmp_path: Path, golden: str) -> None:
    warehouse = tmp_path / "lake"
    shutil.copytree(GOLDEN / golden, warehouse / "gold" / "t")
    entries = [CatalogEntry("lake", "delta", {"warehouse": str(warehouse)})]
    runner = ScriptRunner(session, InMemoryCatalogStore(entries, team="acme"), team="acme")
    view = stream_view(runner.resolver, "lake", "gold", "t")
    seen: list[tuple[Any, ...]] = []
    query = (session.table(view).writeStream.foreachBatch(lambda b, _: seen.extend(tuple(r) for r in b.collect()))
             .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    query.awaitTermination()
    catalog = DeltaCatalog.from_config("lake", {"warehouse": str(warehouse)})
    ref = TableRef("lake", "gold", "t")
    expected = [tuple(r) for r in snapshot_frame(session, open_table(catalog, ref), ref).collect()]
    assert expected and sorted(seen, key=repr) == sorted(expected, key=repr)
