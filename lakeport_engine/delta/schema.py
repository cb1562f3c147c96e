"""Schemas between Spark and Delta: both speak the same struct JSON, with a few types only one side has."""

from __future__ import annotations

import json
import re
from typing import Any

from deltalake import DeltaTable
from deltalake import Schema as DeltaSchema
from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from lakeport_engine.delta.errors import DeltaConnectorError

_PRIMITIVES = {
    "string", "long", "integer", "short", "byte", "float", "double", "boolean", "binary", "date",
    "timestamp", "timestamp_ntz",
}
_DECIMAL = re.compile(r"^decimal\(\d+,\s*\d+\)$")
_CHAR = re.compile(r"^(var)?char\(\d+\)$")
# Spark keeps the declared CHAR/VARCHAR type in field metadata; Delta tables store such columns as strings.
_SPARK_ONLY_METADATA = ("__CHAR_VARCHAR_TYPE_STRING",)


def spark_schema(schema: DeltaSchema) -> StructType:
    """The Spark StructType of a Delta table schema."""
    return StructType.fromJson(json.loads(schema.to_json()))


def column_mapping_mode(table: DeltaTable) -> str:
    """`none`, `name` or `id`: how the table's data files name its columns (`delta.columnMapping.mode`)."""
    return (table.metadata().configuration.get("delta.columnMapping.mode") or "none").lower()


PHYSICAL_NAME = "delta.columnMapping.physicalName"


def physical_schema(schema: StructType) -> StructType:
    """The schema as the data files of a column-mapped table name it: physical names at every nesting level.

    Types stay the table's current ones; casting a struct read this way to the logical type renames its fields
    by position.
    """
    return StructType([_physical_field(f) for f in schema.fields])


def _physical_field(field: StructField) -> StructField:
    name = (field.metadata or {}).get(PHYSICAL_NAME, field.name)
    return StructField(name, _physical_type(field.dataType), field.nullable)


def _physical_type(dtype: DataType) -> DataType:
    if isinstance(dtype, StructType):
        return physical_schema(dtype)
    if isinstance(dtype, ArrayType):
        return ArrayType(_physical_type(dtype.elementType), dtype.containsNull)
    if isinstance(dtype, MapType):
        return MapType(_physical_type(dtype.keyType), _physical_type(dtype.valueType), dtype.valueContainsNull)
    return dtype


def delta_schema(schema: StructType, *, table: str) -> DeltaSchema:
    """The Delta schema for a Spark StructType; types Delta cannot store are a clear error naming the column."""
    fields = [_field(f, table=table, path=f["name"]) for f in json.loads(schema.json())["fields"]]
    return DeltaSchema.from_json(json.dumps({"type": "struct", "fields": fields}))


def _field(field: dict[str, Any], *, table: str, path: str) -> dict[str, Any]:
    metadata = {k: v for k, v in (field.get("metadata") or {}).items() if k not in _SPARK_ONLY_METADATA}
    return {"name": field["name"], "type": _type(field["type"], table=table, path=path),
            "nullable": field.get("nullable", True), "metadata": metadata}


def _type(dtype: Any, *, table: str, path: str) -> Any:
    if isinstance(dtype, str):
        if dtype in _PRIMITIVES or _DECIMAL.match(dtype):
            return dtype
        if _CHAR.match(dtype):
            return "string"
        raise DeltaConnectorError(
            f"column '{path}' of {table} has type '{dtype}', which a Delta table cannot store "
            "(cast it to a supported type, e.g. STRING or BIGINT)."
        )
    kind = dtype.get("type")
    if kind == "struct":
        return {"type": "struct",
                "fields": [_field(f, table=table, path=f"{path}.{f['name']}") for f in dtype["fields"]]}
    if kind == "array":
        return {"type": "array", "elementType": _type(dtype["elementType"], table=table, path=f"{path}[]"),
                "containsNull": dtype.get("containsNull", True)}
    if kind == "map":
        return {"type": "map", "keyType": _type(dtype["keyType"], table=table, path=f"{path}.key"),
                "valueType": _type(dtype["valueType"], table=table, path=f"{path}.value"),
                "valueContainsNull": dtype.get("valueContainsNull", True)}
    raise DeltaConnectorError(f"column '{path}' of {table} has type '{kind}', which a Delta table cannot store.")


def same_columns(left: StructType, right: StructType) -> bool:
    """True when two schemas have the same column names and types (nullability and comments aside)."""
    def shape(s: StructType) -> list[tuple[str, str]]:
        return [(f.name.lower(), f.dataType.simpleString()) for f in s.fields]

    return shape(left) == shape(right)
