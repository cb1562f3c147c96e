"""Reads of tables pyiceberg wrote, through the embedded connector, against pyiceberg's own scan (rows as multisets):
appends, overwrites, copy-on-write deletes, positional delete files, schema evolution by field id (renamed, added,
dropped columns), partitioned tables, and every snapshot through VERSION AS OF / TIMESTAMP AS OF."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg import types as it
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform

from lakeport_engine.iceberg.catalog import IcebergError
from tests.iceberg.conftest import Ice, oracle

pytestmark = pytest.mark.spark

_ARROW = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.decimal128(10, 2)),
                    ("ts", pa.timestamp("us", tz="UTC")), ("day", pa.date32()), ("flag", pa.bool_())])


def _batch(rng: random.Random, start: int, n: int) -> pa.Table:
    base = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    rows = [{"id": start + i, "name": rng.choice(["a", "b", "ç", None, "long name " * 3]),
             "amount": Decimal(rng.randint(-10**6, 10**6)) / 100,
             "ts": base + dt.timedelta(seconds=rng.randint(0, 86_400 * 10)),
             "day": (base + dt.timedelta(days=rng.randint(0, 5))).date(), "flag": rng.random() < 0.5}
            for i in range(n)]
    return pa.Table.from_pylist(rows, schema=_ARROW)


def _spark_rows(ice: Ice, sql: str) -> Any:
    return ice.rows(sql)


def test_every_snapshot_of_an_evolving_table_reads_as_pyiceberg_scans_it(ice: Ice) -> None:
    rng = random.Random(33)
    catalog = ice.catalog
    catalog.create_namespace_if_not_exists("sales")
    spec = PartitionSpec(PartitionField(4, 1000, DayTransform(), "ts_day"),
                         PartitionField(2, 1001, IdentityTransform(), "name"))
    schema = Schema(it.NestedField(1, "id", it.LongType()), it.NestedField(2, "name", it.StringType()),
                    it.NestedField(3, "amount", it.DecimalType(10, 2)), it.NestedField(4, "ts", it.TimestamptzType()),
                    it.NestedField(5, "day", it.DateType()), it.NestedField(6, "flag", it.BooleanType()))
    table = catalog.create_table("sales.orders", schema=schema, partition_spec=spec,
                                 location=(ice.warehouse / "sales" / "orders").as_uri())
    table.append(_batch(rng, 0, 300))
    table.append(_batch(rng, 300, 200))
    table.delete("amount < 0")  # copy-on-write: rewritten files
    with table.update_schema() as update:  # by field id: a rename, a drop and an added column
        update.rename_column("name", "label")
        update.delete_column("flag")
        update.add_column("note", it.StringType())
    table = catalog.load_table("sales.orders")
    added = _batch(rng, 500, 100).drop_columns(["flag"]).rename_columns(
        ["id", "label", "amount", "ts", "day"]).append_column("note", pa.array(["n"] * 100))
    table.append(added)
    table.overwrite(added.slice(0, 10))  # replaces the whole table
    table = catalog.load_table("sales.orders")
    snapshots = [s.snapshot_id for s in table.snapshots()]
    assert len(snapshots) >= 5
    for snapshot_id in snapshots:
        expected = oracle(table, snapshot_id)
        got = _spark_rows(ice, f"SELECT * FROM ice.sales.orders VERSION AS OF {snapshot_id}")
        assert got == expected, snapshot_id
    assert _spark_rows(ice, "SELECT * FROM ice.sales.orders") == oracle(table)
    # columns by their current names; a column dropped later still reads at the old snapshot
    assert ice.sql("SELECT * FROM ice.sales.orders").columns == ["id", "label", "amount", "ts", "day", "note"]
    first = ice.sql(f"SELECT * FROM ice.sales.orders VERSION AS OF {snapshots[0]}")
    assert first.columns == ["id", "name", "amount", "ts", "day", "flag"]
    # TIMESTAMP AS OF: the snapshot current at that moment
    second = table.snapshot_by_id(snapshots[1])
    when = dt.datetime.fromtimestamp(second.timestamp_ms / 1000, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    ice.spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert _spark_rows(ice, f"SELECT * FROM ice.sales.orders TIMESTAMP AS OF '{when}'") == oracle(table, snapshots[1])


def test_positional_delete_files_are_applied(ice: Ice) -> None:
    from tests.iceberg.deletes import commit_positional_deletes

    rng = random.Random(7)
    catalog = ice.catalog
    table = catalog.create_table("default.events", schema=_ARROW,
                                 location=(ice.warehouse / "default" / "events").as_uri())
    table.append(_batch(rng, 0, 500))
    table.append(_batch(rng, 500, 500))
    table = catalog.load_table("default.events")
    data_files = [task.file.file_path for task in table.scan().plan_files()]
    positions = {data_files[0]: sorted(rng.sample(range(500), 40)), data_files[1]: [0, 1, 499]}
    commit_positional_deletes(table, positions)
    table = catalog.load_table("default.events")
    assert any(task.delete_files for task in table.scan().plan_files())
    expected = oracle(table)
    assert sum(expected.values()) == 1000 - 43
    assert _spark_rows(ice, "SELECT * FROM ice.default.events") == expected
    assert _spark_rows(ice, "SELECT count(*) FROM ice.default.events WHERE flag") == Counter(
        [(sum(n for row, n in expected.items() if row[5]),)])


def test_files_outside_the_warehouse_are_refused(ice: Ice, tmp_path: Any) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    catalog = ice.catalog
    table = catalog.create_table("default.leak", schema=_ARROW, location=outside.as_uri())
    table.append(_batch(random.Random(1), 0, 5))
    with pytest.raises(IcebergError, match="outside the catalog's warehouse"):
        ice.sql("SELECT * FROM ice.default.leak").collect()





def _values(rng: random.Random, start: int, n: int, columns: list[str]) -> str:
    """`n` generated rows for the evolving table's current `columns`, as a VALUES list."""
    makers = {
        "id": lambda i: str(i), "ident": lambda i: str(i),
        "qty": lambda i: rng.choice(["NULL", str(rng.randint(-1000, 1000))]),
        "price": lambda i: rng.choice(["NULL", f"{rng.uniform(-100, 100):.3f}"]),
        "amount": lambda i: rng.choice(["NULL", f"{rng.randint(-10**6, 10**6) / 100:.2f}"]),
        "region": lambda i: rng.choice(["'n'", "'s'", "'ç'"]),
        "note": lambda i: rng.choice(["NULL", "'x'", "'long note'"]),
        "tag": lambda i: rng.choice(["NULL", "'t'"]),
        "pt": lambda i: rng.choice(["NULL", f"named_struct('x', {rng.randint(0, 9)}, 'y', 'y{i}')"]),
        "pt2": lambda i: rng.choice(["NULL", f"named_struct('xx', {rng.randint(0, 9)}, 'y', 'y{i}', 'z', {i})"]),
    }
    return ", ".join("(" + ", ".join(makers[c](start + k) for c in columns) + ")" for k in range(n))


def test_alter_table_evolves_by_field_id_and_every_snapshot_reads_as_pyiceberg_scans_it(ice: Ice) -> None:
    """ALTER TABLE through the connector (pyiceberg's update_schema), generated inserts between the changes, and a
    pyiceberg append in the evolved schema: after each change the current read equals pyiceberg's scan, and at the
    end every snapshot does, each in its own schema."""
    rng = random.Random(41)
    ice.sql("CREATE TABLE ice.default.ev (id INT, qty INT, price FLOAT, amount DECIMAL(9,2), region STRING, "
            "pt STRUCT<x: INT, y: STRING>) PARTITIONED BY (region, bucket(4, id))")
    columns = ["id", "qty", "price", "amount", "region", "pt"]
    ice.sql(f"INSERT INTO ice.default.ev VALUES {_values(rng, 0, 40, columns)}")
    steps: list[tuple[str, list[str]]] = [
        ("ALTER TABLE ice.default.ev ADD COLUMNS (note STRING COMMENT 'free text' AFTER id, pt.z BIGINT)",
         ["id", "note", "qty", "price", "amount", "region", "pt2"]),
        ("ALTER TABLE ice.default.ev ALTER COLUMN qty TYPE BIGINT", []),
        ("ALTER TABLE ice.default.ev ALTER COLUMN price TYPE DOUBLE", []),
        ("ALTER TABLE ice.default.ev ALTER COLUMN amount TYPE DECIMAL(20,2)", []),
        ("ALTER TABLE ice.default.ev RENAME COLUMN pt.x TO xx", []),
        ("ALTER TABLE ice.default.ev RENAME COLUMN id TO ident", ["ident", "note", "qty", "price", "amount", "region",
                                                                  "pt2"]),
        ("ALTER TABLE ice.default.ev DROP COLUMN note", ["ident", "qty", "price", "amount", "region", "pt2"]),
        ("ALTER TABLE ice.default.ev ADD COLUMN note STRING FIRST", ["note", "ident", "qty", "price", "amount",
                                                                     "region", "pt2"]),  # a new field id
        ("ALTER TABLE ice.default.ev ALTER COLUMN qty COMMENT 'pieces'", []),
        ("ALTER TABLE ice.default.ev ALTER COLUMN price AFTER amount", ["note", "ident", "qty", "amount", "price",
                                                                        "region", "pt2"]),
    ]
    start = 40
    for statement, now in steps:
        ice.sql(statement)
        table = ice.table("default.ev")
        assert ice.rows("SELECT * FROM ice.default.ev") == oracle(table), statement
        if now:
            columns = now
            ice.sql(f"INSERT INTO ice.default.ev VALUES {_values(rng, start, 25, columns)}")
            start += 25
            assert ice.rows("SELECT * FROM ice.default.ev") == oracle(ice.table("default.ev")), statement
    table = ice.table("default.ev")
    schema = table.schema()
    assert [f.name for f in schema.fields] == ["note", "ident", "qty", "amount", "price", "region", "pt"]
    assert (str(schema.find_field("qty").field_type), schema.find_field("qty").doc) == ("long", "pieces")
    assert str(schema.find_field("amount").field_type) == "decimal(20, 2)"
    assert [f.name for f in schema.find_field("pt").field_type.fields] == ["xx", "y", "z"]
    assert schema.find_field("note").field_id > 7  # the dropped note's id is not reused: old files read NULL
    # pyiceberg appends in the evolved schema; then every snapshot, in its own schema, reads as pyiceberg scans it
    arrow = ice.sql("SELECT * FROM ice.default.ev WHERE ident < 5").toArrow().cast(table.schema().as_arrow())
    table.append(arrow)
    table = ice.table("default.ev")
    assert ice.rows("SELECT * FROM ice.default.ev") == oracle(table)
    assert len(table.snapshots()) >= 5
    for snapshot in table.snapshots():
        assert ice.rows(f"SELECT * FROM ice.default.ev VERSION AS OF {snapshot.snapshot_id}") == oracle(
            table, snapshot.snapshot_id), snapshot.snapshot_id
    # the partition source renamed (id → ident): pruning by the new name still finds every row written after
    for ident in rng.sample(range(start), 10):
        assert oracle(table, row_filter=f"ident == {ident}") == ice.rows(
            f"SELECT * FROM ice.default.ev WHERE ident = {ident}")
    # properties: set, unset
    ice.sql("ALTER TABLE ice.default.ev SET TBLPROPERTIES ('comment' = 'evolved', 'lakeport.owner' = 'ops')")
    assert {k: v for k, v in ice.table("default.ev").properties.items() if k in ("comment", "lakeport.owner")} == {
        "comment": "evolved", "lakeport.owner": "ops"}
    ice.sql("ALTER TABLE ice.default.ev UNSET TBLPROPERTIES ('lakeport.owner')")
    ice.sql("ALTER TABLE ice.default.ev UNSET TBLPROPERTIES IF EXISTS ('lakeport.owner')")
    assert "lakeport.owner" not in ice.table("default.ev").properties


_BAD_ALTERS = [
    ("ALTER TABLE ice.default.bad ALTER COLUMN s TYPE INT", "string to int.*rule iceberg-type-promotion"),
    ("ALTER TABLE ice.default.bad ALTER COLUMN l TYPE INT", "bigint to int.*rule iceberg-type-promotion"),
    ("ALTER TABLE ice.default.bad ALTER COLUMN d TYPE DECIMAL(12,3)", "decimal.*rule iceberg-type-promotion"),
    ("ALTER TABLE ice.default.bad ALTER COLUMN d TYPE DECIMAL(8,2)", "decimal.*rule iceberg-type-promotion"),
    ("ALTER TABLE ice.default.bad ALTER COLUMN i TYPE DOUBLE", "int to double.*rule iceberg-type-promotion"),
    ("ALTER TABLE ice.default.bad DROP COLUMN region", "partition field 'region'.*rule iceberg-partition-source"),
    ("ALTER TABLE ice.default.bad DROP COLUMN nope", "DROP COLUMNS: 'nope' is not a column"),
    ("ALTER TABLE ice.default.bad RENAME COLUMN nope TO x", "RENAME COLUMN: 'nope' is not a column"),
    ("ALTER TABLE ice.default.bad RENAME COLUMN i TO s", "'s' already exists"),
    ("ALTER TABLE ice.default.bad ADD COLUMNS (s INT)", "'s' already exists"),
    ("ALTER TABLE ice.default.bad ADD COLUMNS (n INT NOT NULL)", "cannot be added NOT NULL"),
    ("ALTER TABLE ice.default.bad ADD COLUMNS (n NOTATYPE)", "'NOTATYPE' is not a type"),
    ("ALTER TABLE ice.default.bad ADD COLUMNS (a ARRAY<INT>)", "array and map columns"),
    ("ALTER TABLE ice.default.bad ALTER COLUMN i SET NOT NULL", "does not make an optional column required"),
    ("ALTER TABLE ice.default.bad ALTER COLUMN nope COMMENT 'x'", "'nope' is not a column"),
    ("ALTER TABLE ice.default.bad SET TBLPROPERTIES ('write.data.path' = '/tmp/x')", "iceberg-location"),
    ("ALTER TABLE ice.default.bad SET TBLPROPERTIES ('owner' = 'x')", "'owner' .* is not supported"),
    ("ALTER TABLE ice.default.bad UNSET TBLPROPERTIES ('nope')", "nope is not set"),
    ("ALTER TABLE ice.default.bad RENAME TO other", "this form of ALTER TABLE"),
]


def test_bad_alter_table_is_refused_by_name_and_changes_nothing(ice: Ice) -> None:
    ice.sql("CREATE TABLE ice.default.bad (i INT, l BIGINT, d DECIMAL(10,2), s STRING, region STRING) "
            "PARTITIONED BY (region)")
    before = ice.table("default.bad").metadata_location
    for statement, message in _BAD_ALTERS:  # one table for all: none of them may change it
        with pytest.raises(IcebergError, match=message) as raised:
            ice.sql(statement)
        assert "ALTER TABLE" in str(raised.value) and "Delta" not in str(raised.value), statement
        assert ice.table("default.bad").metadata_location == before, statement


def _cell(value: Any) -> Any:
    """A metadata cell comparable across Spark and pyarrow: maps as sorted items, structs as tuples, UTC instants."""
    if isinstance(value, dict):
        return tuple((k, _cell(v)) for k, v in value.items())  # Spark's map or pyarrow's struct
    if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return tuple(sorted((k, _cell(v)) for k, v in value))  # pyarrow's map
    if isinstance(value, (list, tuple)):
        return tuple(_cell(v) for v in value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).replace(tzinfo=None)  # Spark's local time as UTC
    if isinstance(value, bytearray):
        return bytes(value)  # Spark's binary
    return value


def _spark_cells(frame: Any) -> Counter[tuple[Any, ...]]:
    rows = []
    for row in frame.collect():
        cells = []
        for value in row:
            if isinstance(value, dict):
                value = sorted(value.items())  # a Spark map, compared as pyarrow gives maps
            elif hasattr(value, "asDict"):
                value = value.asDict(recursive=False)
            cells.append(_cell(value))
        rows.append(tuple(cells))
    return Counter(rows)


def _arrow_cells(arrow: pa.Table, columns: list[str]) -> Counter[tuple[Any, ...]]:
    utc = [pa.types.is_timestamp(arrow.schema.field(c).type) for c in columns]
    return Counter(tuple(v.replace(tzinfo=dt.UTC).astimezone(dt.UTC).replace(tzinfo=None) if z and v else _cell(v)
                         for v, z in zip((r[c] for c in columns), utc, strict=True))
                   for r in arrow.select(columns).to_pylist())


def test_metadata_tables_read_as_pyiceberg_inspects_them(ice: Ice) -> None:
    rng = random.Random(5)
    ice.sql("CREATE TABLE ice.default.m (id BIGINT, region STRING, ts TIMESTAMP) PARTITIONED BY (region, days(ts))")
    for batch in range(3):
        rows = ", ".join(f"({batch * 100 + i}, '{rng.choice('ns')}', TIMESTAMP'2024-01-0{rng.randint(1, 2)} "
                         f"0{rng.randint(0, 9)}:00:00 UTC')" for i in range(30))
        ice.sql(f"INSERT INTO ice.default.m VALUES {rows}")
    ice.sql("DELETE FROM ice.default.m WHERE region = 'n'")
    table = ice.table("default.m")
    first = table.snapshots()[0].snapshot_id
    inspect = table.inspect
    cases: list[tuple[str, pa.Table, list[str]]] = [
        ("snapshots", inspect.snapshots(), ["committed_at", "snapshot_id", "parent_id", "operation", "manifest_list",
                                            "summary"]),
        ("history", inspect.history(), ["made_current_at", "snapshot_id", "parent_id", "is_current_ancestor"]),
        ("refs", inspect.refs(), ["name", "type", "snapshot_id", "max_reference_age_in_ms", "min_snapshots_to_keep"]),
        ("manifests", inspect.manifests(), ["content", "path", "length", "partition_spec_id", "added_snapshot_id",
                                            "added_data_files_count", "existing_data_files_count",
                                            "deleted_data_files_count"]),
        ("files", inspect.files(), ["content", "file_path", "file_format", "spec_id", "partition", "record_count",
                                    "file_size_in_bytes", "value_counts", "null_value_counts", "lower_bounds"]),
        (f"files VERSION AS OF {first}", inspect.files(snapshot_id=first), ["file_path", "partition", "record_count"]),
        ("partitions", inspect.partitions(), ["partition", "spec_id", "record_count", "file_count",
                                              "total_data_file_size_in_bytes", "last_updated_snapshot_id"]),
        ("entries", inspect.entries(), ["status", "snapshot_id", "sequence_number", "file_sequence_number"]),
        ("metadata_log_entries", inspect.metadata_log_entries(), ["file", "latest_snapshot_id", "latest_schema_id"]),
    ]
    for name, expected, columns in cases:
        frame = ice.sql(f"SELECT {', '.join(columns)} FROM ice.default.m.{name}")
        assert _spark_cells(frame) == _arrow_cells(expected, columns), name
    assert len(ice.sql("SELECT * FROM ice.default.m.snapshots").collect()) == 4
    # Iceberg's column names; the metadata table name works as a qualifier and in joins with the table
    assert ice.sql("SELECT * FROM ice.default.m.history").columns == inspect.history().column_names
    assert ice.rows("SELECT count(*) FROM ice.default.m.snapshots s JOIN ice.default.m.history h "
                    "ON s.snapshot_id = h.snapshot_id") == Counter([(4,)])
    assert ice.rows("SELECT sum(files.record_count) FROM ice.default.m.files") == Counter(
        [(sum(oracle(table).values()),)])
    with pytest.raises(IcebergError, match="lists the whole table"):
        ice.sql(f"SELECT * FROM ice.default.m.snapshots VERSION AS OF {first}")
    with pytest.raises(IcebergError, match="not supported by the embedded Iceberg connector"):
        ice.sql("SELECT * FROM ice.default.m.position_deletes")
    with pytest.raises(IcebergError, match="'nope' is not an Iceberg metadata table"):
        ice.sql("SELECT * FROM ice.default.m.nope")
    with pytest.raises(IcebergError, match="read-only"):
        ice.sql("INSERT INTO ice.default.m.files SELECT * FROM ice.default.m.files")
