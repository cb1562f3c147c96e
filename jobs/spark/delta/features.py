"""Which Delta tables the connector may read and write: plain parquet must be able to honour the protocol."""

from __future__ import annotations

from deltalake import DeltaTable

from jobs.spark.delta.catalog import TableRef
from jobs.spark.delta.errors import UnsupportedFeatureError

# Reader features whose data files plain parquet reads correctly (delta-rs itself reads the log).
READABLE_FEATURES = frozenset({"timestampNtz", "v2Checkpoint", "vacuumProtocolCheck",
                               "variantType", "variantType-preview"})
# Writer features whose rules this connector keeps when it adds or removes whole files.
WRITABLE_FEATURES = frozenset({"appendOnly", "invariants", "timestampNtz", "v2Checkpoint", "vacuumProtocolCheck",
                               "domainMetadata", "checkConstraints", "changeDataFeed", "variantType",
                               "variantType-preview"})
_HINT = "Use the JVM delta-spark path (LAKEPORT_DELTA_MODE=jvm) for this table."


def _refuse(ref: TableRef, feature: str, doing: str, why: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(
        f"Delta table {ref} uses the table feature '{feature}', which the embedded Delta connector cannot "
        f"{doing} through plain parquet ({why}). {_HINT}",
        feature=feature,
    )


def check_readable(table: DeltaTable, ref: TableRef) -> None:
    """Refuse tables whose rows plain parquet would read wrongly (deleted rows, renamed physical columns, …)."""
    protocol = table.protocol()
    config = table.metadata().configuration
    mapping = (config.get("delta.columnMapping.mode") or "none").lower()
    if protocol.min_reader_version >= 2 and mapping != "none":
        raise _refuse(ref, "columnMapping", "read", f"column mapping mode '{mapping}' renames physical columns")
    if protocol.min_reader_version > 3:
        raise _refuse(ref, f"readerVersion{protocol.min_reader_version}", "read", "unknown reader protocol")
    features = set(protocol.reader_features or [])
    if "deletionVectors" in features:
        raise _refuse(ref, "deletionVectors", "read", "deleted rows are recorded outside the parquet files")
    if "columnMapping" in features and mapping != "none":
        raise _refuse(ref, "columnMapping", "read", "physical column names differ from the schema")
    for feature in sorted(features - READABLE_FEATURES - {"columnMapping"}):
        raise _refuse(ref, feature, "read", "the feature changes how data files must be read")
    schema_json = table.schema().to_json()
    if '"variant"' in schema_json:
        raise _refuse(ref, "variantType", "read", "variant columns need Delta's variant encoding")


def check_writable(table: DeltaTable, ref: TableRef, *, removes_files: bool) -> None:
    """Refuse writes that would break a rule the table's protocol or properties ask writers to keep."""
    check_readable(table, ref)
    protocol = table.protocol()
    config = {k: (v or "") for k, v in table.metadata().configuration.items()}
    for feature in sorted(set(protocol.writer_features or []) - WRITABLE_FEATURES - {"columnMapping"}):
        raise _refuse(ref, feature, "write", "writers must maintain extra state for it")
    if removes_files and config.get("delta.appendOnly", "").lower() == "true":
        raise _refuse(ref, "appendOnly", "overwrite", "the table only accepts appends")
    if removes_files and config.get("delta.enableChangeDataFeed", "").lower() == "true":
        raise _refuse(ref, "changeDataFeed", "overwrite", "removed rows must be written to the change feed")
    if any(k.startswith("delta.constraints.") for k in config):
        raise _refuse(ref, "checkConstraints", "write", "CHECK constraints are not evaluated on written rows")
    if config.get("delta.enableRowTracking", "").lower() == "true":
        raise _refuse(ref, "rowTracking", "write", "row ids must be assigned on write")
    schema_json = table.schema().to_json()
    for marker, feature in (("delta.invariants", "invariants"), ("delta.generationExpression", "generatedColumns"),
                            ("delta.identity.", "identityColumns")):
        if marker in schema_json:
            raise _refuse(ref, feature, "write", "column rules are not evaluated on written rows")
