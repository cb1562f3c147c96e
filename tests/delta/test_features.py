"""Delta table features through SQL: deletion vectors, column mapping, type widening, variant — reads that match
delta-rs, writes that keep the table valid or are refused by name."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, QueryBuilder
from pyspark.errors import PySparkException

from lakeport_engine.delta.errors import DeltaConnectorError, UnsupportedFeatureError
from tests.delta.conftest import Lake
from tests.delta.test_golden import GOLDEN


def _copy_golden(lake: Lake, name: str, as_name: str) -> Path:
    target = lake.warehouse / "default" / as_name
    shutil.copytree(GOLDEN / name, target)
    return target


def _delta_rs(path: Path, sql: str, version: int | None = None) -> list[tuple[object, ...]]:
    table = DeltaTable(str(path), version=version)
    result = pa.table(QueryBuilder().register("t", table).execute(sql))
    return sorted((tuple(r.values()) for r in result.to_pylist()), key=repr)


def test_deleted_rows_never_return_across_versions_and_time_travel(lake: Lake, dv_reader: str) -> None:
    path = _copy_golden(lake, "dv-partitioned-with-checkpoint", "dv")
    for version in (0, 1, 7, 15):
        got = lake.rows(f"SELECT part, col1, col2 FROM lake.default.dv VERSION AS OF {version}")
        assert got == _delta_rs(path, "SELECT part, col1, col2 FROM t", version)
    assert lake.rows("SELECT count(*) FROM lake.default.dv") == [(35,)]
    assert lake.rows("SELECT count(*) FROM lake.default.dv VERSION AS OF 0") == [(50,)]
    # Filters and aggregates run over the kept rows only.
    assert lake.rows("SELECT part, count(*) FROM lake.default.dv WHERE part < 3 GROUP BY part") == \
        _delta_rs(path, "SELECT part, count(*) FROM t WHERE part < 3 GROUP BY part")


_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def _inline_vector(deleted: list[int]) -> tuple[str, int]:
    """An inline deletion vector as Delta writes it: Z85 of magic + RoaringBitmapArray; (text, size in bytes)."""
    from pyroaring import BitMap

    data = struct.pack("<i", 1681511377) + struct.pack("<q", 1) + struct.pack("<i", 0) + BitMap(deleted).serialize()
    padded = data + b"\0" * (-len(data) % 4)
    text = ""
    for i in range(0, len(padded), 4):
        value = int.from_bytes(padded[i:i + 4], "big")
        text += "".join(_Z85[(value // 85 ** k) % 85] for k in range(4, -1, -1))
    return text, len(data)


def _hand_written_dv_log(root: Path, vector: str, size_in_bytes: int, cardinality: int, *, marked: int = 1,
                         unmarked: int = 0, grow: int = 0) -> None:
    """A table of `marked` files with the same inline vector plus `unmarked` files without one; file n holds
    ids 1000n+1 … 1000n+4+grow·n (`grow` 0: files of one size)."""
    (root / "_delta_log").mkdir(parents=True)
    adds = []
    for n in range(marked + unmarked):
        name = f"part-{n}.parquet"
        ids = pa.array(range(1000 * n + 1, 1000 * n + 5 + grow * n), pa.int64())
        pq.write_table(pa.table({"id": ids}), root / name)
        add = {"path": name, "partitionValues": {}, "size": (root / name).stat().st_size,
               "modificationTime": 1700000000000, "dataChange": True, "stats": json.dumps({"numRecords": len(ids)})}
        if n < marked:
            add["deletionVector"] = {"storageType": "i", "pathOrInlineDv": vector, "sizeInBytes": size_in_bytes,
                                     "cardinality": cardinality}
        adds.append({"add": add})
    schema = {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]}
    v0 = [
        {"commitInfo": {"timestamp": 1700000000000, "operation": "WRITE"}},
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["deletionVectors"],
                      "writerFeatures": ["deletionVectors"]}},
        {"metaData": {"id": "5b5f5b3e-0000-4000-8000-000000000001", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps(schema), "partitionColumns": [],
                      "configuration": {"delta.enableDeletionVectors": "true"}, "createdTime": 1700000000000}},
        *adds,
    ]
    (root / "_delta_log" / f"{0:020d}.json").write_text("\n".join(json.dumps(a) for a in v0) + "\n")


def test_inline_deletion_vector_of_a_hand_written_log(lake: Lake, dv_reader: str) -> None:
    """A `_delta_log` as Delta writes it after `DELETE … WHERE id IN (1, 3)` with an inline deletion vector."""
    root = lake.warehouse / "default" / "dvlog"
    vector, size = _inline_vector([0, 2])
    _hand_written_dv_log(root, vector, size, 2)
    got = lake.rows("SELECT id FROM lake.default.dvlog")
    assert got == [(2,), (4,)] == _delta_rs(root, "SELECT id FROM t")


# Files of one size find their vectors by path, files of distinct sizes by size; a literal map up to 32 files,
# a broadcast join beyond.
@pytest.mark.parametrize(("marked", "grow"), [(3, 0), (3, 1), (40, 0), (40, 1)])
def test_files_with_and_without_vectors_in_one_scan(lake: Lake, dv_reader: str, marked: int, grow: int) -> None:
    root = lake.warehouse / "default" / f"dvmix{marked}_{grow}"
    vector, size = _inline_vector([0, 2])
    _hand_written_dv_log(root, vector, size, 2, marked=marked, unmarked=4, grow=grow)
    got = lake.rows(f"SELECT id FROM lake.default.dvmix{marked}_{grow}")
    assert got == _delta_rs(root, "SELECT id FROM t")
    files = [4 + grow * n for n in range(marked + 4)]
    assert len(got) == sum(files) - 2 * marked  # rows 0 and 2 of each file with a vector are gone
    assert (1,) not in got and (2,) in got and (3,) not in got and (1000 * marked + 1,) in got


# A data file whose size differs from the log's (replaced or truncated behind Delta's back) finds no vector:
# the query fails, naming the key, rather than return the rows its vector deletes. Map lookup and join alike.
@pytest.mark.parametrize("marked", [3, 40])
def test_file_not_matching_its_vector_fails_the_query(lake: Lake, dv_reader: str, marked: int) -> None:
    root = lake.warehouse / "default" / f"dvsize{marked}"
    vector, size = _inline_vector([0, 2])
    _hand_written_dv_log(root, vector, size, 2, marked=marked, unmarked=1, grow=1)
    log = root / "_delta_log" / f"{0:020d}.json"
    actions = [json.loads(line) for line in log.read_text().splitlines()]
    first = next(a["add"] for a in actions if "add" in a)
    first["size"] += 10_000_000
    log.write_text("\n".join(json.dumps(a) for a in actions) + "\n")
    with pytest.raises(PySparkException, match="no deletion vector entry for the data file with file_size "
                                               f"{first['size'] - 10_000_000}"):
        lake.rows(f"SELECT id FROM lake.default.dvsize{marked}")


def test_undecodable_deletion_vector_is_a_clear_error(lake: Lake) -> None:
    _hand_written_dv_log(lake.warehouse / "default" / "bad", "wi5b=000010000siXQKl0rr91000f", 34, 1)
    with pytest.raises(DeltaConnectorError, match="cannot read the deletion vectors of Delta table "
                                                  "lake.default.bad at version 0"):
        lake.sql("SELECT id FROM lake.default.bad")


def test_append_to_deletion_vector_table_keeps_vectors_and_overwrite_is_refused(lake: Lake) -> None:
    path = _copy_golden(lake, "dv-partitioned-with-checkpoint", "dvw")
    lake.sql("INSERT INTO lake.default.dvw VALUES (1, 100, 'new')")  # (part, col1, col2)
    assert DeltaTable(str(path)).version() == 16
    assert _delta_rs(path, "SELECT count(*) FROM t") == [(36,)]  # delta-rs still applies the old vectors
    # VERSION AS OF: a run reads one version per table (snapshot pins), the commit's version is asked explicitly.
    assert lake.rows("SELECT count(*) FROM lake.default.dvw VERSION AS OF 16") == [(36,)]
    assert lake.rows("SELECT col1, col2, part FROM lake.default.dvw VERSION AS OF 16") == \
        _delta_rs(path, "SELECT col1, col2, part FROM t")
    with pytest.raises(UnsupportedFeatureError, match="at version 16 uses the table feature 'deletionVectors'") as info:
        lake.sql("INSERT OVERWRITE lake.default.dvw VALUES (1, 1, 'x')")
    assert info.value.feature == "deletionVectors"
    assert DeltaTable(str(path)).version() == 16


@pytest.mark.parametrize("mode", ["name", "id"])
def test_column_mapping_logical_names_in_sql_and_writes_by_physical_name(lake: Lake, mode: str) -> None:
    path = _copy_golden(lake, f"table-with-columnmapping-mode-{mode}", "cm")
    physical = pq.read_schema(next(path.glob("*.parquet"))).names
    assert not {"a", "b"} & set(physical)  # the files hold physical names only
    frame = lake.sql("SELECT * FROM lake.default.cm")
    logical = [f["name"] for f in json.loads(DeltaTable(str(path)).schema().to_json())["fields"]]
    assert frame.columns == logical
    first = logical[0]
    assert lake.rows(f"SELECT `{first}` FROM lake.default.cm") == _delta_rs(path, f'SELECT "{first}" FROM t')
    assert lake.rows(f"SELECT count(*) FROM lake.default.cm WHERE `{first}` IS NOT NULL") == \
        _delta_rs(path, f'SELECT count(*) FROM t WHERE "{first}" IS NOT NULL')
    if mode == "id":  # new files would need parquet field ids
        with pytest.raises(UnsupportedFeatureError, match="'columnMapping'.*mode 'id'") as info:
            lake.sql("INSERT INTO lake.default.cm SELECT * FROM lake.default.cm")
        assert info.value.feature == "columnMapping"
        return
    # mode name: the connector writes physical names (Delta-Spark's col-<uuid> here); delta-rs reads both copies
    before = _delta_rs(path, f'SELECT "{first}", "{logical[-1]}" FROM t')
    lake.sql("INSERT INTO lake.default.cm SELECT * FROM lake.default.cm")
    assert _delta_rs(path, f'SELECT "{first}", "{logical[-1]}" FROM t') == sorted(before + before, key=repr)
    assert lake.rows(f"SELECT `{first}` FROM lake.default.cm") == _delta_rs(path, f'SELECT "{first}" FROM t')
    newest = max(path.glob("*.parquet"), key=lambda p: p.stat().st_mtime)
    assert pq.read_schema(newest).names == physical


def test_renamed_and_dropped_columns_across_versions(lake: Lake) -> None:
    """A rename and a drop under column mapping only change the metadata: each version reads its own names."""
    path = _copy_golden(lake, "dv-with-columnmapping", "cmr")
    table = DeltaTable(str(path))
    latest = table.version()
    schema = json.loads(table.schema().to_json())
    fields = [f for f in schema["fields"] if f["name"] != "col2"]  # DROP COLUMN col2
    for f in fields:
        if f["name"] == "col1":
            f["name"] = "renamed"  # RENAME COLUMN col1 TO renamed (same physical name)
    log = path / "_delta_log"
    metadata = None
    for line in (log / f"{0:020d}.json").read_text().splitlines():
        action = json.loads(line)
        if "metaData" in action:
            metadata = action["metaData"]
    assert metadata is not None
    metadata["schemaString"] = json.dumps({"type": "struct", "fields": fields})
    metadata["configuration"]["delta.columnMapping.maxColumnId"] = "3"
    commit = [{"commitInfo": {"timestamp": 1800000000000, "operation": "RENAME COLUMN"}}, {"metaData": metadata}]
    (log / f"{latest + 1:020d}.json").write_text("\n".join(json.dumps(a) for a in commit) + "\n")
    now = lake.sql("SELECT * FROM lake.default.cmr")
    assert now.columns == ["part", "renamed"]
    before = lake.rows(f"SELECT part, col1 FROM lake.default.cmr VERSION AS OF {latest}")
    assert lake.rows("SELECT part, renamed FROM lake.default.cmr") == before
    assert len(before) == 35


def test_type_widening_reads_the_wide_types(lake: Lake) -> None:
    path = _copy_golden(lake, "type-widening", "tw")
    frame = lake.sql("SELECT * FROM lake.default.tw")
    wide = {f["name"]: f["type"] for f in json.loads(DeltaTable(str(path)).schema().to_json())["fields"]}
    assert wide["int_long"] == "long" and frame.schema["int_long"].dataType.simpleString() == "bigint"
    # Rows written before the widening (version 1) read with the new types, values unchanged.
    old = lake.rows("SELECT byte_long, int_long, float_double FROM lake.default.tw VERSION AS OF 1")
    new = lake.rows("SELECT byte_long, int_long, float_double FROM lake.default.tw")
    assert old and set(old) <= set(new)
    with pytest.raises(UnsupportedFeatureError, match="'typeWidening-preview'") as info:
        lake.sql("INSERT INTO lake.default.tw SELECT * FROM lake.default.tw")
    assert info.value.feature == "typeWidening-preview" and DeltaTable(str(path)).version() == 2


def test_variant_columns_are_spark_variants(lake: Lake) -> None:
    path = _copy_golden(lake, "spark-variant-checkpoint", "var")
    frame = lake.sql("SELECT id, v FROM lake.default.var")
    assert frame.schema["v"].dataType.simpleString() == "variant"
    assert lake.rows("SELECT count(*) FROM lake.default.var WHERE variant_get(v, '$.key', 'int') IS NOT NULL") \
        [0][0] > 0
    lake.sql("INSERT INTO lake.default.var SELECT * FROM lake.default.var")  # variants written back as variants
    assert _delta_rs(path, "SELECT count(*) FROM t") == [(204,)]
    assert lake.rows("SELECT count(*) FROM lake.default.var VERSION AS OF 3 WHERE variant_get(v, '$.key', 'int') "
                     "IS NOT NULL")[0][0] > 0
