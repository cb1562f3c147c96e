"""Reads through the embedded Paimon connector equal pypaimon's own read, at every snapshot: append and
primary-key tables (multi-commit upserts merged), partitions, NULLs, generated with a seed; time travel by
snapshot id and tag; partition pruning; refusals by name."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
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
    # pruning: Spark's own reader reads only the eu partition's files (pypaimon planned them, Spark pruned them)
    eu_files = _files_read(pai.sql("SELECT * FROM pai.default.ap WHERE region = 'eu'"))
    assert 0 < eu_files < _files_read(pai.sql("SELECT * FROM pai.default.ap"))
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


FAST_SCHEMA = pa.schema([("id", pa.int64()), ("region", pa.string()), ("day", pa.date32()), ("hot", pa.bool_()),
                         ("amount", pa.float64())])


def _fast_batch(rng: random.Random, n: int, base: int) -> list[dict[str, Any]]:
    return [{"id": base + i, "region": rng.choice(["eu", "us", "", None]),
             "day": None if rng.random() < 0.2 else dt.date(2026, 1, rng.randrange(1, 4)),
             "hot": rng.choice([True, False, None]),
             "amount": None if rng.random() < 0.2 else round(rng.uniform(-10, 10), 3)} for i in range(n)]


def _files_read(frame: Any) -> int:
    """How many data files Spark's file scans opened to run the frame (0 for the Python data source)."""
    plan = frame._jdf.queryExecution().executedPlan()
    plan.executeCollect()  # this plan's own scans run (an action on the frame may plan afresh)
    pending, opened = [plan], 0
    while pending:
        node = pending.pop()
        if node.nodeName() == "AdaptiveSparkPlan":
            node = node.executedPlan()
        metrics = node.metrics()
        if node.nodeName().startswith("Scan") and metrics.contains("numFiles"):
            opened += int(metrics.apply("numFiles").value())
        children = node.children()
        pending += [children.apply(i) for i in range(children.size())]
    return opened


def _file_scan(frame: Any) -> bool:
    """True if Spark's own file reader reads the frame (the fast path), not the Python data source."""
    return "FileScan" in frame._jdf.queryExecution().executedPlan().toString()


@pytest.mark.parametrize("file_format", ["parquet", "orc"])
def test_append_tables_read_by_sparks_own_reader_equal_pypaimon_at_every_snapshot(pai: Pai, file_format: str) -> None:
    """The fast path (pypaimon plans the files, Spark's parquet/ORC reader reads them) against pypaimon's own read:
    partitions of string, date and boolean values with NULL and '' (Paimon's default-partition directories, legacy
    date directory names), a column added (old files read it as NULL), then a renamed column (not readable by name:
    the pypaimon path, still equal)."""
    from pypaimon.schema.data_types import AtomicType
    from pypaimon.schema.schema_change import SchemaChange

    rng = random.Random(11)
    schema = Schema.from_pyarrow_schema(FAST_SCHEMA, partition_keys=["region", "day", "hot"],
                                        options={"file.format": file_format})
    pai.catalog.create_table("default.fa", schema, False)
    pai.write("default.fa", _fast_batch(rng, 40, 0))
    pai.write("default.fa", _fast_batch(rng, 30, 100))
    pai.catalog.alter_table("default.fa", [SchemaChange.add_column("note", AtomicType("STRING"))])
    pai.write("default.fa", [dict(r, note=rng.choice(["x", None])) for r in _fast_batch(rng, 30, 200)])
    pai.catalog.alter_table("default.fa", [SchemaChange.rename_column("amount", "amt")])
    pai.write("default.fa", [dict(r, note="r", amt=r.pop("amount")) for r in _fast_batch(rng, 10, 300)])
    table = pai.table("default.fa")
    for snapshot in (1, 2, 3, 4):
        frame = pai.sql(f"SELECT * FROM pai.default.fa VERSION AS OF {snapshot}")
        assert Counter_of_projection(frame.collect()) == oracle(table, snapshot), f"snapshot {snapshot}"
        assert _file_scan(frame) == (snapshot < 4), f"snapshot {snapshot}: fast path only before the rename"
    third = table.snapshot_manager().get_snapshot_by_id(3)
    travel = pai.sql(f"SELECT * FROM pai.default.fa TIMESTAMP AS OF timestamp_millis({third.time_millis})")
    assert _file_scan(travel) and Counter_of_projection(travel.collect()) == oracle(table, 3)
    at3 = oracle(table, 3)  # (id, region, day, hot, amount, note)
    # partition pruning: string partitions by directory (Spark's file index), dates by literal columns (optimizer)
    day = min(r[2] for r in at3 if r[1] == "eu" and r[2] is not None)
    pruned = pai.sql(f"SELECT id, note FROM pai.default.fa VERSION AS OF 3 WHERE region = 'eu' AND day = "
                     f"DATE'{day.isoformat()}'")
    wanted = [(r[0], r[5]) for r, n in at3.items() for _ in range(n) if r[1] == "eu" and r[2] == day]
    assert wanted and Counter_of_projection(pruned.collect()) == Counter_of_projection(wanted)
    assert 0 < _files_read(pruned) < _files_read(pai.sql("SELECT * FROM pai.default.fa VERSION AS OF 3"))
    plan = pruned._jdf.queryExecution().executedPlan().toString()
    assert "amount" not in plan and "hot" not in plan  # projection: only the named columns are read
    nulls = pai.rows("SELECT region, day, hot, count(*) FROM pai.default.fa VERSION AS OF 3 WHERE region IS NULL "
                     "OR region = '' GROUP BY region, day, hot")
    expected: Counter[tuple[Any, ...]] = Counter()
    for r, n in at3.items():
        if r[1] in (None, ""):
            expected[(r[1], r[2], r[3])] += n
    assert nulls == Counter({(*k, n): 1 for k, n in expected.items()})
