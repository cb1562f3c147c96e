"""Streaming statements end to end in one Spark session: windows and late data under a watermark, every EMIT mode,
every sink read back by its own client (delta-rs, psycopg, PyMySQL), replays written once, and refusals before
anything starts. The source is a directory of JSON drops read by Spark's file source (the files catalog's reader)."""

from __future__ import annotations

import datetime as dt
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import deltalake
import psycopg
import pyarrow as pa
import pymysql
import pytest

from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.errors import StreamingSinkError, StreamingStatementError
from lakeport_engine.streaming.query import StreamingPlan, plan_streaming, start_streaming
from tests.conftest import MARIADB, PgDatabase
from tests.streaming import support
from tests.streaming.support import (
    EVENT_DDL,
    FileDrops,
    batch_rows,
    delta_rows,
    delta_table,
    event,
)

pytestmark = pytest.mark.spark
stream_spark = support.stream_spark  # this module's SparkSession (streaming needs no Hive Metastore)
session = support.session  # a child session per test

PG_PASSWORD = f"pg-stream-{secrets.token_hex(6)}"
UTC_TS = pa.timestamp("us", tz="UTC")


def t(second: int) -> dt.datetime:
    return dt.datetime(2026, 1, 1) + dt.timedelta(seconds=second)


@pytest.fixture
def drops(tmp_path: Path) -> FileDrops:
    return FileDrops(tmp_path / "landing" / "clicks")


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "lake"


class Harness:
    """Plans and runs streaming statements of team acme against the drops, like the runner does."""

    def __init__(self, session: Any, drops: FileDrops, checkpoints: Path, entries: list[CatalogEntry]) -> None:
        self.session = session
        self.drops = drops
        self.checkpoints = checkpoints
        self.runner = ScriptRunner(session, InMemoryCatalogStore(entries, team="acme"), team="acme")
        self.queries: list[Any] = []

    def plan(self, sql: str) -> StreamingPlan:
        return plan_streaming(self.runner.resolver, split_statements(sql)[0], stream_view=self.drops.view_factory())

    def start(self, sql: str) -> StreamingPlan:
        plan = self.plan(sql)
        self.queries.append(start_streaming(plan, checkpoint=str(self.checkpoints / f"q{len(self.queries)}")))
        return plan

    def settle(self) -> None:
        """Process every drop, and the no-data batch that follows a watermark move."""
        for query in self.queries:
            query.processAllAvailable()
            query.processAllAvailable()


def eventually(read: Callable[[], Any], expected: Any, *, rounds: int = 100) -> Any:
    """Poll `read()` until it equals `expected` (a watermark's window closes in the batch after it moves)."""
    value = read()
    for _ in range(rounds):
        if value == expected:
            return value
        time.sleep(0.2)
        value = read()
    return value


@pytest.fixture
def lake(session: Any, drops: FileDrops, warehouse: Path, tmp_path: Path) -> Harness:
    return Harness(session, drops, tmp_path / "ckpt", [CatalogEntry("lake", "delta", {"warehouse": str(warehouse)})])


WINDOW_SCHEMA = pa.schema([("room", pa.string()), ("window_start", UTC_TS), ("clicks", pa.int64())])


def test_tumbling_window_after_watermark_appends_each_window_once_and_drops_late_rows(lake: Harness, warehouse: Path) -> None:
    path = delta_table(warehouse, "web", "clicks_10s", WINDOW_SCHEMA)
    plan = lake.start("INSERT INTO lake.web.clicks_10s SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
                      "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') "
                      "EMIT AFTER WATERMARK")
    assert (plan.mode, plan.sink.kind) == ("append", "delta")
    lake.drops.drop([event("a", 1), event("a", 2), event("b", 4), event("a", 9)])
    lake.settle()
    assert delta_rows(path) == []  # window [0, 10) is not final while the watermark is at 4 s
    lake.drops.drop([event("a", 12), event("b", 13), event("a", 17)])  # watermark 12 s: [0, 10) closes
    lake.settle()
    first = [("a", t(0), 3), ("b", t(0), 1)]
    assert eventually(lambda: delta_rows(path), first) == first
    lake.drops.drop([event("a", 3), event("a", 31)])  # 3 s is late (window closed): dropped; 31 s closes [10, 20)
    lake.settle()
    final = [("a", t(0), 3), ("a", t(10), 2), ("b", t(0), 1), ("b", t(10), 1)]
    assert eventually(lambda: delta_rows(path), final) == final


def test_hopping_window_emit_stream_merges_late_updates_into_delta(lake: Harness, warehouse: Path, session: Any) -> None:
    path = delta_table(warehouse, "web", "clicks_hop", WINDOW_SCHEMA)
    sql = ("SELECT room, window.start, count(*) FROM {src} WATERMARK ts DELAY OF INTERVAL 30 SECONDS "
           "GROUP BY room, window(ts, '10 seconds', '5 seconds')")
    plan = lake.start("INSERT INTO lake.web.clicks_hop " + sql.format(src="STREAM(files.web.clicks)") + " EMIT STREAM")
    assert (plan.mode, plan.shape.key) == ("update", ("room", "start"))
    lake.drops.drop([event("a", 1), event("a", 6), event("b", 8)])
    lake.settle()
    lake.drops.drop([event("a", 14), event("a", 4)])  # 4 s is late but within the 30 s delay: it updates its windows
    lake.settle()
    expected = batch_rows(session, EVENT_DDL, lake.drops.events, sql.format(src="events"))
    assert eventually(lambda: delta_rows(path), expected) == expected
    assert ("a", t(0), 3) in expected  # [0, 10) holds 1, 4 and 6 s: the late row was merged, not appended


def test_changelog_table_gets_insert_and_retract_rows(lake: Harness, warehouse: Path, session: Any) -> None:
    path = delta_table(warehouse, "web", "room_changes",
                       pa.schema([("op", pa.string()), ("room", pa.string()), ("clicks", pa.int64())]))
    plan = lake.start("INSERT INTO lake.web.room_changes SELECT room, count(*) FROM STREAM(files.web.clicks) "
                      "GROUP BY room EMIT CHANGES")
    assert plan.sink.kind == "changelog"
    lake.drops.drop([event("a", 1), event("a", 2)])
    lake.settle()
    lake.drops.drop([event("a", 3), event("b", 4)])
    lake.settle()
    expected = sorted([("+I", "a", 2), ("-U", "a", 2), ("+U", "a", 3), ("+I", "b", 1)], key=repr)
    assert eventually(lambda: delta_rows(path, ["op", "room", "clicks"]), expected) == expected
    live = Counter()
    for op, room, clicks in delta_rows(path, ["op", "room", "clicks"]):
        live[(room, clicks)] += -1 if op == "-U" else 1
    net = sorted(k for k, n in live.items() if n > 0)
    assert net == batch_rows(session, EVENT_DDL, lake.drops.events,
                             "SELECT room, count(*) FROM events GROUP BY room")


def test_a_replayed_batch_is_consumed_but_written_once(lake: Harness, warehouse: Path, session: Any) -> None:
    path = delta_table(warehouse, "web", "clicks_10s", WINDOW_SCHEMA)
    plan = lake.plan("INSERT INTO lake.web.clicks_10s SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
                     "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') "
                     "EMIT AFTER WATERMARK")
    batch = session.createDataFrame([("a", t(0), 3)], "room string, window_start timestamp, clicks bigint")
    assert plan.sink.write(batch, 7, "lakeport-q1") == 1
    assert plan.sink.write(batch, 7, "lakeport-q1") is None  # Spark replays batch 7 after a crash: skipped
    assert plan.sink.write(batch, 6, "lakeport-q1") is None
    assert plan.sink.write(batch, 7, "lakeport-q2") == 1  # another query is another transaction id
    assert delta_rows(path) == [("a", t(0), 3), ("a", t(0), 3)]
    assert deltalake.DeltaTable(path).transaction_version("lakeport-q1") == 7


TOTALS_SCHEMA = pa.schema([("room", pa.string()), ("clicks", pa.int64())])


@pytest.mark.parametrize(("target", "emit"), [("room_totals", "EMIT STREAM"), ("room_changes", "EMIT CHANGES")])
def test_a_stateful_batch_replayed_after_its_sink_commit_runs_again_and_writes_nothing(
        lake: Harness, warehouse: Path, session: Any, target: str, emit: str) -> None:
    # The crash window of `kill -9`: the sink committed batch N, Spark's commit log did not record it. On restart
    # Spark replays N; its stateful operator must run again (Spark 4.3 validates the state store commit) while
    # the sink writes nothing.
    schema = TOTALS_SCHEMA if target == "room_totals" else pa.schema([("op", pa.string()), *TOTALS_SCHEMA])
    path = delta_table(warehouse, "web", target, schema)
    sql = f"INSERT INTO lake.web.{target} SELECT room, count(*) FROM STREAM(files.web.clicks) GROUP BY room {emit}"
    checkpoint = lake.checkpoints / "replayed"
    lake.drops.drop([event("a", 1), event("b", 2)])
    first = start_streaming(lake.plan(sql), checkpoint=str(checkpoint))
    first.processAllAvailable()
    lake.drops.drop([event("a", 3)])
    first.processAllAvailable()
    first.stop()
    last = max(int(f.name) for f in (checkpoint / "commits").iterdir() if f.name.isdigit())
    written = delta_rows(path)
    for name in (str(last), f".{last}.crc"):  # as if killed between the sink commit and the commit log
        (checkpoint / "commits" / name).unlink()
    again = start_streaming(lake.plan(sql), checkpoint=str(checkpoint))
    again.processAllAvailable()
    assert again.exception() is None and again.isActive
    assert (checkpoint / "commits" / str(last)).exists()  # the replayed batch ran to its commit
    assert delta_rows(path) == written  # …and wrote nothing twice
    lake.drops.drop([event("b", 4)])
    again.processAllAvailable()
    again.stop()
    totals = dict(r for r in batch_rows(session, EVENT_DDL, lake.drops.events,
                                        "SELECT room, count(*) FROM events GROUP BY room"))
    assert totals == {"a": 2, "b": 2}
    if target == "room_totals":
        assert dict(delta_rows(path)) == totals  # the state survived the replay: counts go on from it
    else:
        changes = [("+I", "a", 1), ("+I", "b", 1), ("-U", "a", 1), ("+U", "a", 2), ("-U", "b", 1), ("+U", "b", 2)]
        assert delta_rows(path, ["op", "room", "clicks"]) == sorted(changes, key=repr)  # each change once


def test_a_driver_killed_while_writing_its_first_offsets_restarts_from_the_start(
        lake: Harness, warehouse: Path, session: Any) -> None:
    # What `kill -9` left in the crash test: the checkpoint's metadata and half of the first offsets entry
    # (Spark's temp file, not yet renamed). Spark 4.3 counted it as content and refused every restart.
    path = delta_table(warehouse, "web", "room_totals", TOTALS_SCHEMA)
    sql = "INSERT INTO lake.web.room_totals SELECT room, count(*) FROM STREAM(files.web.clicks) GROUP BY room EMIT STREAM"
    checkpoint = lake.checkpoints / "interrupted"
    start_streaming(lake.plan(sql), checkpoint=str(checkpoint)).stop()  # wrote the checkpoint's metadata only
    (checkpoint / "offsets").mkdir(exist_ok=True)
    interrupted = checkpoint / "offsets" / ".0.2ebfc5ab-b57d-4f95-9302-93a2f4af249c.tmp"
    interrupted.write_text("v1\n{", encoding="utf-8")
    (checkpoint / "offsets" / "..0.2ebfc5ab-b57d-4f95-9302-93a2f4af249c.tmp.crc").touch()
    lake.drops.drop([event("a", 1), event("b", 2), event("a", 3)])
    query = start_streaming(lake.plan(sql), checkpoint=str(checkpoint))
    query.processAllAvailable()
    assert query.exception() is None and query.isActive
    query.stop()
    assert not interrupted.exists()
    assert delta_rows(path) == [("a", 2), ("b", 1)]


# ---- JDBC ------------------------------------------------------------------------------------------------
@pytest.fixture
def shop(pg_source: PgDatabase) -> PgDatabase:
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.room_totals (room text PRIMARY KEY, clicks bigint NOT NULL, total bigint NOT NULL)")
        conn.execute("CREATE TABLE shop.clicks_log (room text NOT NULL, ts timestamp, v int)")
    return pg_source


@pytest.fixture
def maria_db() -> Iterator[str]:
    name = f"lp_s2_{secrets.token_hex(4)}"
    conn = pymysql.connect(**MARIADB, autocommit=True)
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name}")
        cur.execute(f"CREATE TABLE {name}.windows (room VARCHAR(20) NOT NULL, window_start DATETIME NOT NULL, "
                    "clicks BIGINT NOT NULL)")
    yield name
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {name}")
    conn.close()


def pg_entry(db: PgDatabase) -> CatalogEntry:
    return CatalogEntry("pg", "jdbc", {"type": "postgresql", "base-url": f"jdbc:postgresql://{db.host}:{db.port}/",
                                       "default-database": db.name, "username": db.user, "password": PG_PASSWORD})


def pg_rows(db: PgDatabase, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(db.dsn) as conn:
        return sorted(conn.execute(sql).fetchall(), key=repr)


def test_postgresql_upserts_on_the_primary_key_once_per_batch(session: Any, drops: FileDrops, tmp_path: Path,
                                                              shop: PgDatabase) -> None:
    harness = Harness(session, drops, tmp_path / "ckpt", [pg_entry(shop)])
    sql = "SELECT room, count(*), sum(v) FROM {src} GROUP BY room"
    plan = harness.start("INSERT INTO pg.shop.room_totals " + sql.format(src="STREAM(files.web.clicks)") + " EMIT STREAM")
    assert (plan.sink.kind, plan.mode) == ("jdbc", "update")
    drops.drop([event("a", 1, 5), event("b", 2, 1)])
    harness.settle()
    drops.drop([event("a", 3, 2), event("c", 4, 7)])
    harness.settle()
    expected = batch_rows(session, EVENT_DDL, drops.events, sql.format(src="events"))
    assert pg_rows(shop, "SELECT room, clicks, total FROM shop.room_totals") == expected
    books = pg_rows(shop, "SELECT target, batch_id FROM shop.lakeport_stream_batches")
    assert books == [("room_totals", 1)]
    replay = session.createDataFrame([("a", 99, 99)], "room string, clicks bigint, total bigint")
    app_id = f"lakeport-{harness.queries[0].id}"
    assert plan.sink.write(replay, 1, app_id) == 0  # batch 1 is recorded: a replay writes nothing
    assert pg_rows(shop, "SELECT room, clicks, total FROM shop.room_totals") == expected


def test_a_failing_batch_leaves_postgresql_untouched_and_names_no_secret(session: Any, drops: FileDrops,
                                                                         tmp_path: Path, shop: PgDatabase) -> None:
    harness = Harness(session, drops, tmp_path / "ckpt", [pg_entry(shop)])
    plan = harness.plan("INSERT INTO pg.shop.clicks_log SELECT room, ts, v FROM STREAM(files.web.clicks)")
    assert plan.mode == "append"
    good_then_bad = session.createDataFrame([("a", t(1), 1), (None, t(2), 2)], "room string, ts timestamp, v int")
    with pytest.raises(StreamingSinkError) as caught:
        plan.sink.write(good_then_bad, 0, "lakeport-q")
    assert "null value" in caught.value.message and PG_PASSWORD not in caught.value.message
    assert pg_rows(shop, "SELECT count(*) FROM shop.clicks_log") == [(0,)]  # the good row rolled back with the bad one


def test_mariadb_appends_final_windows_and_refuses_updates_without_a_primary_key(
        session: Any, drops: FileDrops, tmp_path: Path, maria_db: str) -> None:
    entry = CatalogEntry("crm", "jdbc", {"type": "mysql", "base-url": "jdbc:mysql://127.0.0.1:3306/",
                                         "default-database": maria_db, "username": "root", "password": ""})
    harness = Harness(session, drops, tmp_path / "ckpt", [entry])
    query = (f"INSERT INTO crm.{maria_db}.windows SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
             "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds')")
    with pytest.raises(StreamingStatementError) as caught:
        harness.plan(query + " EMIT STREAM")
    assert "PRIMARY KEY (room, window_start)" in caught.value.message and "EMIT AFTER WATERMARK" in caught.value.message
    harness.start(query + " EMIT AFTER WATERMARK")
    drops.drop([event("a", 1), event("a", 2), event("b", 3)])
    harness.settle()
    drops.drop([event("a", 25)])
    harness.settle()

    def read() -> list[tuple[Any, ...]]:
        conn = pymysql.connect(**MARIADB, database=maria_db)
        with conn.cursor() as cur:
            cur.execute("SELECT room, window_start, clicks FROM windows")
            rows = sorted(cur.fetchall(), key=repr)
        conn.close()
        return rows

    expected = [("a", t(0), 2), ("b", t(0), 1)]
    assert eventually(read, expected) == expected


# ---- refused before start ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("statement", "words"), [
    ("INSERT INTO lake.web.clicks_10s SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
     "GROUP BY room, window(ts, '10 seconds') EMIT AFTER WATERMARK", "needs a watermark"),
    ("INSERT INTO lake.web.clicks_10s SELECT 'x', window.start, count(*) FROM STREAM(files.web.clicks) "
     "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') EMIT STREAM",
     "does not select all of its GROUP BY columns (room, window)"),
    ("INSERT INTO lake.web.missing SELECT room, ts, v FROM STREAM(files.web.clicks)", "does not exist"),
    ("INSERT INTO nowhere.web.t SELECT room, ts, v FROM STREAM(files.web.clicks)", "Unknown catalog 'nowhere'"),
    ("INSERT INTO lake.web.clicks_10s SELECT room, ts FROM STREAM(files.web.clicks)", "columns match by position"),
    ("INSERT INTO lake.web.clicks_10s SELECT * FROM __lp_stream_1 EMIT STREAM", "reads no stream"),
    ("INSERT INTO lake.web.clicks_10s SELECT room, ts, v FROM STREAM(files.web.clicks) "
     "UNION ALL SELECT * FROM __lp_stream_t9", "__lp_"),
    ("INSERT INTO lake.web.clicks_10s SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
     "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') EMIT AFTER BREAKFAST",
     "EMIT AFTER WATERMARK; EMIT STREAM"),
])
def test_bad_statements_are_refused_before_anything_starts(lake: Harness, warehouse: Path, statement: str,
                                                           words: str) -> None:
    path = delta_table(warehouse, "web", "clicks_10s", WINDOW_SCHEMA)
    with pytest.raises((StreamingStatementError, StreamingSinkError, Exception)) as caught:
        lake.plan(statement)
    message = getattr(caught.value, "message", str(caught.value))
    assert words in message
    assert "JVM stacktrace" not in message and "at org.apache" not in message
    assert lake.session.streams.active == [] and deltalake.DeltaTable(path).version() == 0


def test_wrong_types_fail_the_batch_and_leave_delta_unchanged(lake: Harness, warehouse: Path, session: Any) -> None:
    path = delta_table(warehouse, "web", "clicks_10s", WINDOW_SCHEMA)
    plan = lake.plan("INSERT INTO lake.web.clicks_10s SELECT room, ts, v FROM STREAM(files.web.clicks)")
    bad = session.createDataFrame([("a", t(0), "not a number")], "room string, ts timestamp, v string")
    with pytest.raises(Exception) as caught:
        plan.sink.write(bad, 0, "lakeport-q")
    assert "not a number" in str(caught.value) or "Failed to parse" in str(caught.value)
    assert deltalake.DeltaTable(path).version() == 0 and delta_rows(path) == []


def test_emit_after_delay_is_a_processing_time_trigger(lake: Harness, warehouse: Path) -> None:
    delta_table(warehouse, "web", "clicks_10s", WINDOW_SCHEMA)
    plan = lake.plan("INSERT INTO lake.web.clicks_10s SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
                     "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') "
                     "EMIT STREAM AFTER DELAY INTERVAL '2' SECONDS")
    assert (plan.mode, plan.emit.trigger) == ("update", {"processingTime": "2000 milliseconds"})
    query = start_streaming(plan, checkpoint=str(lake.checkpoints / "delay"))
    lake.queries.append(query)
    lake.drops.drop([event("a", 1)])
    query.processAllAvailable()
    assert query.lastProgress is not None
    assert "ProcessingTimeTrigger" in query._jsq.streamingQuery().trigger().toString()


def test_a_batch_script_cannot_name_the_platform_stream_views(lake: Harness) -> None:
    result = lake.runner.run("SELECT * FROM __lp_stream_1")
    assert not result.succeeded
    assert "rule: reserved-name" in result.error["message"] and "__lp_stream_1" in result.error["message"]


def test_an_edited_aggregation_the_checkpoint_cannot_resume_fails_with_the_way_out(
        lake: Harness, warehouse: Path, session: Any) -> None:
    from lakeport_engine.streaming.errors import incompatible_checkpoint, user_message

    path = delta_table(warehouse, "web", "room_totals", TOTALS_SCHEMA)
    sql = "INSERT INTO lake.web.room_totals SELECT room, {agg} FROM STREAM(files.web.clicks) GROUP BY room EMIT STREAM"
    first = lake.start(sql.format(agg="count(*)"))
    lake.drops.drop([event("a", 1), event("b", 2), event("a", 3)])
    lake.settle()
    lake.queries[0].stop()
    assert delta_rows(path) == [("a", 2), ("b", 1)]
    # the same checkpoint, with an aggregate whose state has another shape (avg keeps a sum and a count)
    edited = lake.plan(sql.format(agg="CAST(avg(v) AS BIGINT)"))
    query = start_streaming(edited, checkpoint=str(lake.checkpoints / "q0"))
    lake.drops.drop([event("c", 4)])
    with pytest.raises(Exception):  # noqa: B017, PT011 - Spark's StreamingQueryException, checked below
        query.processAllAvailable()
    message = first.sink.failure or edited.sink.failure or user_message(query.exception())
    told = incompatible_checkpoint(message)
    assert told is not None, message
    assert "cannot resume from its checkpoint" in told and "reset the stream" in told
    assert "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE" in told and "JVM" not in told
    assert delta_rows(path) == [("a", 2), ("b", 1)]  # nothing of the edited query was written


def test_a_delta_sink_keeps_the_tables_write_rules_like_the_batch_connector(lake: Harness, warehouse: Path) -> None:
    """The streaming Delta sink refuses, by name and before anything starts, what the batch connector refuses:
    rows into a table whose CHECK constraints it cannot evaluate; a merge (EMIT STREAM) into an append-only table."""
    checked = warehouse / "web" / "checked"
    deltalake.write_deltalake(str(checked), WINDOW_SCHEMA.empty_table())
    deltalake.DeltaTable(str(checked)).alter.add_constraint({"positive": "clicks > 0"})
    with pytest.raises(StreamingSinkError, match="checkConstraints"):
        lake.plan("INSERT INTO lake.web.checked SELECT room, ts, v FROM STREAM(files.web.clicks)")
    only_appends = warehouse / "web" / "only_appends"
    deltalake.write_deltalake(str(only_appends), WINDOW_SCHEMA.empty_table(),
                              configuration={"delta.appendOnly": "true"})
    with pytest.raises(StreamingSinkError, match="appendOnly"):
        lake.plan("INSERT INTO lake.web.only_appends SELECT room, window.start, count(*) FROM STREAM(files.web.clicks) "
                  "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') EMIT STREAM")
    assert lake.session.streams.active == []
    assert deltalake.DeltaTable(str(only_appends)).version() == 0
