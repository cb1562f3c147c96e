"""Which Delta tables the connector may read and write: plain parquet must be able to honour the protocol."""

from __future__ import annotations

from deltalake import DeltaTable

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.errors import UnsupportedFeatureError
from lakeport_engine.delta.schema import column_mapping_mode

# Reader features this connector honours: delta-rs reads the log and the deletion vectors, Spark's parquet reader
# reads data files by physical name, widens types and decodes variants (`snapshot.py`).
READABLE_FEATURES = frozenset({"timestampNtz", "v2Checkpoint", "vacuumProtocolCheck", "variantType",
                               "variantType-preview", "deletionVectors", "columnMapping", "typeWidening",
                               "typeWidening-preview"})
# Writer features whose rules this connector keeps when it adds or removes whole files (column mapping: it writes
# physical names, `column_mapping.py`).
WRITABLE_FEATURES = frozenset({"appendOnly", "invariants", "timestampNtz", "v2Checkpoint", "vacuumProtocolCheck",
                               "domainMetadata", "checkConstraints", "changeDataFeed", "variantType",
                               "variantType-preview", "deletionVectors", "columnMapping"})
_HINT = "Use the JVM delta-spark path (LAKEPORT_DELTA_MODE=jvm) for this table."


def _refuse(table: DeltaTable, ref: TableRef, feature: str, doing: str, why: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(
        f"Delta table {ref} at version {table.version()} uses the table feature '{feature}', which the embedded "
        f"Delta connector cannot {doing} ({why}). {_HINT}",
        feature=feature,
    )


def check_readable(table: DeltaTable, ref: TableRef) -> None:
    """Refuse a loaded version whose rows this connector would read wrongly (checked per version)."""
    protocol = table.protocol()
    if protocol.min_reader_version > 3:
        raise _refuse(table, ref, f"readerVersion{protocol.min_reader_version}", "read", "unknown reader protocol")
    for feature in sorted(set(protocol.reader_features or []) - READABLE_FEATURES):
        raise _refuse(table, ref, feature, "read", "the feature changes how data files must be read")
    mode = column_mapping_mode(table)
    if mode not in ("none", "name", "id"):
        raise _refuse(table, ref, "columnMapping", "read", f"unknown column mapping mode '{mode}'")


def check_writable(table: DeltaTable, ref: TableRef, *, removes_files: bool) -> None:
    """Refuse writes that would break a rule the table's protocol or properties ask writers to keep."""
    check_readable(table, ref)
    protocol = table.protocol()
    config = {k: (v or "") for k, v in table.metadata().configuration.items()}
    if column_mapping_mode(table) == "id":
        raise _refuse(table, ref, "columnMapping", "write",
                      "mode 'id' needs parquet field ids in new data files; mode 'name' is written")
    for feature in sorted(set(protocol.writer_features or []) - WRITABLE_FEATURES):
        raise _refuse(table, ref, feature, "write", "writers must maintain extra state for it")
    if removes_files and "deletionVectors" in set(protocol.reader_features or []):
        raise _refuse(table, ref, "deletionVectors", "overwrite",
                      "removing files that carry deletion vectors must name the vectors")
    if removes_files and config.get("delta.appendOnly", "").lower() == "true":
        raise _refuse(table, ref, "appendOnly", "overwrite", "the table only accepts appends")
    if removes_files and config.get("delta.enableChangeDataFeed", "").lower() == "true":
        raise _refuse(table, ref, "changeDataFeed", "overwrite", "removed rows must be written to the change feed")
    if any(k.startswith("delta.constraints.") for k in config):
        raise _refuse(table, ref, "checkConstraints", "write", "CHECK constraints are not evaluated on written rows")
    if config.get("delta.enableRowTracking", "").lower() == "true":
        raise _refuse(table, ref, "rowTracking", "write", "row ids must be assigned on write")
    schema_json = table.schema().to_json()
    for marker, feature in (("delta.invariants", "invariants"), ("delta.generationExpression", "generatedColumns"),
                            ("delta.identity.", "identityColumns")):
        if marker in schema_json:
            raise _refuse(table, ref, feature, "write", "column rules are not evaluated on written rows")
