"""Schema/table changes and maintenance of embedded Delta tables, differential against delta-rs.

CREATE OR REPLACE TABLE, ALTER TABLE (ADD COLUMNS, SET TBLPROPERTIES, ALTER COLUMN COMMENT), RESTORE, DESCRIBE
DETAIL, OPTIMIZE and VACUUM run through the connector (as a job's statements do); the same operation is applied by
delta-rs's own API to a copy of the table taken before it, and the two tables must agree (schema, rows, files,
properties), and delta-rs must read every version Lakeport wrote. A script run then proves the run reads its own
change after each statement, through the resolver and the SQL guard as a job runs them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable, Field, Schema, write_deltalake
from deltalake.schema import ArrayType

from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark


@pytest.fixture
def db(lake: Lake) -> Lake:
    lake.sql("CREATE DATABASE lake.db")
    return lake


def _rows(table: DeltaTable) -> list[tuple[Any, ...]]:
    return sorted((tuple(r.values()) for r in table.to_pyarrow_table().to_pylist()), key=repr)


def _copy(lake: Lake, name: str, dest: Path) -> str:
    shutil.copytree(lake.path("db", name), dest)
    return str(dest)


def _fields(table: DeltaTable) -> list[tuple[str, str, bool, dict[str, Any]]]:
    return [(f.name, str(f.type), f.nullable, dict(f.metadata)) for f in table.schema().fields]


def _every_version_reads(lake: Lake, name: str) -> None:
    """delta-rs reads every version Lakeport wrote, and the connector reads each the same."""
    latest = lake.table("db", name).version()
    for version in range(latest + 1):
        rs = _rows(lake.table("db", name, version))
        ours = lake.rows(f"SELECT * FROM lake.db.{name} VERSION AS OF {version}")
        assert sorted(ours, key=repr) == rs, f"version {version}"


def _make(lake: Lake, name: str, *, partitioned: bool = True) -> None:
    lake.sql(f"CREATE TABLE lake.db.{name} (id BIGINT, v STRING, p INT)" + (" PARTITIONED BY (p)" if partitioned
                                                                            else ""))
    for batch in range(4):  # several small files per partition: something to compact
        lake.sql(f"INSERT INTO lake.db.{name} VALUES ({batch}, 'a', 1), ({batch + 10}, NULL, 2), "
                 f"({batch + 20}, 'c', NULL)")


def test_create_or_replace_keeps_history_like_delta_rs(db: Lake, tmp_path: Path) -> None:
    _make(db, "t")
    before = db.table("db", "t").version()
    copy = _copy(db, "t", tmp_path / "rs")
    db.sql("CREATE OR REPLACE TABLE lake.db.t (a STRING COMMENT 'the a', b INT) COMMENT 'new' "
           "TBLPROPERTIES ('delta.appendOnly' = 'false')")
    DeltaTable.create(copy, Schema([Field("a", "string", nullable=True, metadata={"comment": "the a"}),
                                    Field("b", "integer", nullable=True)]),
                      mode="overwrite", description="new", configuration={"delta.appendOnly": "false"})
    ours, theirs = db.table("db", "t"), DeltaTable(copy)
    assert ours.version() == theirs.version() == before + 1  # one commit on the existing table
    assert _fields(ours) == _fields(theirs)
    assert ours.metadata().description == "new"
    assert ours.metadata().configuration == theirs.metadata().configuration
    assert _rows(ours) == _rows(theirs) == []
    assert db.rows("SELECT count(*) FROM lake.db.t") == [(0,)]
    assert db.rows(f"SELECT count(*) FROM lake.db.t VERSION AS OF {before}") == [(12,)]  # history kept

    # CREATE OR REPLACE … AS SELECT: the new rows, schema and partitioning in one more commit
    copy2 = _copy(db, "t", tmp_path / "rs2")
    db.sql("CREATE OR REPLACE TABLE lake.db.t PARTITIONED BY (k) AS SELECT id, CAST(id % 2 AS INT) AS k "
           "FROM range(5)")
    data = pa.table({"id": pa.array(range(5), pa.int64()), "k": pa.array([i % 2 for i in range(5)], pa.int32())})
    write_deltalake(copy2, data, mode="overwrite", schema_mode="overwrite", partition_by=["k"])
    ours, theirs = db.table("db", "t"), DeltaTable(copy2)
    assert ours.version() == theirs.version() == before + 2
    assert _rows(ours) == _rows(theirs)
    assert [f[:2] for f in _fields(ours)] == [f[:2] for f in _fields(theirs)]
    assert list(ours.metadata().partition_columns) == ["k"]
    _every_version_reads(db, "t")

    # absent: version 0
    db.sql("CREATE OR REPLACE TABLE lake.db.fresh AS SELECT 1 AS x")
    assert db.table("db", "fresh").version() == 0 and _rows(db.table("db", "fresh")) == [(1,)]


def test_alter_table_matches_delta_rs_alter(db: Lake, tmp_path: Path) -> None:
    _make(db, "t", partitioned=False)
    copy = _copy(db, "t", tmp_path / "rs")
    rs = DeltaTable(copy)
    start = rs.version()

    db.sql("ALTER TABLE lake.db.t ADD COLUMNS (n DOUBLE COMMENT 'a number', tags ARRAY<STRING>)")
    rs.alter.add_columns([Field("n", "double", nullable=True, metadata={"comment": "a number"}),
                          Field("tags", ArrayType("string", contains_null=True), nullable=True)])
    db.sql("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.appendOnly' = 'true', "
           "delta.deletedFileRetentionDuration = 'interval 2 days')")
    rs = DeltaTable(copy)
    rs.alter.set_table_properties({"delta.appendOnly": "true", "delta.deletedFileRetentionDuration": "interval 2 days"})
    db.sql("ALTER TABLE lake.db.t ALTER COLUMN v COMMENT 'the value'")
    rs = DeltaTable(copy)
    rs.alter.set_column_metadata("v", {"comment": "the value"})

    ours, theirs = db.table("db", "t"), DeltaTable(copy)
    assert ours.version() == theirs.version() == start + 3  # one metadata-only commit each
    assert _fields(ours) == _fields(theirs)
    assert ours.metadata().configuration == theirs.metadata().configuration
    assert _rows(ours) == _rows(theirs)
    assert [a["operation"] for a in ours.history(3)] == [a["operation"] for a in theirs.history(3)]
    # no data file changed
    assert sorted(ours.file_uris()) == sorted(f.replace(copy, db.path("db", "t")) for f in theirs.file_uris())
    assert db.rows("SELECT count(*) FROM lake.db.t WHERE n IS NULL AND tags IS NULL") == [(12,)]
    described = {r[0]: r[2] for r in db.sql("DESCRIBE TABLE lake.db.t").collect()}
    assert described["v"] == "the value" and described["n"] == "a number"
    _every_version_reads(db, "t")
    # the added columns are written by later inserts (and the table is append-only now)
    db.sql("INSERT INTO lake.db.t VALUES (99, 'z', 3, 1.5, array('x'))")
    assert db.rows("SELECT id, n, tags FROM lake.db.t WHERE n IS NOT NULL") == [(99, 1.5, ["x"])]
    with pytest.raises(DeltaConnectorError, match="appendOnly"):
        db.sql("DELETE FROM lake.db.t WHERE id = 99")


@pytest.mark.parametrize(("statement", "rule"), [
    ("ALTER TABLE lake.db.t ADD COLUMNS (id INT)", "ADD COLUMNS: column 'id' already exists"),
    ("ALTER TABLE lake.db.t ADD COLUMNS (x INT NOT NULL)", "cannot be NOT NULL"),
    ("ALTER TABLE lake.db.t ADD COLUMNS (x NOTATYPE)", "ADD COLUMNS: invalid column definitions"),
    ("ALTER TABLE lake.db.t ALTER COLUMN nope COMMENT 'x'", "'nope' is not a column"),
    ("ALTER TABLE lake.db.t RENAME COLUMN v TO w", "RENAME COLUMN .*column mapping"),
    ("ALTER TABLE lake.db.t DROP COLUMN v", "DROP COLUMNS needs column mapping"),
    ("ALTER TABLE lake.db.t ALTER COLUMN id TYPE DECIMAL(30, 0)", "TYPE .*type widening"),
    ("ALTER TABLE lake.db.t SET TBLPROPERTIES ('owner' = 'me')", "only Delta table properties"),
    ("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'id')", "in mode 'name' only"),
    ("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'soon')", "not an interval"),
    ("ALTER TABLE lake.db.t UNSET TBLPROPERTIES ('delta.appendOnly')", "is not set on the table"),
    ("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.noSuchProperty' = '1')", "ALTER TABLE|SET TBLPROPERTIES"),
    ("RESTORE TABLE lake.db.t TO VERSION AS OF 42", "RESTORE TABLE lake.db.t TO VERSION AS OF 42: the table's latest"),
    ("RESTORE TABLE lake.db.t TO TIMESTAMP AS OF '1999-01-01'", "RESTORE TABLE lake.db.t: there is no version"),
    ("RESTORE TABLE lake.db.t TO VERSION AS OF x", "needs a version number"),
    ("VACUUM lake.db.t RETAIN 0 HOURS", "below the table's delta.deletedFileRetentionDuration .*168 hours"),
    ("VACUUM lake.db.t RETAIN many HOURS", "RETAIN needs a number of hours"),
    ("OPTIMIZE lake.db.t WHERE id > 3", "'id' is not a partition column"),
    ("OPTIMIZE lake.db.t WHERE p = 1 OR p = 2", "joined by AND"),
    ("OPTIMIZE lake.db.t ZORDER BY (p)", "is a partition column"),
    ("OPTIMIZE lake.db.t ZORDER BY (nope)", "'nope' is not a column"),
    ("DESCRIBE DETAIL lake.db.missing", "does not exist"),
])
def test_bad_input_names_the_statement_and_the_rule(db: Lake, statement: str, rule: str) -> None:
    _make(db, "t")
    version = db.table("db", "t").version()
    with pytest.raises(DeltaConnectorError, match=rule):
        db.sql(statement)
    assert db.table("db", "t").version() == version  # nothing committed


def test_unset_if_exists_of_an_absent_property_is_a_no_op(db: Lake) -> None:
    _make(db, "t")
    version = db.table("db", "t").version()
    db.sql("ALTER TABLE lake.db.t UNSET TBLPROPERTIES IF EXISTS ('delta.appendOnly')")
    assert db.table("db", "t").version() == version


def test_restore_and_describe_detail_match_delta_rs(db: Lake, tmp_path: Path) -> None:
    _make(db, "t")
    db.sql("DELETE FROM lake.db.t WHERE p = 1")
    db.sql("ALTER TABLE lake.db.t ADD COLUMNS (extra STRING)")
    copy = _copy(db, "t", tmp_path / "rs")
    latest = db.table("db", "t").version()
    metrics = db.sql("RESTORE TABLE lake.db.t TO VERSION AS OF 2").collect()[0].asDict()
    rs_metrics = DeltaTable(copy).restore(2)
    ours, theirs = db.table("db", "t"), DeltaTable(copy)
    assert ours.version() == theirs.version() == latest + 1
    assert _rows(ours) == _rows(theirs) == _rows(db.table("db", "t", 2))
    assert _fields(ours) == _fields(theirs)  # the column added later is gone again
    assert metrics["num_removed_files"] == rs_metrics["numRemovedFile"]
    assert metrics["num_restored_files"] == rs_metrics["numRestoredFile"]
    assert metrics["num_of_files_after_restore"] == len(ours.file_uris())
    sizes = {a["path"]: a["size_bytes"] for a in pa.table(ours.get_add_actions(flatten=True)).to_pylist()}
    assert metrics["table_size_after_restore"] == sum(sizes.values())
    _every_version_reads(db, "t")

    detail = db.sql("DESCRIBE DETAIL lake.db.t").collect()
    assert len(detail) == 1
    row = detail[0].asDict()
    assert list(row) == ["format", "id", "name", "description", "location", "createdAt", "lastModified",
                         "partitionColumns", "numFiles", "sizeInBytes", "properties", "minReaderVersion",
                         "minWriterVersion", "tableFeatures"]
    assert (row["format"], row["id"], row["name"]) == ("delta", ours.metadata().id, "lake.db.t")
    assert row["partitionColumns"] == ["p"] and row["numFiles"] == len(ours.file_uris())
    assert row["sizeInBytes"] == sum(sizes.values())
    assert (row["minReaderVersion"], row["minWriterVersion"]) == (ours.protocol().min_reader_version,
                                                                  ours.protocol().min_writer_version)
    assert row["lastModified"].timestamp() * 1000 == pytest.approx(ours.history(1)[0]["timestamp"], abs=1)


def test_optimize_compacts_like_delta_rs_and_changes_no_row(db: Lake, tmp_path: Path) -> None:
    _make(db, "t")
    copy = _copy(db, "t", tmp_path / "rs")
    before_files = len(db.table("db", "t").file_uris())
    rows = _rows(db.table("db", "t"))
    result = db.sql("OPTIMIZE lake.db.t WHERE p = 1").collect()[0].asDict(recursive=True)
    rs_metrics = DeltaTable(copy).optimize.compact(partition_filters=[("p", "=", "1")])
    assert result["metrics"]["numFilesRemoved"] == rs_metrics["numFilesRemoved"] == 4
    assert result["metrics"]["numFilesAdded"] == rs_metrics["numFilesAdded"] == 1
    ours = db.table("db", "t")
    assert len(ours.file_uris()) == before_files - 3
    assert _rows(ours) == rows == _rows(DeltaTable(copy))
    commit = ours.history(1)[0]
    assert commit["operation"] == "OPTIMIZE"
    # dataChange=false on every action of the commit (a stream reading the table skips it)
    log = Path(db.path("db", "t")) / "_delta_log" / f"{ours.version():020d}.json"
    actions = [json.loads(line) for line in log.read_text().splitlines()]
    changes = [a.get("add", a.get("remove"))["dataChange"] for a in actions if "add" in a or "remove" in a]
    assert changes and not any(changes)
    # the whole table, with Z-order
    db.sql("OPTIMIZE lake.db.t ZORDER BY (id)")
    assert _rows(db.table("db", "t")) == rows
    assert len(db.table("db", "t").file_uris()) == 3  # one file per partition
    _every_version_reads(db, "t")


def test_vacuum_deletes_what_delta_rs_would(db: Lake, tmp_path: Path) -> None:
    _make(db, "t")
    db.sql("OPTIMIZE lake.db.t")
    db.sql("ALTER TABLE lake.db.t SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 0 hours')")
    copy = _copy(db, "t", tmp_path / "rs")
    expected = DeltaTable(copy).vacuum(retention_hours=0, dry_run=True, enforce_retention_duration=False, full=True)
    assert len(expected) == 12  # the files OPTIMIZE replaced
    dry = sorted(r[0] for r in db.sql("VACUUM lake.db.t RETAIN 0 HOURS DRY RUN").collect())
    root = db.path("db", "t")
    uri = DeltaTable(root).table_uri.rstrip("/")
    assert dry == sorted(f"{uri}/{f}" for f in expected)
    assert all(Path(root, f).exists() for f in expected)  # a dry run deletes nothing
    rows = _rows(db.table("db", "t"))
    done = db.sql("VACUUM lake.db.t RETAIN 0 HOURS").collect()[0].asDict()
    assert done["numDeletedFiles"] == 12
    assert not any(Path(root, f).exists() for f in expected)
    assert _rows(db.table("db", "t")) == rows
    assert db.rows("SELECT count(*) FROM lake.db.t") == [(12,)]


@pytest.fixture
def lake_store(tmp_path: Path) -> InMemoryCatalogStore:
    warehouse = tmp_path / "lake"
    warehouse.mkdir()
    store = InMemoryCatalogStore()
    store.put(CatalogEntry("lake", "delta", {"warehouse": str(warehouse), "default-database": "default"}))
    return store


def test_a_run_reads_its_own_table_changes(spark: Any, lake_store: InMemoryCatalogStore, tmp_path: Path) -> None:
    """After each change the script's next SELECT (and a temp view over the table) sees it: pins move."""
    script = ("CREATE DATABASE lake.db;\n"                                                   # 0
              "CREATE TABLE lake.db.t (id BIGINT);\n"                                        # 1
              "INSERT INTO lake.db.t VALUES (1);\n"                                          # 2
              "CREATE TEMP VIEW tv AS SELECT * FROM lake.db.t;\n"                            # 3
              "SELECT * FROM lake.db.t;\n"                                                   # 4
              "ALTER TABLE lake.db.t ADD COLUMNS (v STRING);\n"                              # 5
              "INSERT INTO lake.db.t VALUES (2, 'b');\n"                                     # 6
              "SELECT id, v FROM lake.db.t;\n"                                               # 7
              "SELECT * FROM tv;\n"                                                          # 8
              "OPTIMIZE lake.db.t;\n"                                                        # 9
              "SELECT count(*) FROM lake.db.t;\n"                                            # 10
              "RESTORE TABLE lake.db.t TO VERSION AS OF 1;\n"                                # 11
              "SELECT * FROM lake.db.t;\n"                                                   # 12
              "CREATE OR REPLACE TABLE lake.db.t AS SELECT 'x' AS s;\n"                      # 13
              "SELECT * FROM lake.db.t;\n"                                                   # 14
              "DESCRIBE DETAIL lake.db.t;\n"                                                 # 15
              "VACUUM lake.db.t DRY RUN;\n"                                                  # 16
              "SELECT count(*) FROM lake.db.t VERSION AS OF 2")                              # 17
    result = ScriptRunner(spark.newSession(), lake_store, team="acme", snapshot={}).run(script)
    assert result.succeeded, result.error
    rows = {i: result.statements[i].rows for i in (4, 7, 8, 10, 12, 14, 17)}
    assert [rows[i] for i in (4, 10, 12, 14, 17)] == [[[1]], [[2]], [[1]], [["x"]], [[1]]]
    assert sorted(rows[7], key=repr) == sorted([[1, None], [2, "b"]], key=repr)
    # the temp view sees the later commit with the columns it was defined with, as a Spark temp view does
    assert sorted(rows[8], key=repr) == [[1], [2]]
    assert result.statements[15].rows is not None and result.statements[15].rows[0][0] == "delta"
    # lineage records the table as written, at the version delta-rs lists for each change
    table = DeltaTable(str(tmp_path / "lake" / "db" / "t"))
    written = {i: [o["version"] for o in (result.statements[i].lineage or {}).get("outputs", [])]
               for i in (5, 9, 11, 13)}
    assert written == {5: [2], 9: [4], 11: [5], 13: [6]}
    assert table.version() == 6


def test_a_bad_table_change_fails_the_run_naming_the_rule(spark: Any, lake_store: InMemoryCatalogStore) -> None:
    result = ScriptRunner(spark.newSession(), lake_store, team="acme", snapshot={}).run(
        "CREATE DATABASE lake.db;\nCREATE TABLE lake.db.t (id BIGINT);\nVACUUM lake.db.t RETAIN 1 HOURS")
    assert not result.succeeded
    message = result.statements[2].error or ""
    assert "VACUUM lake.db.t RETAIN 1 HOURS" in message and "deletedFileRetentionDuration" in message
    assert "Traceback" not in message and "at org.apache" not in message


def test_a_delta_command_on_a_table_outside_delta_catalogs_is_refused(spark: Any,
                                                                      lake_store: InMemoryCatalogStore) -> None:
    """Spark would read `DESCRIBE DETAIL x` as DESCRIBE of a table named `detail` (column x), past the guard's
    checks: the run refuses it instead, naming the rule."""
    session = spark.newSession()
    session.sql("CREATE TEMPORARY VIEW detail AS SELECT 1 AS x")
    for statement in ("DESCRIBE DETAIL x", "VACUUM spark_catalog.default.nope", "OPTIMIZE detail"):
        result = ScriptRunner(session, lake_store, team="acme", snapshot={}).run(statement)
        assert not result.succeeded, statement
        message = result.statements[0].error or ""
        assert "runs on the tables of this team's embedded Delta catalogs" in message, (statement, message)


def test_the_operator_can_turn_the_retention_check_off(db: Lake, monkeypatch: pytest.MonkeyPatch) -> None:
    _make(db, "t")
    db.sql("OPTIMIZE lake.db.t")
    with pytest.raises(DeltaConnectorError, match="below the table's delta.deletedFileRetentionDuration"):
        db.sql("VACUUM lake.db.t RETAIN 0 HOURS DRY RUN")
    monkeypatch.setenv("LAKEPORT_DELTA_RETENTION_CHECK", "false")  # the engine's environment, not the script's SQL
    assert len(db.sql("VACUUM lake.db.t RETAIN 0 HOURS DRY RUN").collect()) == 12
