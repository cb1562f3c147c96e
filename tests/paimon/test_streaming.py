"""Paimon tables as streaming sources and sinks through the streaming runtime (plan_streaming/start_streaming, the
runner's path): the first batch is the latest snapshot, later batches each new snapshot's rows or changelog rows
with their row kinds, once across restarts from the checkpoint; an OVERWRITE stops the query by name; the sink
commits each batch as (commit user, identifier) and skips a replayed batch; update mode is checked against the
table's key and merge engine before anything starts. Every table is read back with pypaimon."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pypaimon import Schema

from lakeport_engine.paimon.catalog import open_catalog
from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.query import plan_streaming, start_streaming
from lakeport_engine.streaming.sinks.paimon import PaimonSink
from lakeport_engine.streaming.sources import stream_view
from tests.paimon.conftest import oracle
from tests.streaming import support

pytestmark = pytest.mark.spark
spark = support.stream_spark  # no Hive: the suite's session when one runs, else a plain local one


class Harness:
    """Team acme with Paimon catalog `pai` over a tmp warehouse; pypaimon on the same tables as the oracle."""

    def __init__(self, spark: Any, warehouse: Path) -> None:
        self.warehouse = warehouse
        entry = CatalogEntry("pai", "paimon", {"warehouse": str(warehouse)})
        self.runner = ScriptRunner(spark, InMemoryCatalogStore([entry], team="acme"), team="acme")
        self.catalog = open_catalog(str(warehouse))
        self.catalog.create_database("db", True)

    def create(self, name: str, fields: list[pa.Field], **options: Any) -> Any:
        keys = options.pop("primary_keys", None)
        schema = Schema.from_pyarrow_schema(pa.schema(fields), primary_keys=keys, options=options)
        self.catalog.create_table(f"db.{name}", schema, False)
        return self.catalog.get_table(f"db.{name}")

    def write(self, name: str, rows: list[dict[str, Any]], *, overwrite: bool = False) -> None:
        """One pypaimon commit of `rows` (another engine writing the table)."""
        from lakeport_engine.paimon.catalog import arrow_schema

        table = self.catalog.get_table(f"db.{name}")
        builder = table.new_batch_write_builder()
        if overwrite:
            builder = builder.overwrite({})
        writer, committer = builder.new_write(), builder.new_commit()
        writer.write_arrow(pa.Table.from_pylist(rows, schema=arrow_schema(table)))
        committer.commit(writer.prepare_commit())
        writer.close()
        committer.close()

    def rows(self, name: str) -> Counter[tuple[Any, ...]]:
        return oracle(self.catalog.get_table(f"db.{name}"))

    def run_available(self, sql: str, checkpoint: Path) -> None:
        """Process what the source holds now, then stop (the runner's --available-now)."""
        plan = plan_streaming(self.runner.resolver, split_statements(sql)[0], stream_view=stream_view)
        query = start_streaming(plan, checkpoint=str(checkpoint), available_now=True)
        query.awaitTermination()
        assert query.exception() is None

    def plan(self, sql: str) -> Any:
        return plan_streaming(self.runner.resolver, split_statements(sql)[0], stream_view=stream_view)


@pytest.fixture
def harness(spark: Any, tmp_path: Path) -> Iterator[Harness]:
    session = spark.newSession()
    session.conf.set("spark.sql.shuffle.partitions", "2")
    (tmp_path / "pai").mkdir()
    yield Harness(session, tmp_path / "pai")
    for query in session.streams.active:
        query.stop()


KEY = pa.field("k", pa.string(), nullable=False)
CHANGES = [pa.field("k", pa.string()), pa.field("v", pa.int64()), pa.field("kind", pa.string())]


def test_a_changelog_table_streams_its_snapshot_then_changelog_rows_once(harness: Harness, tmp_path: Path) -> None:
    # 'rowkind.field' makes pypaimon write each row's kind (as Flink CDC would): -U/+U and -D reach the changelog
    harness.create("src", [KEY, pa.field("v", pa.int64()), pa.field("op", pa.string())], primary_keys=["k"],
                   bucket="2", **{"changelog-producer": "input", "rowkind.field": "op"})
    harness.create("changes", CHANGES)
    harness.write("src", [{"k": "a", "v": 1, "op": "+I"}, {"k": "b", "v": 2, "op": "+I"}])
    harness.write("src", [{"k": "a", "v": 5, "op": "+U"}])
    sql = "INSERT INTO pai.db.changes SELECT k, v, _row_kind FROM STREAM(pai.db.src)"
    checkpoint = tmp_path / "ckpt"

    harness.run_available(sql, checkpoint)  # the first batch: the table merged at its latest snapshot
    assert harness.rows("changes") == Counter({("a", 5, "+I"): 1, ("b", 2, "+I"): 1})

    # one commit each: pypaimon's writer merges the rows of one key within a write, changelog files included
    harness.write("src", [{"k": "a", "v": 5, "op": "-U"}])
    harness.write("src", [{"k": "a", "v": 7, "op": "+U"}])
    harness.write("src", [{"k": "b", "v": 2, "op": "-D"}, {"k": "c", "v": 3, "op": "+I"}])
    harness.run_available(sql, checkpoint)
    harness.run_available(sql, checkpoint)  # nothing new: a restart reads no snapshot twice
    assert harness.rows("changes") == Counter({("a", 5, "+I"): 1, ("b", 2, "+I"): 1, ("a", 5, "-U"): 1,
                                               ("a", 7, "+U"): 1, ("b", 2, "-D"): 1, ("c", 3, "+I"): 1})
    assert harness.rows("src") == Counter({("a", 7, "+U"): 1, ("c", 3, "+I"): 1})  # what the changelog adds up to


def test_an_append_table_streams_new_snapshots_and_an_overwrite_stops_it_by_name(harness: Harness,
                                                                               tmp_path: Path) -> None:
    fields = [pa.field("k", pa.string()), pa.field("v", pa.int64())]
    harness.create("events", fields, bucket="-1")
    harness.create("copy", fields)
    harness.create("pk", [KEY, pa.field("v", pa.int64())], primary_keys=["k"], bucket="1")
    harness.write("events", [{"k": "a", "v": 1}])
    sql = "INSERT INTO pai.db.copy SELECT k, v FROM STREAM(pai.db.events)"
    harness.run_available(sql, tmp_path / "ckpt")
    harness.write("events", [{"k": "b", "v": 2}, {"k": "c", "v": 3}])
    harness.write("events", [{"k": "a", "v": 4}])
    harness.run_available(sql, tmp_path / "ckpt")
    assert harness.rows("copy") == harness.rows("events") == Counter(
        {("a", 1): 1, ("b", 2): 1, ("c", 3): 1, ("a", 4): 1})

    # a primary-key table without a changelog producer streams the records each snapshot wrote, as upserts (+I)
    harness.write("pk", [{"k": "a", "v": 1}])
    pk_sql = "INSERT INTO pai.db.copy SELECT k, v FROM STREAM(pai.db.pk) WHERE _row_kind = '+I'"
    harness.run_available(pk_sql, tmp_path / "pk-ckpt")
    harness.write("pk", [{"k": "a", "v": 9}])
    harness.run_available(pk_sql, tmp_path / "pk-ckpt")
    assert harness.rows("copy")[("a", 1)] == 2 and harness.rows("copy")[("a", 9)] == 1

    harness.write("events", [{"k": "z", "v": 0}], overwrite=True)
    with pytest.raises(Exception) as failure:
        harness.run_available(sql, tmp_path / "ckpt")
    message = str(failure.value)
    assert "pai.db.events" in message and "snapshot 4 is an OVERWRITE" in message
    assert Counter(k for k, _ in harness.rows("copy").elements()) == Counter({"a": 4, "b": 1, "c": 1})  # nothing of it written


def test_the_sink_skips_a_replayed_batch_by_its_commit_user_and_identifier(harness: Harness) -> None:
    table = harness.create("totals", [KEY, pa.field("n", pa.int64())], primary_keys=["k"], bucket="2",
                           **{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"})
    sink = PaimonSink("pai", {"warehouse": str(harness.warehouse)}, "db", "totals")
    spark = harness.runner.resolver.spark
    frame = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3)], "k string, n bigint")
    assert sink.write(frame, 0, "lakeport-q1") == 3
    assert sink.write(frame, 0, "lakeport-q1") is None  # the replay after a crash: nothing written
    # a restarted driver (a new sink) finds the committed batch in the table's snapshots
    again = PaimonSink("pai", {"warehouse": str(harness.warehouse)}, "db", "totals")
    assert again.write(frame, 0, "lakeport-q1") is None
    assert again.write(frame, 1, "lakeport-q1") == 3
    assert again.write(frame, 0, "lakeport-q2") == 3  # another query's batch 0 is its own
    assert oracle(table) == Counter({("a", 12): 1, ("b", 6): 1})  # three batches, none twice
    snapshots = table.snapshot_manager()
    made = [snapshots.get_snapshot_by_id(i) for i in range(1, 4)]
    assert [(s.commit_user, s.commit_identifier) for s in made] == [("lakeport-q1", 0), ("lakeport-q1", 1),
                                                                   ("lakeport-q2", 0)]
    assert made[0].properties["lakeport.operation"] == "STREAMING INSERT"


def test_update_mode_needs_a_deduplicating_table_keyed_by_the_grouping_columns(harness: Harness) -> None:
    fields = [pa.field("k", pa.string()), pa.field("v", pa.int64())]
    harness.create("events", fields)
    harness.create("plain", fields)
    harness.create("by_k", [KEY, pa.field("v", pa.int64())], primary_keys=["k"], bucket="1")
    harness.create("summed", [KEY, pa.field("v", pa.int64())], primary_keys=["k"], bucket="1",
                   **{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"})
    harness.create("dyn", [KEY, pa.field("v", pa.int64())], primary_keys=["k"])
    totals = "SELECT k, sum(v) FROM STREAM(pai.db.events) GROUP BY k EMIT STREAM"
    with pytest.raises(StreamingStatementError, match="is an append table"):
        harness.plan(f"INSERT INTO pai.db.plain {totals}")
    with pytest.raises(StreamingStatementError, match="merge-engine 'aggregation'"):
        harness.plan(f"INSERT INTO pai.db.summed {totals}")
    with pytest.raises(StreamingStatementError, match=r"primary key \(k\), which must be exactly"):
        harness.plan("INSERT INTO pai.db.by_k SELECT 'x', sum(v) FROM STREAM(pai.db.events) GROUP BY k EMIT STREAM")
    plan = harness.plan(f"INSERT INTO pai.db.by_k {totals}")
    assert plan.describe()["sink"] == "paimon" and plan.mode == "update"
    with pytest.raises(Exception, match=r"dynamic buckets \(.bucket.=.-1.\) is not supported"):
        harness.plan("INSERT INTO pai.db.dyn SELECT k, v FROM STREAM(pai.db.events)")
    with pytest.raises(Exception, match=r"STREAM\(pai\.db\.nope\).*does not exist"):
        harness.plan("INSERT INTO pai.db.plain SELECT k, v FROM STREAM(pai.db.nope)")
