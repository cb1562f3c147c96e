"""Column mapping (`delta.columnMapping.mode = name`) as Delta writes it: enabling it, RENAME/DROP/ADD COLUMN as
metadata-only commits, and data files written under physical names.

Enabling it upgrades the protocol (reader 2 / writer 5, or the `columnMapping` feature on a table-features protocol)
and gives every field, nested ones too, a `delta.columnMapping.id` and a `delta.columnMapping.physicalName` equal to
its current name (the names its data files already use), with `delta.columnMapping.maxColumnId`. A rename then only
changes the logical name and a drop only removes the field: the files stay as they are and readers resolve columns by
physical name. Columns added later get Delta-Spark's `col-<uuid>` physical names.

delta-rs 1.6 refuses these changes on column-mapped tables ("Column mapping is not supported for write operation"),
so the commit (commitInfo, protocol, metaData) is written here, with put-if-absent on the next log file: a local
`link`, which fails when another writer took the version. Only local warehouses are written so.
"""

from __future__ import annotations

import copy
import json
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from deltalake import DeltaTable
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.errors import DeltaConflictError, DeltaConnectorError
from lakeport_engine.delta.schema import PHYSICAL_NAME, column_mapping_mode, physical_schema

MODE = "delta.columnMapping.mode"
MAX_ID = "delta.columnMapping.maxColumnId"
FIELD_ID = "delta.columnMapping.id"
FEATURE = "columnMapping"

JsonSchema = dict[str, Any]


# ---- schemas ----------------------------------------------------------------------------------------
def mapped_schema(schema: JsonSchema) -> tuple[JsonSchema, int]:
    """`schema` (Delta struct JSON) with an id and a physical name (its current name) on every field; the last id."""
    out = copy.deepcopy(schema)
    last = 0

    def visit(dtype: Any) -> None:
        nonlocal last
        if not isinstance(dtype, dict):
            return
        if dtype.get("type") == "struct":
            for field in dtype["fields"]:
                last += 1
                metadata = field.setdefault("metadata", {})
                metadata[FIELD_ID] = last
                metadata[PHYSICAL_NAME] = field["name"]
                visit(field["type"])
        elif dtype.get("type") == "array":
            visit(dtype["elementType"])
        elif dtype.get("type") == "map":
            visit(dtype["keyType"])
            visit(dtype["valueType"])

    visit(out)
    return out, last


def with_new_fields(schema: JsonSchema, fields: Sequence[Mapping[str, Any]], max_id: int) -> tuple[JsonSchema, int]:
    """`schema` with `fields` appended, each (and its nested fields) given a fresh id and a `col-<uuid>` physical
    name, as Delta-Spark names added columns; the new maximum id."""
    added, last = mapped_schema({"type": "struct", "fields": [dict(f) for f in fields]})

    def renumber(dtype: Any) -> None:
        if not isinstance(dtype, dict):
            return
        if dtype.get("type") == "struct":
            for field in dtype["fields"]:
                field["metadata"][FIELD_ID] += max_id
                field["metadata"][PHYSICAL_NAME] = f"col-{uuid.uuid4()}"
                renumber(field["type"])
        elif dtype.get("type") == "array":
            renumber(dtype["elementType"])
        elif dtype.get("type") == "map":
            renumber(dtype["keyType"])
            renumber(dtype["valueType"])

    renumber(added)
    out = copy.deepcopy(schema)
    out["fields"].extend(added["fields"])
    return out, max_id + last


def renamed(schema: JsonSchema, old: str, new: str) -> JsonSchema:
    """`schema` with top-level column `old` named `new` (its id and physical name kept)."""
    out = copy.deepcopy(schema)
    for field in out["fields"]:
        if field["name"] == old:
            field["name"] = new
    return out


def dropped(schema: JsonSchema, names: Sequence[str]) -> JsonSchema:
    """`schema` without the top-level columns `names`."""
    out = copy.deepcopy(schema)
    out["fields"] = [f for f in out["fields"] if f["name"] not in set(names)]
    return out


def max_column_id(table: DeltaTable) -> int:
    """The table's `delta.columnMapping.maxColumnId` (0 when unset)."""
    value = table.metadata().configuration.get(MAX_ID) or "0"
    return int(value)


# ---- protocol ---------------------------------------------------------------------------------------
def upgraded_protocol(table: DeltaTable) -> dict[str, Any] | None:
    """The protocol action that lets `table` use column mapping, or None when its protocol already does."""
    protocol = table.protocol()
    reader, writer = protocol.min_reader_version, protocol.min_writer_version
    readers = list(protocol.reader_features or [])
    writers = list(protocol.writer_features or [])
    if writer >= 7:  # table features: name the feature (reader 3 lists it too; a legacy reader 2 implies it)
        if FEATURE in writers and (reader == 2 or FEATURE in readers):
            return None
        writers = sorted({*writers, FEATURE})
        if reader >= 3:
            readers = sorted({*readers, FEATURE})
        else:
            reader = 2
    else:
        if reader >= 2 and writer >= 5:
            return None
        reader, writer = max(reader, 2), max(writer, 5)
    action: dict[str, Any] = {"minReaderVersion": reader, "minWriterVersion": writer}
    if reader >= 3:
        action["readerFeatures"] = readers
    if writer >= 7:
        action["writerFeatures"] = writers
    return action


# ---- the commit -------------------------------------------------------------------------------------
def commit_metadata(catalog: DeltaCatalog, ref: TableRef, table: DeltaTable, *, schema: JsonSchema,
                    configuration: Mapping[str, str], operation: str, parameters: Mapping[str, Any],
                    commit_info: Mapping[str, Any], protocol: Mapping[str, Any] | None = None) -> int:
    """Write one metadata-only commit (commitInfo, [protocol,] metaData) at the version after `table`'s; returns it.

    A concurrent commit at that version makes this a `DeltaConflictError` (a metadata change conflicts with any
    concurrent commit, as in Delta); nothing is written then."""
    if not catalog.is_local:
        raise DeltaConnectorError(
            f"{operation} {ref}: column-mapping changes are written only to local warehouses (the embedded Delta "
            "connector commits them itself and needs the file system's atomic put-if-absent).")
    meta = table.metadata()
    version = table.version() + 1
    actions: list[dict[str, Any]] = [{"commitInfo": {
        "timestamp": int(time.time() * 1000), "operation": operation,
        "operationParameters": {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in parameters.items()},
        "readVersion": table.version(), "isolationLevel": "Serializable", "isBlindAppend": False,
        "clientVersion": "lakeport-embedded-delta", **commit_info}}]
    if protocol is not None:
        actions.append({"protocol": dict(protocol)})
    actions.append({"metaData": {
        "id": meta.id, "name": meta.name, "description": meta.description,
        "format": {"provider": "parquet", "options": {}}, "schemaString": json.dumps(schema),
        "partitionColumns": list(meta.partition_columns), "configuration": dict(configuration),
        "createdTime": meta.created_time}})
    log = f"{catalog.table_uri(ref)}/_delta_log"
    target = f"{log}/{version:020d}.json"
    scratch = f"{log}/.{version:020d}.json.{uuid.uuid4().hex}.tmp"
    with open(scratch, "w", encoding="utf-8") as out:
        out.write("\n".join(json.dumps(a) for a in actions) + "\n")
    try:
        os.link(scratch, target)  # put-if-absent: fails when a concurrent commit took this version
    except FileExistsError:
        raise DeltaConflictError(
            f"{operation} {ref} conflicted with a concurrent commit at version {version}; nothing of it was "
            "committed. Run it again.") from None
    finally:
        os.unlink(scratch)
    return version


# ---- writing data files -----------------------------------------------------------------------------
def is_mapped(table: DeltaTable) -> bool:
    """Whether the table's data files name columns by physical name."""
    return column_mapping_mode(table) != "none"


def physical_names(schema: T.StructType) -> dict[str, str]:
    """Top-level logical name → physical name."""
    return {f.name: (f.metadata or {}).get(PHYSICAL_NAME, f.name) for f in schema.fields}


def to_physical(frame: DataFrame, schema: T.StructType) -> DataFrame:
    """`frame` (the table's logical columns) with the column and nested field names its data files use."""
    physical = physical_schema(schema)
    by_name = {f.name: f for f in schema.fields}
    columns: list[Column] = []
    for name in frame.columns:
        field = by_name.get(name)
        if field is None:
            raise DeltaConnectorError(f"column '{name}' is not a column of the column-mapped table.")
        target = physical.fields[schema.names.index(name)]
        column = F.col(f"`{name.replace('`', '``')}`")
        if target.dataType != field.dataType:
            column = column.cast(target.dataType)  # a struct cast renames nested fields by position
        columns.append(column.alias(target.name))
    return frame.select(*columns)
