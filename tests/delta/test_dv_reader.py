"""The platform's deletion-vector parquet reader (platform/jvm): deleted rows leave the scan while it decodes —
no Filter and no row index in the plan — on the columnar and the row path, and the SQL-expression reader it
replaces still gives the same rows where the jar is missing."""

from __future__ import annotations

import json
import re
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeport_engine.delta import snapshot
from lakeport_engine.platform_jar import PLATFORM_JAR
from tests.delta.conftest import Lake
from tests.delta.test_features import _copy_golden, _delta_rs, _hand_written_dv_log, _inline_vector

pytestmark = pytest.mark.skipif(not PLATFORM_JAR.is_file(), reason="platform jar not built (no javac)")


def _plan(frame: Any) -> str:
    return str(frame._jdf.queryExecution().executedPlan().toString())  # noqa: SLF001 — the physical plan


def _has_filter(plan: str) -> bool:
    """A Filter node in a physical plan's text (not a scan's `DataFilters`)."""
    return re.search(r"(^|[-*] |\) )Filter ", plan, re.MULTILINE) is not None


def test_engine_loads_the_reader_and_the_plan_has_no_row_filter(lake: Lake) -> None:
    assert snapshot.jvm_reader_available(lake.spark)
    path = _copy_golden(lake, "dv-partitioned-with-checkpoint", "dv")
    frame = lake.sql("SELECT part, col1, col2 FROM lake.default.dv")
    plan = _plan(frame)
    assert "DeletionVectorParquet" in plan, plan
    assert "row_index" not in plan and "__lp_dv" not in plan, plan
    assert not _has_filter(plan), plan
    assert sorted((tuple(r) for r in frame.collect()), key=repr) == _delta_rs(path, "SELECT part, col1, col2 FROM t")


@pytest.mark.parametrize("vectorized", ["true", "false"])
def test_row_path_and_columnar_path_drop_the_same_rows(lake: Lake, vectorized: str) -> None:
    """Spark's row-based parquet reader (vectorized reader off) goes through the reader's row filter."""
    path = _copy_golden(lake, "dv-with-columnmapping", "dvcm")
    lake.spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
    try:
        frame = lake.sql("SELECT * FROM lake.default.dvcm")
        assert f"Batched: {vectorized}" in _plan(frame)  # false: Spark's row-based reader, the row filter
        got = sorted((tuple(r) for r in frame.collect()), key=repr)
        counted = lake.rows("SELECT count(*) FROM lake.default.dvcm")
    finally:
        lake.spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
    assert got == _delta_rs(path, "SELECT * FROM t")
    assert counted == [(len(got),)]


@pytest.mark.parametrize("split", [None, "16k"])
def test_rows_past_a_batch_and_past_the_vector_end(lake: Lake, split: str | None) -> None:
    """Deleted rows in several 4096-row batches of one file, and rows past the vector's last word, which stay;
    also with the file split across tasks (each task's rows start at its first row group's index)."""
    root = lake.warehouse / "default" / "dvbig"
    deleted = [0, 1, 63, 64, 4095, 4096, 9000, 9999]
    vector, size = _inline_vector(deleted)
    _hand_written_dv_log(root, vector, size, len(deleted))
    data = root / "part-0.parquet"
    pq.write_table(pa.table({"id": pa.array(range(20_000), pa.int64())}), data, row_group_size=5_000)
    log = root / "_delta_log" / f"{0:020d}.json"
    actions = [json.loads(line) for line in log.read_text().splitlines()]
    for action in actions:
        if "add" in action:
            action["add"].update(size=data.stat().st_size, stats=json.dumps({"numRecords": 20_000}))
    log.write_text("\n".join(json.dumps(a) for a in actions) + "\n")
    if split:
        lake.spark.conf.set("spark.sql.files.maxPartitionBytes", split)
        lake.spark.conf.set("spark.sql.files.openCostInBytes", "0")
    try:
        frame = lake.sql("SELECT id FROM lake.default.dvbig")
        partitions = frame.rdd.getNumPartitions()
        got = sorted(r[0] for r in frame.collect())
        filtered = lake.rows("SELECT count(*) FROM lake.default.dvbig WHERE id >= 9000")  # pushed: index column
    finally:
        lake.spark.conf.unset("spark.sql.files.maxPartitionBytes")
        lake.spark.conf.unset("spark.sql.files.openCostInBytes")
    assert (partitions > 1) == bool(split)
    assert got == sorted(set(range(20_000)) - set(deleted))
    assert filtered == [(20_000 - 9000 - 2,)]


@pytest.mark.parametrize("dv_reader", ["sql"], indirect=True)
def test_sql_expression_reader_gives_the_same_rows(lake: Lake, dv_reader: str) -> None:
    path = _copy_golden(lake, "dv-partitioned-with-checkpoint", "dvsql")
    frame = lake.sql("SELECT part, col1, col2 FROM lake.default.dvsql")
    assert "DeletionVectorParquet" not in _plan(frame) and _has_filter(_plan(frame))
    assert sorted((tuple(r) for r in frame.collect()), key=repr) == _delta_rs(path, "SELECT part, col1, col2 FROM t")
