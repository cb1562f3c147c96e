"""Writes through the embedded connector (Spark writes parquet, pyiceberg commits), read back by pyiceberg's own
scan: CREATE TABLE with Iceberg partition transforms, INSERT INTO, CTAS; partition values are checked by pyiceberg's
partition pruning (a wrong bucket or day would hide the row from a filtered scan). A failed write commits nothing;
statements the connector does not write are refused by name."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.iceberg.catalog import IcebergError
from tests.iceberg.conftest import Ice, oracle

pytestmark = pytest.mark.spark


def _values(rng: random.Random, start: int, n: int) -> tuple[list[tuple[Any, ...]], str]:
    base = dt.datetime(2024, 2, 27, 20, 0, 0)
    rows = []
    for i in range(start, start + n):
        ts = base + dt.timedelta(minutes=rng.randint(0, 60 * 24 * 4))
        rows.append((i, rng.choice(["north", "south", "east-west", None]), ts, rng.choice([None, "abcdefgh", "xy"])))
    sql = ", ".join(
        f"({i}, {'NULL' if r is None else repr(r)}, TIMESTAMP_NTZ'{ts:%Y-%m-%d %H:%M:%S}', "
        f"{'NULL' if s is None else repr(s)})" for i, r, ts, s in rows)
    return rows, sql


def test_partitioned_create_insert_and_ctas_read_back_by_pyiceberg(ice: Ice) -> None:
    rng = random.Random(3)
    ice.spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")  # partition values must not depend on it
    ice.sql("CREATE DATABASE ice.shop")
    ice.sql("CREATE TABLE ice.shop.visits (id BIGINT, region STRING, ts TIMESTAMP_NTZ, code STRING) USING iceberg "
            "PARTITIONED BY (days(ts), bucket(8, id), region, truncate(3, code))")
    expected: Counter[tuple[Any, ...]] = Counter()
    for batch in range(3):
        rows, values = _values(rng, batch * 100, 100)
        ice.sql(f"INSERT INTO ice.shop.visits VALUES {values}")
        expected.update(rows)
    table = ice.table("shop.visits")
    assert [str(f.transform) for f in table.spec().fields] == ["day", "bucket[8]", "identity", "truncate[3]"]
    assert len(table.snapshots()) == 3
    assert oracle(table) == expected
    assert ice.rows("SELECT * FROM ice.shop.visits") == expected
    # pyiceberg prunes by the partition values we wrote: every row is found through its own bucket, day and region
    for row in rng.sample(sorted(expected, key=repr), 25):
        ident, region, ts, _code = row
        assert oracle(table, row_filter=f"id == {ident}") == Counter([row])
        day = oracle(table, row_filter=f"ts >= '{ts:%Y-%m-%dT00:00:00}' and ts < '{ts + dt.timedelta(days=1):%Y-%m-%dT00:00:00}'")
        assert day[row] == 1
        if region is not None:
            assert oracle(table, row_filter=f"region == '{region}' and id == {ident}") == Counter([row])
    # INSERT … SELECT from the table itself, and CTAS with a transform: one snapshot each
    ice.sql("INSERT INTO ice.shop.visits (id, ts, region) SELECT id + 1000, ts, region FROM ice.shop.visits WHERE id < 50")
    table = ice.table("shop.visits")
    assert sum(oracle(table).values()) == 350
    ice.sql("CREATE TABLE ice.shop.by_month PARTITIONED BY (months(ts)) AS "
            "SELECT region, count(*) AS n, min(ts) AS ts FROM ice.shop.visits GROUP BY region")
    ctas = ice.table("shop.by_month")
    assert len(ctas.snapshots()) == 1
    assert oracle(ctas) == ice.rows("SELECT region, count(*), min(ts) FROM ice.shop.visits GROUP BY region")


def test_types_and_timestamps_round_trip(ice: Ice) -> None:
    ice.sql("CREATE TABLE ice.default.typed (i INT, l BIGINT, d DECIMAL(12,3), f DOUBLE, b BOOLEAN, s STRING, "
            "dt DATE, ts TIMESTAMP, st STRUCT<x: INT, y: STRING>) "
            "PARTITIONED BY (years(dt), hours(ts))")
    ice.sql("INSERT INTO ice.default.typed VALUES (1, 2, 3.125, 1.5, true, 'é', DATE'1969-12-31', "
            "TIMESTAMP'2024-03-10 02:30:00 UTC', named_struct('x', 1, 'y', 'z')), "
            "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    table = ice.table("default.typed")
    assert ice.rows("SELECT * FROM ice.default.typed") == oracle(table)
    assert oracle(table, row_filter="dt == '1969-12-31'").total() == 1
    assert oracle(table, row_filter="ts == '2024-03-10T02:30:00+00:00'").total() == 1


def test_a_failed_write_commits_nothing_and_leaves_no_files(ice: Ice) -> None:
    ice.sql("CREATE TABLE ice.default.t (id INT, s STRING) PARTITIONED BY (bucket(4, id))")
    ice.sql("INSERT INTO ice.default.t VALUES (1, 'a')")
    before = ice.table("default.t")
    data = Path(before.location().removeprefix("file://")) / "data"
    files_before = sorted(p for p in data.rglob("*") if p.is_file())
    ice.spark.conf.set("spark.sql.ansi.enabled", "true")
    with pytest.raises(Exception, match="(?i)cast|invalid|malformed"):
        ice.sql("INSERT INTO ice.default.t SELECT CAST(x AS INT), 'b' FROM VALUES ('2'), ('oops') AS v(x)")
    after = ice.table("default.t")
    assert after.current_snapshot().snapshot_id == before.current_snapshot().snapshot_id
    assert sorted(p for p in data.rglob("*") if p.is_file()) == files_before
    assert oracle(after) == Counter([(1, "a")])
    with pytest.raises(Exception, match="(?i)NOT NULL|null"):
        ice.sql("CREATE TABLE ice.default.req (id INT NOT NULL)")
        ice.sql("INSERT INTO ice.default.req VALUES (1), (NULL)")
    assert ice.table("default.req").current_snapshot() is None


def test_insert_overwrite_whole_table_and_dynamic_partitions(ice: Ice) -> None:
    ice.sql("CREATE TABLE ice.default.o (id INT, region STRING) PARTITIONED BY (region)")
    ice.sql("INSERT INTO ice.default.o VALUES (1, 'n'), (2, 's'), (3, 'e')")
    ice.sql("INSERT INTO ice.default.o VALUES (4, 'n')")
    ice.sql("INSERT OVERWRITE ice.default.o SELECT id * 10, region FROM ice.default.o WHERE region <> 'e'")
    table = ice.table("default.o")
    assert oracle(table) == Counter([(10, "n"), (20, "s"), (40, "n")])
    assert ice.rows("SELECT * FROM ice.default.o") == oracle(table)
    ice.spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        ice.sql("INSERT OVERWRITE ice.default.o VALUES (7, 'n'), (8, 'w')")
    finally:
        ice.spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    table = ice.table("default.o")
    assert oracle(table) == Counter([(7, "n"), (8, "w"), (20, "s")])  # 's' untouched, 'n' replaced
    assert ice.rows("SELECT * FROM ice.default.o") == oracle(table)
    first = table.snapshots()[0].snapshot_id
    assert ice.rows(f"SELECT * FROM ice.default.o VERSION AS OF {first}") == Counter([(1, "n"), (2, "s"), (3, "e")])


def test_delete_from_removes_whole_files_decided_by_partition_values(ice: Ice) -> None:
    ice.sql("CREATE TABLE ice.default.d (id INT, region STRING, day DATE) PARTITIONED BY (region, day)")
    ice.sql("INSERT INTO ice.default.d VALUES (1, 'n', DATE'2024-01-01'), (2, 'n', DATE'2024-01-02'), "
            "(3, 's', DATE'2024-01-01'), (4, NULL, DATE'2024-01-01'), (5, 's', DATE'2024-01-03')")
    files_before = len(list(ice.table("default.d").scan().plan_files()))
    result = ice.sql("DELETE FROM ice.default.d AS x WHERE x.region = 'n' OR day >= DATE'2024-01-03'")
    assert result.collect()[0][0] == 3
    table = ice.table("default.d")
    assert oracle(table) == Counter([(3, "s", dt.date(2024, 1, 1)), (4, None, dt.date(2024, 1, 1))])
    assert ice.rows("SELECT * FROM ice.default.d") == oracle(table)
    assert len(list(table.scan().plan_files())) == files_before - 3  # whole files removed, none rewritten
    assert ice.sql("DELETE FROM ice.default.d WHERE region = 'none'").collect()[0][0] == 0
    assert len(table.snapshots()) == len(ice.table("default.d").snapshots())  # nothing matched: no commit
    ice.sql("DELETE FROM ice.default.d")
    assert oracle(ice.table("default.d")) == Counter()


@pytest.mark.parametrize(("statement", "message"), [
    ("DELETE FROM ice.default.t WHERE id = 1", "identity partition columns"),
    ("DELETE FROM ice.default.t WHERE id IN (SELECT 1)", "no subquery"),
    ("UPDATE ice.default.t SET s = 'x'", "UPDATE"),
    ("INSERT INTO ice.default.t PARTITION (id = 1) VALUES ('a')", "partitions are hidden"),
    ("MERGE INTO ice.default.t a USING ice.default.t b ON a.id = b.id WHEN MATCHED THEN DELETE", "MERGE INTO"),
    ("ALTER TABLE ice.default.t RENAME TO x", "this form of ALTER TABLE"),
    ("CREATE TABLE ice.default.u (id INT) LOCATION '/tmp/elsewhere'", "LOCATION"),
    ("CREATE TABLE ice.default.u (id INT) TBLPROPERTIES ('write.data.path'='/tmp/x')", "iceberg-location"),
    ("CREATE TABLE ice.default.u (id INT) PARTITIONED BY (bucket(id))", "(?i)bucket"),
    ("CREATE TABLE ice.default.u (id INT) USING parquet", "USING iceberg"),
    ("CREATE TABLE ice.default.u (a ARRAY<INT>)", "array and map columns"),
    ("SELECT * FROM ice.`..`.t", "not a valid namespace name"),
    ("CREATE TABLE ice.default.`../../x` (id INT)", "not a valid table name"),
])
def test_refused_statements_say_what_and_why(ice: Ice, statement: str, message: str) -> None:
    ice.sql("CREATE TABLE IF NOT EXISTS ice.default.t (id INT, s STRING)")
    with pytest.raises(IcebergError, match=message) as raised:
        ice.sql(statement)
    assert "Delta" not in str(raised.value)
    assert not (ice.warehouse.parent / "x").exists()
