"""The same rows both ways between Lakeport's Spark SQL (the engine's ScriptRunner: resolver, guard, embedded Iceberg
connector) and pyiceberg's RestCatalog on the endpoint, over one catalog's warehouse: a table Lakeport created
and filled (partition transforms, generated rows) is read by RestCatalog, and a table RestCatalog created and
appended to is read by a Lakeport run — compared as multisets."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from typing import Any

import pytest

from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.iceberg_rest.conftest import Rest
from tests.iceberg_rest.test_pyiceberg_client import SCHEMA, SPEC, generated

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _runner(spark: Any, rest: Rest) -> ScriptRunner:
    store = InMemoryCatalogStore([CatalogEntry("ice", "iceberg", {"warehouse": str(rest.warehouse)})], team="acme")
    return ScriptRunner(spark, store, team="acme", lineage=False)


def _micros(value: dt.datetime | None) -> int | None:
    return None if value is None else (value - EPOCH) // dt.timedelta(microseconds=1)


def _rest_rows(rest: Rest, name: str) -> Counter[tuple[Any, ...]]:
    arrow = rest.catalog("viewer").load_table(name).scan().to_arrow()
    return Counter((r["id"], _micros(r["ts"]), r["region"], r["amount"]) for r in arrow.to_pylist())


def _lakeport_rows(runner: ScriptRunner, name: str) -> Counter[tuple[Any, ...]]:
    result = runner.run(f"SELECT id, unix_micros(ts) AS ts, region, amount FROM ice.{name}")
    assert result.succeeded, result.error
    return Counter(tuple(r) for r in result.statements[-1].rows)


def _values(seed: int, n: int, start: int = 0) -> tuple[str, Counter[tuple[Any, ...]]]:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        micros = _micros(dt.datetime(2024, 3, 1, tzinfo=dt.UTC)) + rnd.randrange(10 * 86_400) * 1_000_000
        rows.append((start + i, micros, rnd.choice(["eu", "us", "zürich", None]), round(rnd.uniform(-50, 50), 3)))
    text = ", ".join(f"({i}, timestamp_micros({m}), {'NULL' if r is None else repr(r)}, CAST({a!r} AS DOUBLE))"
                     for i, m, r, a in rows)
    return text, Counter(rows)


def test_lakeport_writes_and_rest_catalog_reads(spark: Any, rest: Rest) -> None:
    runner = _runner(spark, rest)
    first, expected_first = _values(7, 120)
    second, expected_second = _values(8, 80)
    result = runner.run(f"""
        CREATE DATABASE ice.sales;
        CREATE TABLE ice.sales.orders (id BIGINT, ts TIMESTAMP, region STRING, amount DOUBLE)
            PARTITIONED BY (days(ts), bucket(8, id), region);
        INSERT INTO ice.sales.orders VALUES {first};
        INSERT INTO ice.sales.orders VALUES {second};
    """)
    assert result.succeeded, result.error
    assert _rest_rows(rest, "sales.orders") == expected_first + expected_second
    assert _lakeport_rows(runner, "sales.orders") == expected_first + expected_second
    table = rest.catalog("viewer").load_table("sales.orders")
    assert [str(f.transform) for f in table.spec().fields] == ["day", "bucket[8]", "identity"]
    assert len(table.snapshots()) == 2


def test_rest_catalog_writes_and_lakeport_reads(spark: Any, rest: Rest) -> None:
    client = rest.catalog()
    client.create_namespace("sales")
    table = client.create_table("sales.events", schema=SCHEMA, partition_spec=SPEC)
    batches = [generated(20, 150), generated(21, 90, start=150)]
    for batch in batches:
        table.append(batch)
    expected = Counter((r["id"], _micros(r["ts"]), r["region"], r["amount"])
                       for b in batches for r in b.to_pylist())
    runner = _runner(spark, rest)
    assert _lakeport_rows(runner, "sales.events") == expected
    assert _rest_rows(rest, "sales.events") == expected
    # and Lakeport appends to the RestCatalog-made table; RestCatalog sees both writers' rows
    more, expected_more = _values(22, 40, start=1_000_000)
    result = runner.run(f"INSERT INTO ice.sales.events VALUES {more}")
    assert result.succeeded, result.error
    assert _rest_rows(rest, "sales.events") == expected + expected_more
