"""Reads through the embedded Paimon connector equal pypaimon's own read, at every snapshot: append and
primary-key tables (multi-commit upserts merged), partitions, NULLs, generated with a seed; time travel by
snapshot id and tag; partition pruning; refusals by name."""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
import pytest
from pypaimon import Schema

from lakeport_engine.paimon.catalog import PaimonError
from tests.paimon.conftest import Pai, oracle

pytestmark = pytest.mark.spark

SCHEMA = pa.schema([("id", pa.int64()), ("region", pa.string()), ("amount", pa.float64()), ("note", pa.string())])


def _create(pai: Pai, name: str, *, primary: list[str] | None = None, partition: list[str] | None = None,
            options: dict[str, str] | None = None) -> None:
    fields = [f.with_nullable(f.name not in (primary or [])) for f in SCHEMA]
    schema = Schema.from_pyarrow_schema(pa.schema(fields), partition_keys=partition, primary_keys=primary,
                                        options=options or {})
    pai.catalog.create_table(f"default.{name}", schema, False)


def _batch(rng: random.Random, n: int, keys: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(n):
        rows.append({"id": rng.randrange(keys), "region": rng.choice(["eu", "us", "ap"]),
                     "amount": None if rng.random() < 0.2 else round(rng.uniform(-100, 100), 2),
                     "note": None if rng.random() < 0.3 else rng.choice(["a", "b", "ccc", ""])})
    return rows


def _dedup(rows: list[dict[str, Any]], key: list[str]) -> list[dict[str, Any]]:
    """One row per key within a commit (a Paimon writer keeps the last; so does this)."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        seen[tuple(row[k] for k in key)] = row
    return list(seen.values())


@pytest.mark.parametrize("seed", [7, 31])
def test_primary_key_table_reads_merged_at_every_snapshot(pai: Pai, seed: int) -> None:
    rng = random.Random(seed)
    _create(pai, "pk", primary=["id", "region"], partition=["region"], options={"bucket": "3"})
    for _ in range(4):
        pai.write("default.pk", _dedup(_batch(rng, 60, 40), ["id", "region"]))
    table = pai.table("default.pk")
    latest = table.snapshot_manager().get_latest_snapshot().id
    assert latest == 4
    for snapshot in range(1, latest + 1):
        got = pai.rows(f"SELECT id, region, amount, note FROM pai.default.pk VERSION AS OF {snapshot}")
        assert got == oracle(table, snapshot), f"snapshot {snapshot}"
    merged = pai.rows("SELECT id, region, amount, note FROM pai.default.pk")
    assert merged == oracle(table)
    assert len({(r[0], r[1]) for r in merged}) == sum(merged.values())  # one row per key: merged, not appended


@pytest.mark.parametrize("seed", [3])
def test_append_table_partitioned_reads_equal_and_prunes(pai: Pai, seed: int) -> None:
    rng = random.Random(seed)
    _create(pai, "ap", partition=["region"])
    for _ in range(3):
        pai.write("default.ap", _batch(rng, 80, 1000))
    table = pai.table("default.ap")
    for snapshot in (1, 2, 3):
        assert pai.rows(f"SELECT * FROM pai.default.ap VERSION AS OF {snapshot}") == oracle(table, snapshot)
    eu = pai.rows("SELECT * FROM pai.default.ap WHERE region = 'eu'")
    assert eu == Counter_of(oracle(table), lambda r: r[1] == "eu")
    # pruning: the plan reads only the eu partition's splits
    frame = pai.sql("SELECT * FROM pai.default.ap WHERE region = 'eu'")
    assert frame.rdd.getNumPartitions() < pai.sql("SELECT * FROM pai.default.ap").rdd.getNumPartitions()
    agg = pai.sql("SELECT region, count(*), sum(amount) FROM pai.default.ap GROUP BY region").collect()
    assert sum(r[1] for r in agg) == sum(oracle(table).values())


def Counter_of(rows: Any, keep: Any) -> Any:  # noqa: N802 - reads as a constructor
    from collections import Counter

    return Counter({r: n for r, n in rows.items() if keep(r)})


def test_partial_update_and_aggregation_merge_as_pypaimon_does(pai: Pai) -> None:
    _create(pai, "pu", primary=["id"], options={"bucket": "2", "merge-engine": "partial-update"})
    pai.write("default.pu", [{"id": 1, "region": "eu", "amount": None, "note": "x"}, {"id": 2, "region": None,
                                                                                     "amount": 2.0, "note": None}])
    pai.write("default.pu", [{"id": 1, "region": None, "amount": 5.0, "note": None}])
    assert pai.rows("SELECT * FROM pai.default.pu") == oracle(pai.table("default.pu"))
    assert pai.rows("SELECT * FROM pai.default.pu WHERE id = 1") == {(1, "eu", 5.0, "x"): 1}
    _create(pai, "agg", primary=["id"], options={"bucket": "2", "merge-engine": "aggregation",
                                                 "fields.amount.aggregate-function": "sum"})
    pai.write("default.agg", [{"id": 1, "region": "eu", "amount": 1.5, "note": None}])
    pai.write("default.agg", [{"id": 1, "region": "us", "amount": 2.0, "note": "n"}])
    assert pai.rows("SELECT id, amount FROM pai.default.agg") == {(1, 3.5): 1}
    assert pai.rows("SELECT * FROM pai.default.agg") == oracle(pai.table("default.agg"))


def test_time_travel_by_tag(pai: Pai) -> None:
    _create(pai, "tg", primary=["id"], options={"bucket": "1"})
    pai.write("default.tg", [{"id": 1, "region": "eu", "amount": 1.0, "note": None}])
    pai.table("default.tg").create_tag("v1")
    pai.write("default.tg", [{"id": 1, "region": "eu", "amount": 9.0, "note": None}])
    assert pai.rows("SELECT amount FROM pai.default.tg VERSION AS OF 'v1'") == {(1.0,): 1}
    assert pai.rows("SELECT amount FROM pai.default.tg") == {(9.0,): 1}
    with pytest.raises(PaimonError, match="no such tag"):
        pai.sql("SELECT * FROM pai.default.tg VERSION AS OF 'nope'")
    with pytest.raises(PaimonError, match="no such snapshot"):
        pai.sql("SELECT * FROM pai.default.tg VERSION AS OF 99")


def test_refusals_name_the_table_and_the_rule(pai: Pai) -> None:
    with pytest.raises(PaimonError, match=r"Paimon table pai\.default\.missing does not exist"):
        pai.sql("SELECT * FROM pai.default.missing")
    _create(pai, "bad", primary=["id"], options={"bucket": "1", "merge-engine": "partial-update",
                                                 "fields.amount.sequence-group": "note"})
    with pytest.raises(PaimonError, match="merge-engine 'partial-update'"):
        pai.sql("SELECT * FROM pai.default.bad").collect()
    _create(pai, "ok")
    with pytest.raises(PaimonError, match="UPDATE"):
        pai.sql("UPDATE pai.default.ok SET note = 'x'")
    with pytest.raises(PaimonError, match=r"TIMESTAMP AS OF '2026-01-01' on Paimon table pai\.default\.ok: the "
                                          "table had no snapshot then"):
        pai.sql("SELECT * FROM pai.default.ok TIMESTAMP AS OF '2026-01-01'")
    assert pai.rows("SELECT * FROM pai.default.ok") == {}


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update", "aggregation"])
def test_projection_is_pushed_into_the_read_and_merges_as_the_full_read(pai: Pai, engine: str) -> None:
    options = {"bucket": "2", "merge-engine": engine}
    if engine == "aggregation":
        options["fields.amount.aggregate-function"] = "sum"
    _create(pai, "pj", primary=["id"], options=options)
    rng = random.Random(5)
    for _ in range(3):
        pai.write("default.pj", _dedup(_batch(rng, 30, 12), ["id"]))
    full = oracle(pai.table("default.pj"))  # (id, region, amount, note)
    frame = pai.sql("SELECT note, amount FROM pai.default.pj")
    read_schema = [f.name for f in frame.schema.fields]
    assert read_schema == ["note", "amount"]
    assert Counter_of_projection(frame.collect()) == Counter_of_projection([(r[3], r[2]) for r, n in full.items()
                                                                             for _ in range(n)])
    # the view itself holds only the named columns: the data source was asked for two of four
    plan = frame._jdf.queryExecution().optimizedPlan().toString()
    assert "region" not in plan and "id#" not in plan
    assert pai.rows("SELECT count(*) FROM pai.default.pj") == {(sum(full.values()),): 1}


def Counter_of_projection(rows: Any) -> Any:  # noqa: N802 - reads as a constructor
    from collections import Counter

    return Counter(tuple(r) for r in rows)
