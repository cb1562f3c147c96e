"""Column mapping written by the embedded connector: enabling `delta.columnMapping.mode = name` (protocol 2/5,
physical names and ids in the schema), RENAME COLUMN and DROP COLUMNS as metadata-only commits, ADD COLUMNS with
`col-<uuid>` physical names, and INSERT/UPDATE/DELETE/MERGE writing physical names afterwards.

Differential: the same logical changes run on a twin table without column mapping (a rename or drop there is a CREATE
OR REPLACE … AS SELECT), and after every statement delta-rs must read the mapped table, at every version, as the
connector does, with the twin's rows at the latest. Delta-Spark's own column-mapped tables (golden, `col-<uuid>`
physical names, a partition column among them) take writes the same way.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, QueryBuilder

from lakeport_engine.delta.errors import DeltaConnectorError
from tests.delta.conftest import Lake
from tests.delta.test_golden import GOLDEN

pytestmark = pytest.mark.spark

PHYSICAL = "delta.columnMapping.physicalName"


def _delta_rs(path: str, columns: list[str], version: int | None = None) -> list[tuple[Any, ...]]:
    """The table's rows read by delta-rs (its DataFusion scan: physical names resolved by delta-rs itself)."""
    table = DeltaTable(path, version=version)
    select = ", ".join(f'"{c}"' for c in columns)
    result = pa.table(QueryBuilder().register("t", table).execute(f"SELECT {select} FROM t"))
    return sorted((tuple(r[c] for c in columns) for r in result.to_pylist()), key=repr)


def _columns(path: str, version: int | None = None) -> list[str]:
    return [f["name"] for f in json.loads(DeltaTable(path, version=version).schema().to_json())["fields"]]


def _every_version_agrees(lake: Lake, name: str) -> None:
    """delta-rs and the connector read every version of the mapped table alike (its own columns per version)."""
    path = lake.path("db", name)
    for version in range(lake.table("db", name).version() + 1):
        columns = _columns(path, version)
        ours = lake.rows(f"SELECT {', '.join(columns)} FROM lake.db.{name} VERSION AS OF {version}")
        assert ours == _delta_rs(path, columns, version), f"version {version}"


def test_rename_and_drop_through_column_mapping_then_dml_writes_physical_names(lake: Lake) -> None:
    lake.sql("CREATE DATABASE lake.db")
    for name in ("m", "twin"):
        lake.sql(f"CREATE TABLE lake.db.{name} (id BIGINT, v STRING, x INT, p STRING) PARTITIONED BY (p)")
        lake.sql(f"INSERT INTO lake.db.{name} VALUES (1, 'a', 10, 'k1'), (2, NULL, 20, 'k1'), (3, 'c', NULL, 'k2'), "
                 "(NULL, 'd', 40, NULL)")
    path = lake.path("db", "m")
    files_before = sorted(a["path"] for a in pa.table(DeltaTable(path).get_add_actions(flatten=True)).to_pylist())

    lake.sql("ALTER TABLE lake.db.m SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
             "'delta.appendOnly' = 'false')")
    table = DeltaTable(path)
    protocol = table.protocol()
    assert (protocol.min_reader_version, protocol.min_writer_version) == (2, 5)
    config = table.metadata().configuration
    assert (config["delta.columnMapping.mode"], config["delta.columnMapping.maxColumnId"],
            config["delta.appendOnly"]) == ("name", "4", "false")
    fields = json.loads(table.schema().to_json())["fields"]
    assert [(f["name"], f["metadata"][PHYSICAL], f["metadata"]["delta.columnMapping.id"]) for f in fields] == [
        ("id", "id", 1), ("v", "v", 2), ("x", "x", 3), ("p", "p", 4)]  # the names the files already use
    assert table.history(1)[0]["operation"] == "SET TBLPROPERTIES"

    lake.sql("ALTER TABLE lake.db.m RENAME COLUMN v TO label")
    lake.sql("ALTER TABLE lake.db.m DROP COLUMN x")
    lake.sql("CREATE OR REPLACE TABLE lake.db.twin PARTITIONED BY (p) AS SELECT id, v AS label, p FROM lake.db.twin")
    table = DeltaTable(path)
    assert _columns(path) == ["id", "label", "p"]
    assert [h["operation"] for h in table.history(2)] == ["DROP COLUMNS", "RENAME COLUMN"]
    after = sorted(a["path"] for a in pa.table(table.get_add_actions(flatten=True)).to_pylist())
    assert after == files_before  # metadata only: no data file rewritten
    assert lake.rows("SELECT * FROM lake.db.m") == lake.rows("SELECT * FROM lake.db.twin") == _delta_rs(
        path, ["id", "label", "p"])

    lake.sql("ALTER TABLE lake.db.m ADD COLUMNS (note STRING)")
    lake.sql("ALTER TABLE lake.db.twin ADD COLUMNS (note STRING)")
    note = next(f for f in json.loads(DeltaTable(path).schema().to_json())["fields"] if f["name"] == "note")
    assert note["metadata"][PHYSICAL].startswith("col-") and note["metadata"]["delta.columnMapping.id"] == 5
    assert DeltaTable(path).metadata().configuration["delta.columnMapping.maxColumnId"] == "5"

    script = [
        "INSERT INTO lake.db.{t} VALUES (5, 'e', 'n5', 'k2'), (6, NULL, NULL, 'k3')",
        "UPDATE lake.db.{t} SET label = concat(coalesce(label, '?'), '!'), note = 'u' WHERE id % 2 = 0",
        "DELETE FROM lake.db.{t} WHERE label = 'c' OR id IS NULL",
        "MERGE INTO lake.db.{t} AS t USING (SELECT * FROM VALUES (1, 'merged', 'k1'), (7, 'new', 'k2') "
        "AS s(id, label, p)) AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET label = s.label "
        "WHEN NOT MATCHED THEN INSERT (id, label, note, p) VALUES (s.id, s.label, 'ins', s.p)",
    ]
    columns = ["id", "label", "note", "p"]
    for statement in script:
        for name in ("m", "twin"):
            lake.sql(statement.format(t=name))
        expected = lake.rows("SELECT id, label, note, p FROM lake.db.twin")
        assert lake.rows("SELECT id, label, note, p FROM lake.db.m") == expected, statement
        assert _delta_rs(path, columns) == expected, statement
    _every_version_agrees(lake, "m")

    # the files written since hold physical names: the renamed column is still `v`, the added one `col-…`
    table = DeltaTable(path)
    newest = [a for a in pa.table(table.get_add_actions(flatten=True)).to_pylist() if a["path"] not in files_before]
    assert newest
    for action in newest:
        names = pq.read_schema(str(Path(path) / action["path"])).names
        assert names == ["id", "v", note["metadata"][PHYSICAL]], names
    raw = [json.loads(line) for f in sorted((Path(path) / "_delta_log").glob("*.json"))
           for line in f.read_text().splitlines()]
    stats = [json.loads(a["add"]["stats"]) for a in raw if "add" in a and a["add"].get("stats")]
    assert any("v" in s.get("nullCount", {}) for s in stats) and not any(
        "label" in s.get("nullCount", {}) for s in stats)  # statistics under physical names, as Delta asks


def test_delta_spark_mapped_tables_take_writes_under_their_physical_names(lake: Lake) -> None:
    """Delta-Spark's tables name columns (and the partition directory and values) `col-<uuid>`."""
    target = lake.warehouse / "db" / "dvm"
    shutil.copytree(GOLDEN / "dv-with-columnmapping", target)
    path = str(target)
    columns = _columns(path)
    before = _delta_rs(path, columns)
    lake.sql("INSERT INTO lake.db.dvm SELECT * FROM lake.db.dvm WHERE part = 3")
    again = [r for r in before if r[columns.index("part")] == 3]
    assert _delta_rs(path, columns) == sorted(before + again, key=repr)
    assert lake.rows(f"SELECT {', '.join(columns)} FROM lake.db.dvm") == _delta_rs(path, columns)
    part = next(f for f in json.loads(DeltaTable(path).schema().to_json())["fields"] if f["name"] == "part")
    last = [json.loads(line) for line in (target / "_delta_log" / f"{DeltaTable(path).version():020d}.json")
            .read_text().splitlines()]
    adds = [a["add"] for a in last if "add" in a]
    assert adds and all(set(a["partitionValues"]) == {part["metadata"][PHYSICAL]} for a in adds)
    assert all(a["path"].startswith(f"{part['metadata'][PHYSICAL]}=3/") for a in adds)

    lake.sql("ALTER TABLE lake.db.dvm RENAME COLUMN col1 TO first")
    assert _delta_rs(path, ["first"]) == lake.rows("SELECT first FROM lake.db.dvm")


@pytest.mark.parametrize(("statement", "rule"), [
    ("ALTER TABLE lake.db.t RENAME COLUMN p TO q", "'p' is a partition column"),
    ("ALTER TABLE lake.db.t RENAME COLUMN v TO id", "column 'id' already exists"),
    ("ALTER TABLE lake.db.t RENAME COLUMN nope TO w", "'nope' is not a column"),
    ("ALTER TABLE lake.db.t RENAME COLUMN s.a TO b", "nested fields"),
    ("ALTER TABLE lake.db.t RENAME COLUMN v", "needs 'old TO new'"),
    ("ALTER TABLE lake.db.t DROP COLUMN p", "partition column cannot be dropped"),
    ("ALTER TABLE lake.db.t DROP COLUMNS (id, v, s)", "at least one data column"),
    ("ALTER TABLE lake.db.t DROP COLUMN nope", "'nope' is not a column"),
    ("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'none')", "does not turn it off"),
    ("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'id')", "mode 'name' only"),
    ("ALTER TABLE lake.db.t ALTER COLUMN id TYPE DECIMAL(30, 0)", "type widening"),
    ("ALTER TABLE lake.db.t ADD COLUMNS (v INT)", "column 'v' already exists"),
    ("OPTIMIZE lake.db.t", "OPTIMIZE .*[Cc]olumn mapping"),
])
def test_bad_changes_of_a_mapped_table_name_the_rule_and_commit_nothing(lake: Lake, statement: str,
                                                                         rule: str) -> None:
    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING, s STRUCT<a: INT>, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.db.t VALUES (1, 'a', named_struct('a', 1), 'k')")
    lake.sql("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    version = lake.table("db", "t").version()
    with pytest.raises(DeltaConnectorError, match=rule):
        lake.sql(statement)
    assert lake.table("db", "t").version() == version


def test_drop_column_if_exists_of_a_missing_column_commits_nothing(lake: Lake) -> None:
    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    lake.sql("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    lake.sql("ALTER TABLE lake.db.t DROP COLUMN IF EXISTS nope")
    assert lake.table("db", "t").version() == 1


def test_overwrites_and_truncate_of_a_mapped_table_read_alike(lake: Lake) -> None:
    """The other writes of a column-mapped table: INSERT OVERWRITE (a partition, then the whole table) and TRUNCATE;
    delta-rs reads every version as the connector does."""
    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.o (id BIGINT, v STRING, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.db.o VALUES (1, 'a', 'k1'), (2, 'b', 'k2')")
    lake.sql("ALTER TABLE lake.db.o SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    lake.sql("ALTER TABLE lake.db.o RENAME COLUMN v TO w")
    lake.sql("INSERT OVERWRITE lake.db.o PARTITION (p = 'k1') VALUES (10, 'x')")
    assert lake.rows("SELECT id, w, p FROM lake.db.o") == sorted([(2, "b", "k2"), (10, "x", "k1")], key=repr)
    lake.sql("INSERT OVERWRITE lake.db.o VALUES (20, 'y', 'k3')")
    assert _delta_rs(lake.path("db", "o"), ["id", "w", "p"]) == [(20, "y", "k3")]
    lake.sql("TRUNCATE TABLE lake.db.o")
    assert lake.rows("SELECT count(*) FROM lake.db.o") == [(0,)]
    _every_version_agrees(lake, "o")
