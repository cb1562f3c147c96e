"""Golden Delta tables (the Delta project's connector conformance tables) and this suite's own edge tables, read
through the embedded connector and compared with delta-rs — rows as multisets, counts, column types — for every
version delta-rs can load, under three host/session time-zone pairs.

Each pair runs in a Spark driver of its own (`tests/delta/golden_runner.py` in a subprocess with `TZ` and
`-Duser.timezone` set to the host zone), started once per pair; versions of a table that share a schema are read in
one Spark job. The tables come from `LAKEPORT_DELTA_GOLDEN` (default: the copy in `tests/delta/golden/`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from tests.support.paths import REPO

GOLDEN = Path(os.environ.get("LAKEPORT_DELTA_GOLDEN") or Path(__file__).parent / "golden").resolve()
# (host zone of the Spark driver's JVM and Python, spark.sql.session.timeZone)
ZONES = [("UTC", "UTC"), ("America/Los_Angeles", "UTC"), ("UTC", "Asia/Tokyo")]
# Refusals docs/delta.md allows, by table (none today: every table delta-rs reads is read).
ALLOWED_REFUSALS: dict[str, str] = {}
# Differences docs/delta.md explains. An empty string partition value reads as NULL, as Delta-Spark and delta-rs'
# own log reader (`get_add_actions`) read it; delta-rs' DataFusion scan alone returns ''.
KNOWN_DIFFERENCES = {("edge-string", 0): "rows differ: connector only ['(0, None)']; delta-rs only [\"(0, '')\"]"}


def _tables(root: Path) -> list[Path]:
    return sorted({p.parent for p in root.rglob("_delta_log")})


def _name(root: Path, path: Path) -> str:
    return str(path.relative_to(root))


@cache
def _versions(path: Path) -> tuple[int, ...] | str:
    from tests.delta.golden_runner import table_versions

    found = table_versions(path)
    return found if isinstance(found, str) else tuple(found)


# ---- edge tables written with delta-rs ---------------------------------------------------------------------
_UTC = dt.UTC
EDGE_DATES = [dt.date(1, 1, 1), dt.date(1500, 6, 15), dt.date(1582, 10, 4), dt.date(1582, 10, 15),
              dt.date(1970, 1, 1), dt.date(2021, 3, 14), dt.date(9999, 12, 31), None]
EDGE_NTZ = [dt.datetime(1, 1, 1), dt.datetime(1500, 6, 15, 12, 34, 56, 789012), dt.datetime(1582, 10, 4, 23, 59, 59),
            dt.datetime(1582, 10, 15), dt.datetime(1883, 11, 18, 12, 0, 0),   # before/at LA's switch to standard time
            dt.datetime(2021, 3, 14, 2, 30), dt.datetime(2021, 11, 7, 1, 30),  # LA's DST gap and overlap
            dt.datetime(2021, 11, 18, 2, 30, 0, 123456), dt.datetime(9999, 12, 31, 23, 59, 59, 999999), None]
EDGE_STRINGS = ["", "a b", "a/b", "a=b", "100%", "é ü 東京", "x:y", "#hash", "'quote'", "__HIVE_DEFAULT_PARTITION__",
                None]


def _edge_tables(root: Path) -> list[Path]:
    """Tables partitioned by every type at calendar, DST and encoding edges (written once per test session)."""
    made = root / "edge-tables"
    if made.exists():
        return _tables(made)
    made.mkdir(parents=True)
    n_ntz = len(EDGE_NTZ)
    write_deltalake(str(made / "edge-timestamp-ntz"), pa.table({
        "id": pa.array(range(n_ntz), pa.int64()),
        "p": pa.array(EDGE_NTZ, pa.timestamp("us")),
    }), partition_by=["p"])
    write_deltalake(str(made / "edge-timestamp-utc"), pa.table({
        "id": pa.array(range(n_ntz), pa.int64()),
        "p": pa.array([None if v is None else v.replace(tzinfo=_UTC) for v in EDGE_NTZ], pa.timestamp("us", "UTC")),
    }), partition_by=["p"])
    n_dates = len(EDGE_DATES)
    write_deltalake(str(made / "edge-date"), pa.table({
        "id": pa.array(range(n_dates), pa.int64()), "p": pa.array(EDGE_DATES, pa.date32()),
    }), partition_by=["p"])
    write_deltalake(str(made / "edge-string"), pa.table({
        "id": pa.array(range(len(EDGE_STRINGS)), pa.int64()), "p": pa.array(EDGE_STRINGS, pa.string()),
    }), partition_by=["p"])
    # Not negative decimals: delta-rs 1.6 writes their partition value as "-1.-50" and fails.
    write_deltalake(str(made / "edge-numbers"), pa.table({
        "id": pa.array(range(5), pa.int64()),
        "b": pa.array([-128, 127, 0, None, 1], pa.int8()),
        "s": pa.array([-32768, 32767, 0, None, 1], pa.int16()),
        "i": pa.array([-2**31, 2**31 - 1, 0, None, 1], pa.int32()),
        "l": pa.array([-2**63, 2**63 - 1, 0, None, 1], pa.int64()),
        "d": pa.array([Decimal("12345678.90"), Decimal("99999999.99"), Decimal("0.00"), None, Decimal("0.01")],
                      pa.decimal128(10, 2)),
        "t": pa.array([True, False, None, True, False], pa.bool_()),
    }), partition_by=["b", "s", "i", "l", "d", "t"])
    # Two versions: the time-travel read of the first must not see the second.
    write_deltalake(str(made / "edge-date"), pa.table({
        "id": pa.array([100], pa.int64()), "p": pa.array([dt.date(1000, 3, 1)], pa.date32()),
    }), mode="append")
    return _tables(made)


CASES: list[Any] = []
for _host, _session in ZONES:
    for _path in _tables(GOLDEN):
        _found = _versions(_path)
        for _version in (_found if not isinstance(_found, str) else [None]):
            CASES.append(pytest.param(_host, _session, "golden", _name(GOLDEN, _path), _version,
                                      id=f"{_host}~{_session}~{_name(GOLDEN, _path)}~v{_version}"))
    for _table in ("edge-timestamp-ntz", "edge-timestamp-utc", "edge-date", "edge-string", "edge-numbers"):
        for _version in ((0, 1) if _table == "edge-date" else (0,)):
            CASES.append(pytest.param(_host, _session, "edge", _table, _version,
                                      id=f"{_host}~{_session}~{_table}~v{_version}"))


@pytest.fixture(scope="module")
def zone_results(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], dict[str, Any]]:
    """Runs the comparison once per time-zone pair (a Spark driver in a subprocess) and caches its records."""
    edges = _edge_tables(tmp_path_factory.mktemp("delta-edges"))
    done: dict[tuple[str, str], dict[str, Any]] = {}

    def run(host: str, session: str) -> dict[str, Any]:
        if (host, session) not in done:
            out = tmp_path_factory.mktemp("golden") / "results.json"
            readable = [p for p in _tables(GOLDEN) if not isinstance(_versions(p), str)]
            env = {**os.environ, "TZ": host, "PYTHONPATH": str(REPO)}
            started = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "tests.delta.golden_runner", str(out), session,
                 *[str(p) for p in readable], *[str(p) for p in edges]],
                cwd=REPO, env=env, capture_output=True, text=True, timeout=1800, check=False,
            )
            assert proc.returncode == 0, proc.stderr[-3000:]
            data = json.loads(out.read_text())
            data["seconds"] = round(time.monotonic() - started, 1)
            data["by_key"] = {(r["table"], r["version"]): r for r in data["results"]}
            done[(host, session)] = data
        return done[(host, session)]

    return run


@pytest.mark.timeout(1800)  # the first case of each zone pair runs that pair's whole comparison
@pytest.mark.parametrize(("host", "session", "source", "table", "version"), CASES)
def test_table_version_matches_delta_rs(zone_results: Callable[[str, str], dict[str, Any]], host: str,
                                        session: str, source: str, table: str, version: int | None) -> None:
    results = zone_results(host, session)
    # The driver really ran in the host zone (JVM and Python) with the session zone asked for.
    assert results["jvm_zone"] == host
    assert results["python_offset"] == {"UTC": 0, "America/Los_Angeles": -8 * 3600}[host]
    assert results["session_zone"] == session
    if version is None:
        _assert_clear_error_for_unloadable(GOLDEN / table)
        return
    record = results["by_key"][(Path(table).name, version)]
    if record["status"] == "refused":
        assert ALLOWED_REFUSALS.get(table) == record["feature"], record["message"]
        assert f"version {version}" in record["message"] and record["feature"] in record["message"]
        return
    if (table, version) in KNOWN_DIFFERENCES:
        assert record["status"] == "diff" and record["message"] == KNOWN_DIFFERENCES[(table, version)]
        return
    assert record["status"] in ("ok", "error"), f"{table} v{version}: {record['message']}"
    if record["status"] == "error":
        # delta-rs cannot read the rows of this version either (missing or unreadable data files): no rows.
        assert record.get("oracle_error"), f"{table} v{version}: {record['message']}"


def _assert_clear_error_for_unloadable(path: Path) -> None:
    """A table delta-rs cannot load is a DeltaConnectorError naming the table, never rows."""
    from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
    from lakeport_engine.delta.errors import DeltaConnectorError
    from lakeport_engine.delta.snapshot import open_table

    catalog = DeltaCatalog(name="golden", warehouse=str(path.parent.parent))
    ref = TableRef("golden", path.parent.name, path.name)
    with pytest.raises(DeltaConnectorError, match=re.escape(f"Delta table {ref}")):
        open_table(catalog, ref)


def test_every_golden_table_is_found() -> None:
    """The copy in the repository is complete: a fresh clone runs every golden table."""
    names = {_name(GOLDEN, p) for p in _tables(GOLDEN)}
    assert len(names) >= 100 and {"dv-with-columnmapping", "data-reader-timestamp_ntz", "type-widening",
                                  "spark-variant-checkpoint", "table-with-columnmapping-mode-id"} <= names
    assert DeltaTable(str(GOLDEN / "dv-partitioned-with-checkpoint")).version() == 15
