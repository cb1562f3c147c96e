"""A Hive catalog's `USING parquet` table as a streaming sink (Spark's file sink), on the suite's Hive Metastore:
rows appended once across a stop and a restart from the checkpoint, updates and Hive SerDe tables refused before
anything starts."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.errors import StreamingSinkError, StreamingStatementError
from lakeport_engine.streaming.query import plan_streaming, start_streaming
from tests.streaming.support import EVENT_DDL, FileDrops, batch_rows, event

pytestmark = pytest.mark.spark


@pytest.fixture
def database(spark: Any) -> Iterator[str]:
    name = f"lp_fs_{secrets.token_hex(4)}"
    spark.sql(f"CREATE DATABASE {name}")
    spark.sql(f"CREATE TABLE {name}.clicks_pq (room STRING, ts TIMESTAMP, v INT) USING parquet")
    spark.sql(f"CREATE TABLE {name}.clicks_serde (room STRING, ts TIMESTAMP, v INT) STORED AS TEXTFILE")
    yield name
    spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


def _plan(session: Any, hive_metastore: Any, drops: FileDrops, sql: str) -> Any:
    runner = ScriptRunner(session, InMemoryCatalogStore([CatalogEntry("hv", "hive", {
        "metastore-uris": hive_metastore.uri, "warehouse": str(hive_metastore.warehouse)})], team="acme"), team="acme")
    return plan_streaming(runner.resolver, split_statements(sql)[0], stream_view=drops.view_factory())


def test_parquet_table_takes_each_row_once_across_a_restart(spark: Any, hive_metastore: Any, database: str,
                                                            tmp_path: Path) -> None:
    drops = FileDrops(tmp_path / "landing" / "clicks")
    sql = f"INSERT INTO hv.{database}.clicks_pq SELECT room, ts, v FROM STREAM(files.web.clicks)"
    checkpoint = str(tmp_path / "ckpt")
    plan = _plan(spark.newSession(), hive_metastore, drops, sql)
    assert (plan.sink.kind, plan.mode) == ("files", "append")
    query = start_streaming(plan, checkpoint=checkpoint)
    drops.drop([event("a", 1, 1), event("b", 2, 2)])
    query.processAllAvailable()
    drops.drop([event("a", 3, 3)])
    query.processAllAvailable()
    query.stop()

    drops.drop([event("c", 4, 4)])  # while the query is down
    again = start_streaming(_plan(spark.newSession(), hive_metastore, drops, sql), checkpoint=checkpoint,
                            available_now=True)
    again.awaitTermination()
    spark.catalog.refreshTable(f"{database}.clicks_pq")
    written = sorted((tuple(r) for r in spark.table(f"{database}.clicks_pq").collect()), key=repr)
    assert written == batch_rows(spark, EVENT_DDL, drops.events, "SELECT room, ts, v FROM events")
    assert len(written) == 4


def test_updates_and_serde_tables_are_refused_before_start(spark: Any, hive_metastore: Any, database: str,
                                                           tmp_path: Path) -> None:
    drops = FileDrops(tmp_path / "landing" / "clicks")
    session = spark.newSession()
    with pytest.raises(StreamingStatementError, match="it only appends"):
        _plan(session, hive_metastore, drops, f"INSERT INTO hv.{database}.clicks_pq SELECT room, max(ts), sum(v) "
                                              "FROM STREAM(files.web.clicks) GROUP BY room EMIT STREAM")
    with pytest.raises(StreamingSinkError, match="Hive SerDe table"):
        _plan(session, hive_metastore, drops, f"INSERT INTO hv.{database}.clicks_serde SELECT room, ts, v "
                                              "FROM STREAM(files.web.clicks)")
    assert session.streams.active == []
