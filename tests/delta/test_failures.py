"""Failed writes leave no version and no rows; unsupported tables and statements are clear errors."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from lakeport_engine.delta import DeltaConnectorError, EmbeddedDelta, UnsupportedFeatureError
from tests.delta.conftest import Lake, data_files

pytestmark = pytest.mark.spark


def _assert_untouched(lake: Lake, version: int, rows: list[tuple[int, ...]]) -> None:
    table = lake.table("default", "t")
    assert table.version() == version
    assert sorted(tuple(r.values()) for r in table.to_pyarrow_table().to_pylist()) == rows
    # No data file outside the committed snapshot, no staging directory left behind.
    root = Path(lake.path("default", "t"))
    assert set(data_files(str(root))) == {Path(p) for p in table.file_uris()}
    assert not [p for p in root.iterdir() if p.name.startswith("_lakeport")]
    assert lake.rows("SELECT * FROM lake.default.t") == rows


def test_cast_error_mid_write_leaves_no_version_and_no_rows(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1)")
    # Four tasks: three write their files, one fails on the ANSI cast of 'oops' to INT.
    with pytest.raises(DeltaConnectorError, match="writing data files for Delta table lake.default.t failed"):
        lake.sql("INSERT INTO lake.default.t SELECT CASE WHEN id = 15000 THEN 'oops' ELSE CAST(id AS STRING) END "
                 "FROM range(0, 20000, 1, 4)")
    _assert_untouched(lake, 1, [(1,)])


def test_failing_source_query_and_runtime_error_leave_table_unchanged(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1)")
    with pytest.raises(DeltaConnectorError, match="the query writing to Delta table lake.default.t failed"):
        lake.sql("INSERT INTO lake.default.t SELECT no_such_column FROM range(3)")
    with pytest.raises(DeltaConnectorError, match="boom"):
        lake.sql("INSERT OVERWRITE lake.default.t SELECT IF(id = 7, raise_error('boom'), CAST(id AS INT)) "
                 "FROM range(0, 100, 1, 2)")
    _assert_untouched(lake, 1, [(1,)])


def test_failed_ctas_creates_no_table(lake: Lake) -> None:
    with pytest.raises(DeltaConnectorError, match="boom"):
        lake.sql("CREATE TABLE lake.default.t AS SELECT IF(id = 3, raise_error('boom'), id) AS id FROM range(10)")
    assert not DeltaTable.is_deltatable(lake.path("default", "t"))
    assert not Path(lake.path("default", "t")).exists()
    assert lake.rows("SHOW TABLES IN lake.default") == []


def test_bad_inserts_are_clear_errors(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT NOT NULL, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'a')")
    with pytest.raises(DeltaConnectorError, match=r"expects 2 column\(s\) \(id, p\) but the query produced 3"):
        lake.sql("INSERT INTO lake.default.t VALUES (1, 'a', 'extra')")
    with pytest.raises(DeltaConnectorError, match="NULL value for NOT NULL column 'id'"):
        lake.sql("INSERT INTO lake.default.t VALUES (NULL, 'b')")
    with pytest.raises(DeltaConnectorError, match="'id' in PARTITION .* is not a partition column"):
        lake.sql("INSERT INTO lake.default.t PARTITION (id = 1) SELECT 'x'")
    with pytest.raises(DeltaConnectorError, match="nope are not columns"):
        lake.sql("INSERT INTO lake.default.t (nope) VALUES (1)")
    with pytest.raises(DeltaConnectorError, match=r"Delta table lake.default.missing does not exist"):
        lake.sql("INSERT INTO lake.default.missing VALUES (1)")
    with pytest.raises(DeltaConnectorError, match=r"Delta table lake.default.missing does not exist"):
        lake.sql("SELECT * FROM lake.default.missing")
    with pytest.raises(DeltaConnectorError, match="already exists"):
        lake.sql("CREATE TABLE lake.default.t (id INT)")
    with pytest.raises(DeltaConnectorError, match="database 'nodb' does not exist"):
        lake.sql("CREATE TABLE lake.nodb.t (id INT)")
    with pytest.raises(DeltaConnectorError, match="not a valid table name"):
        lake.sql("CREATE TABLE lake.default.`../escape` (id INT)")
    assert lake.table("default", "t").version() == 1


def test_unsupported_statements_and_properties(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    for statement, verb in [("ALTER TABLE lake.default.t RENAME TO lake.default.u", "this form of ALTER TABLE"),
                            ("ALTER TABLE lake.default.t ADD CONSTRAINT c CHECK (id > 0)", "this form of ALTER TABLE"),
                            ("ALTER TABLE lake.default.t ALTER COLUMN id TYPE BIGINT",
                             "ALTER TABLE … ALTER COLUMN … TYPE"),
                            ("DELETE FROM lake.default.t USING lake.default.t u WHERE t.id = u.id", "DELETE … USING"),
                            ("TRUNCATE TABLE lake.default.t PARTITION (id = 1)", "TRUNCATE TABLE … PARTITION")]:
        assert lake.delta.handles(statement, current_catalog=None, current_database=None)
        with pytest.raises(DeltaConnectorError, match=f"{re.escape(verb)}.* is not supported on Delta tables"):
            lake.sql(statement)
    with pytest.raises(DeltaConnectorError, match="'deletionVectors'"):
        lake.sql("CREATE TABLE lake.default.dv (id INT) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    with pytest.raises(DeltaConnectorError, match="keys starting with 'delta.'"):
        lake.sql("CREATE TABLE lake.default.p (id INT) TBLPROPERTIES ('owner' = 'me')")
    with pytest.raises(DeltaConnectorError, match="LOCATION is not allowed"):
        lake.sql("CREATE TABLE lake.default.l (id INT) LOCATION '/tmp/elsewhere'")
    with pytest.raises(DeltaConnectorError, match="USING delta, not USING parquet"):
        lake.sql("CREATE TABLE lake.default.u (id INT) USING parquet")
    assert lake.table("default", "t").version() == 0


def test_deletion_vectors_table_written_by_delta_rs_reads_and_refuses_overwrite(lake: Lake) -> None:
    (lake.warehouse / "default").mkdir()
    write_deltalake(lake.path("default", "dv"), pa.table({"id": [1, 2, 3]}),
                    configuration={"delta.enableDeletionVectors": "true"})
    assert "deletionVectors" in (DeltaTable(lake.path("default", "dv")).protocol().reader_features or [])
    assert lake.rows("SELECT id FROM lake.default.dv") == [(1,), (2,), (3,)]
    with pytest.raises(UnsupportedFeatureError, match="'deletionVectors'") as info:
        lake.sql("INSERT OVERWRITE lake.default.dv VALUES (4)")
    assert info.value.feature == "deletionVectors" and "lake.default.dv at version 0" in str(info.value)
    assert DeltaTable(lake.path("default", "dv")).version() == 0


def test_append_only_table_refuses_overwrite(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT) TBLPROPERTIES ('delta.appendOnly' = 'true')")
    lake.sql("INSERT INTO lake.default.t VALUES (1)")
    with pytest.raises(UnsupportedFeatureError, match="'appendOnly'"):
        lake.sql("INSERT OVERWRITE lake.default.t VALUES (2)")
    _assert_untouched(lake, 1, [(1,)])


def test_storage_secrets_never_surface(spark: object, tmp_path: Path) -> None:
    delta = EmbeddedDelta(spark)
    secret = "sup3r-s3cret-key-value"
    delta.register("vault", {"warehouse": str(tmp_path), "storage-options": {"AWS_SECRET_ACCESS_KEY": secret}})
    assert secret not in repr(delta._catalogs["vault"])
    error = DeltaConnectorError(f"object store said: \x1b[31m↳\x1b[0m invalid key {secret}")
    assert secret not in str(error) and "***" in str(error) and "\x1b" not in str(error)
    with pytest.raises(DeltaConnectorError) as info:
        delta.register("broken", {"warehouse": "relative/path", "storage-options": {"k": secret}})
    assert secret not in str(info.value)
