"""Writes through the connector, verified with delta-rs directly; reads compared to plain parquet in Spark."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from tests.delta.conftest import Lake, data_files

pytestmark = pytest.mark.spark


def _arrow_rows(table: pa.Table, columns: list[str]) -> list[tuple[Any, ...]]:
    data = table.select(columns).to_pylist()
    return sorted((tuple(r[c] for c in columns) for r in data), key=repr)


def test_create_insert_select_round_trip_through_delta_rs(lake: Lake) -> None:
    lake.sql("CREATE DATABASE lake.sales")
    lake.sql("CREATE TABLE lake.sales.orders (id BIGINT NOT NULL COMMENT 'order id', amount DECIMAL(10,2), "
             "day STRING) USING delta PARTITIONED BY (day)")
    lake.sql("INSERT INTO lake.sales.orders VALUES (1, 9.99, '2024-01-01'), (2, 5.00, '2024-01-02'), "
             "(3, NULL, '2024-01-01')")

    table = lake.table("sales", "orders")
    assert table.version() == 1
    assert table.metadata().partition_columns == ["day"]
    fields = {f.name: f for f in table.schema().fields}
    assert str(fields["id"].type) == 'PrimitiveType("long")' and fields["id"].nullable is False
    assert fields["id"].metadata.get("comment") == "order id"
    assert str(fields["amount"].type) == 'PrimitiveType("decimal(10,2)")'
    assert _arrow_rows(table.to_pyarrow_table(), ["id", "amount", "day"]) == [
        (1, Decimal("9.99"), "2024-01-01"), (2, Decimal("5.00"), "2024-01-02"), (3, None, "2024-01-01")]
    actions = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    assert sorted({a["partition.day"] for a in actions}) == ["2024-01-01", "2024-01-02"]
    assert sum(a["num_records"] for a in actions) == 3
    # Files sit at hive paths directly under the table root; no staging directory is left behind.
    root = Path(lake.path("sales", "orders"))
    for f in data_files(str(root)):
        assert f.parent.parent == root and f.parent.name.startswith("day=")
    assert not [p for p in root.iterdir() if p.name.startswith("_lakeport")]

    assert lake.rows("SELECT id, amount, day FROM lake.sales.orders") == [
        (1, Decimal("9.99"), "2024-01-01"), (2, Decimal("5.00"), "2024-01-02"), (3, None, "2024-01-01")]
    assert lake.rows("SELECT day, count(*) FROM lake.sales.orders GROUP BY day") == [
        ("2024-01-01", 2), ("2024-01-02", 1)]


def test_ctas_partitioned_is_one_commit_read_back_by_delta_rs(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.events USING delta PARTITIONED BY (kind) AS "
             "SELECT id, CAST(id * 1.5 AS DOUBLE) AS score, CASE WHEN id % 3 = 0 THEN 'a' ELSE 'b' END AS kind, "
             "DATE'2024-03-01' + CAST(id AS INT) AS day FROM range(100)")
    table = lake.table("default", "events")
    assert table.version() == 0
    assert table.history()[0]["operation"] == "CREATE TABLE"
    assert table.metadata().partition_columns == ["kind"]
    got = table.to_pyarrow_table()
    assert got.num_rows == 100
    assert [f.name for f in table.schema().fields] == ["id", "score", "kind", "day"]
    expected = [(i, i * 1.5, "a" if i % 3 == 0 else "b", dt.date(2024, 3, 1) + dt.timedelta(days=i)) for i in range(100)]
    assert _arrow_rows(got, ["id", "score", "kind", "day"]) == sorted(expected, key=repr)
    assert lake.rows("SELECT kind, count(*), sum(id) FROM lake.default.events GROUP BY kind") == [
        ("a", 34, sum(i for i in range(100) if i % 3 == 0)), ("b", 66, sum(i for i in range(100) if i % 3))]


def test_insert_overwrite_whole_table_and_one_partition(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    lake.sql("INSERT OVERWRITE lake.default.t PARTITION (p = 'y') SELECT 20")
    assert _arrow_rows(lake.arrow("default", "t"), ["id", "p"]) == sorted([(1, "x"), (3, "z"), (20, "y")], key=repr)
    lake.sql("INSERT OVERWRITE TABLE lake.default.t SELECT 100, 'q'")
    table = lake.table("default", "t")
    assert table.version() == 3
    assert _arrow_rows(table.to_pyarrow_table(), ["id", "p"]) == [(100, "q")]
    assert [h["operationParameters"].get("mode") for h in table.history()[:2]] == ["Overwrite", "Overwrite"]
    assert lake.rows("SELECT * FROM lake.default.t") == [(100, "q")]
    # Earlier versions are untouched by the overwrite.
    assert lake.rows("SELECT * FROM lake.default.t VERSION AS OF 1") == [(1, "x"), (2, "y"), (3, "z")]


def test_dynamic_partition_overwrite_replaces_only_written_partitions(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT, p STRING, q INT) PARTITIONED BY (p, q)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'x', 1), (2, 'y', 1), (3, 'y', 2), (4, NULL, 1)")
    lake.spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        lake.sql("INSERT OVERWRITE lake.default.t PARTITION (p, q) "
                 "SELECT 10, 'y', 1 UNION ALL SELECT 11, 'w', 1 UNION ALL SELECT 12, NULL, 1")
        lake.sql("INSERT OVERWRITE lake.default.t PARTITION (p = 'x', q) SELECT 13, 5")
    finally:
        lake.spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    # Static mode (the default) replaces the whole static partition, as Spark does.
    lake.sql("INSERT OVERWRITE lake.default.t PARTITION (p = 'w', q) SELECT 14, 1")
    assert _arrow_rows(lake.arrow("default", "t"), ["id", "p", "q"]) == sorted(
        [(1, "x", 1), (10, "y", 1), (3, "y", 2), (12, None, 1), (13, "x", 5), (14, "w", 1)], key=repr)
    assert lake.rows("SELECT id, p, q FROM lake.default.t") == sorted(
        [(1, "x", 1), (10, "y", 1), (3, "y", 2), (12, None, 1), (13, "x", 5), (14, "w", 1)], key=repr)


def test_insert_with_column_list_static_partition_and_casts(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id BIGINT, name STRING, day DATE) PARTITIONED BY (day)")
    lake.sql("INSERT INTO lake.default.t (name, id, day) VALUES ('b', 2, DATE'2024-01-02')")
    lake.sql("INSERT INTO lake.default.t PARTITION (day = '2024-01-01') SELECT 1, 'a'")
    lake.sql("INSERT INTO lake.default.t (id, day) SELECT 3, '2024-01-03'")
    lake.sql("INSERT INTO lake.default.t BY NAME SELECT DATE'2024-01-04' AS day, 'd' AS name, 4 AS id")
    table = lake.table("default", "t")
    assert _arrow_rows(table.to_pyarrow_table(), ["id", "name", "day"]) == [
        (1, "a", dt.date(2024, 1, 1)), (2, "b", dt.date(2024, 1, 2)), (3, None, dt.date(2024, 1, 3)),
        (4, "d", dt.date(2024, 1, 4))]
    assert lake.rows("SELECT id, name, day FROM lake.default.t WHERE day BETWEEN DATE'2024-01-02' AND "
                     "DATE'2024-01-03'") == [(2, "b", dt.date(2024, 1, 2)), (3, None, dt.date(2024, 1, 3))]


def test_partition_values_with_special_characters(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT, k STRING) PARTITIONED BY (k)")
    values = ["a:b", "c/d e", "100%", "x=y", None]
    lake.sql("INSERT INTO lake.default.t VALUES " + ", ".join(
        f"({i}, {'NULL' if v is None else repr(v)})" for i, v in enumerate(values)))
    table = lake.table("default", "t")
    assert _arrow_rows(table.to_pyarrow_table(), ["id", "k"]) == sorted(enumerate(values), key=repr)
    assert sorted(map(repr, (a["partition.k"] for a in pa.table(table.get_add_actions(flatten=True)).to_pylist()))) \
        == sorted(map(repr, values))
    assert lake.rows("SELECT id, k FROM lake.default.t") == sorted(enumerate(values), key=repr)
    assert lake.rows("SELECT id FROM lake.default.t WHERE k IS NULL") == [(4,)]


def test_tables_written_by_delta_rs_read_like_plain_parquet(lake: Lake, plain_parquet: Any) -> None:
    data = pa.table({
        "id": pa.array(range(1000), pa.int64()),
        "region": pa.array([["eu", "us", None, "apac"][i % 4] for i in range(1000)]),
        "bucket": pa.array([i % 7 for i in range(1000)], pa.int32()),
        "amount": pa.array([i * 0.25 for i in range(1000)]),
        "at": pa.array([dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(hours=i) for i in range(1000)],
                       pa.timestamp("us", tz="UTC")),
    })
    (lake.warehouse / "ext").mkdir()
    write_deltalake(lake.path("ext", "facts"), data.slice(0, 600), partition_by=["region", "bucket"])
    write_deltalake(lake.path("ext", "facts"), data.slice(600), partition_by=["region", "bucket"], mode="append")
    plain_parquet("facts_plain", data)

    queries = [
        "SELECT region, bucket, count(*), sum(amount), min(at), max(id) FROM {t} GROUP BY region, bucket",
        "SELECT id, region, bucket, amount, at FROM {t} WHERE region = 'eu' AND bucket IN (1, 2) AND id > 500",
        "SELECT count(*) FROM {t} WHERE region IS NULL",
    ]
    for query in queries:
        assert lake.rows(query.format(t="lake.ext.facts")) == lake.rows(query.format(t="facts_plain")), query
    described = lake.rows("DESCRIBE lake.ext.facts")
    assert ("bucket", "int", None) in described and ("at", "timestamp", None) in described


def test_delta_rs_table_with_files_outside_hive_paths(lake: Lake, plain_parquet: Any, tmp_path: Path) -> None:
    """Partition values come from the log, not from directory names, when a writer used other paths."""
    import time

    import pyarrow.parquet as pq
    from deltalake import Schema
    from deltalake.transaction import AddAction, create_table_with_add_actions

    root = lake.warehouse / "default" / "odd"
    (root / "data").mkdir(parents=True)
    rows = [(1, "x"), (2, "y"), (3, "x")]
    adds = []
    for i, (value, part) in enumerate(rows):
        path = root / "data" / f"f{i}.parquet"
        pq.write_table(pa.table({"v": pa.array([value], pa.int64())}), path)
        adds.append(AddAction(f"data/f{i}.parquet", path.stat().st_size, {"part": part}, int(time.time() * 1000),
                              True, '{"numRecords": 1}'))
    schema = Schema.from_arrow(pa.schema([("v", pa.int64()), ("part", pa.string())]))
    create_table_with_add_actions(str(root), schema, adds, partition_by=["part"])
    assert lake.rows("SELECT v, part FROM lake.default.odd") == [(1, "x"), (2, "y"), (3, "x")]


def test_time_travel_by_version_and_timestamp(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1)")
    lake.sql("INSERT INTO lake.default.t VALUES (2)")
    lake.sql("INSERT OVERWRITE lake.default.t VALUES (3)")
    assert lake.rows("SELECT * FROM lake.default.t VERSION AS OF 0") == []
    assert lake.rows("SELECT * FROM lake.default.t VERSION AS OF 1") == [(1,)]
    assert lake.rows("SELECT * FROM lake.default.t FOR VERSION AS OF 2 AS old") == [(1,), (2,)]
    assert lake.rows("SELECT * FROM lake.default.t") == [(3,)]
    # delta-rs dates a version by its log file (as the Delta protocol does without in-commit timestamps).
    log_v2 = Path(lake.path("default", "t")) / "_delta_log" / f"{2:020d}.json"
    at_v2 = dt.datetime.fromtimestamp(log_v2.stat().st_mtime, tz=dt.UTC)
    tz = lake.spark.conf.get("spark.sql.session.timeZone")
    from zoneinfo import ZoneInfo

    local = at_v2.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M:%S.%f")
    assert lake.rows(f"SELECT * FROM lake.default.t TIMESTAMP AS OF '{local}'") == [(1,), (2,)]
    # Both snapshots of one table in one statement, each with its own version.
    assert lake.rows("SELECT a.id, b.id FROM lake.default.t VERSION AS OF 1 a "
                     "CROSS JOIN lake.default.t VERSION AS OF 3 b") == [(1, 3)]
    with pytest.raises(Exception, match="has no version 9"):
        lake.sql("SELECT * FROM lake.default.t VERSION AS OF 9")


def test_current_catalog_and_database_resolve_short_names(lake: Lake) -> None:
    lake.sql("CREATE DATABASE lake.shop")
    lake.sql("CREATE TABLE items (id INT, name STRING)", catalog="lake", database="shop")
    lake.sql("INSERT INTO items VALUES (1, 'pen')", catalog="lake", database="shop")
    lake.sql("INSERT INTO shop.items VALUES (2, 'ink')", catalog="lake")
    assert lake.rows("SELECT items.id, items.name FROM items", catalog="lake", database="shop") == [
        (1, "pen"), (2, "ink")]
    assert lake.rows("SELECT count(*) FROM shop.items", catalog="lake") == [(2,)]
    assert DeltaTable(lake.path("shop", "items")).version() == 2
    # CTEs and temp views keep their meaning inside a Delta catalog.
    lake.spark.range(3).createOrReplaceTempView("tv")
    try:
        assert lake.rows("WITH items AS (SELECT 42 AS id) SELECT id FROM items", catalog="lake",
                         database="shop") == [(42,)]
        assert lake.rows("SELECT count(*) FROM tv JOIN items ON tv.id = items.id", catalog="lake",
                         database="shop") == [(2,)]
    finally:
        lake.spark.catalog.dropTempView("tv")


def test_drop_table_and_databases_and_show(lake: Lake) -> None:
    lake.sql("CREATE SCHEMA lake.a")
    lake.sql("CREATE DATABASE IF NOT EXISTS lake.a")
    lake.sql("CREATE TABLE lake.a.t1 (id INT)")
    lake.sql("CREATE TABLE lake.a.t2 AS SELECT 1 AS id")
    assert lake.rows("SHOW DATABASES", catalog="lake") == [("a",), ("default",)]
    assert lake.rows("SHOW DATABASES IN lake LIKE 'a*'") == [("a",)]
    assert lake.rows("SHOW TABLES IN lake.a") == [("a", "t1", False), ("a", "t2", False)]
    assert lake.rows("SHOW /* all */ TABLES -- of a\n IN `lake`.`a` LIKE 't2'") == [("a", "t2", False)]
    assert lake.rows("SHOW TABLES", catalog="lake", database="a") == [("a", "t1", False), ("a", "t2", False)]
    lake.sql("DROP TABLE lake.a.t1")
    assert not Path(lake.path("a", "t1")).exists()
    lake.sql("DROP TABLE IF EXISTS lake.a.t1")
    with pytest.raises(Exception, match=r"lake\.a\.t1 does not exist"):
        lake.sql("DROP TABLE lake.a.t1")
    with pytest.raises(Exception, match="not empty"):
        lake.sql("DROP DATABASE lake.a")
    lake.sql("DROP DATABASE lake.a CASCADE")
    assert lake.rows("SHOW DATABASES", catalog="lake") == [("default",)]
    assert lake.sql("SHOW TABLES IN lake.default").count() == 0


def test_describe_and_history(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id BIGINT COMMENT 'key', day DATE) PARTITIONED BY (day) "
             "COMMENT 'daily facts' TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 60 days')")
    lake.sql("INSERT INTO lake.default.t VALUES (1, DATE'2024-01-01')")
    rows = [tuple(r) for r in lake.sql("DESCRIBE TABLE lake.default.t").collect()]
    assert rows[:2] == [("id", "bigint", "key"), ("day", "date", None)]
    assert ("# Partition Information", "", "") in rows and ("day", "date", None) in rows[3:]
    extended = {r[0]: r[1] for r in lake.sql("DESCRIBE EXTENDED lake.default.t").collect()}
    assert extended == {r[0]: r[1] for r in lake.sql("DESC FORMATTED t", catalog="lake").collect()}
    assert extended["Provider"] == "delta" and extended["Version"] == "1"
    assert extended["Comment"] == "daily facts" and "delta.logRetentionDuration=interval 60 days" in extended["Table Properties"]
    history = lake.sql("DESCRIBE HISTORY lake.default.t").collect()
    assert [h["version"] for h in history] == [1, 0]
    assert history[0]["operation"] == "WRITE" and history[0]["operationMetrics"]["operation"] == "INSERT INTO"
    assert history[0]["readVersion"] == 0
    assert [h["version"] for h in lake.sql("DESCRIBE HISTORY lake.default.t LIMIT 1").collect()] == [1]
