"""Table changes and maintenance of embedded Delta tables: ALTER TABLE, RESTORE, DESCRIBE DETAIL, OPTIMIZE and
VACUUM, each one delta-rs operation (`DeltaTable.alter`, `restore`, `optimize`, `vacuum`) committed with the
connector's commitInfo. Mixed into `EmbeddedDelta`.

Like every write of the connector, each goes through `check_writable` first, and a commit moves the run's pin
(and the temp views kept over the table) to the version committed, so the run's next read sees it.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sqlglot
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from lakeport_engine.delta import column_mapping as cm
from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.commit import COMMIT_ID_KEY, STAGING_PREFIX, DeltaWriter
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.features import check_writable
from lakeport_engine.delta.schema import column_mapping_mode, delta_schema, spark_schema
from lakeport_engine.delta.snapshot import add_actions, open_table
from lakeport_engine.delta.statements import Plan, Reference
from lakeport_engine.delta.table_sql import TablePlan

if TYPE_CHECKING:
    from lakeport_engine.delta.storage import Storage
    from lakeport_engine.pins import SnapshotPins

DEFAULT_RETENTION = "interval 1 week"
RETENTION_CHECK_ENV = "LAKEPORT_DELTA_RETENTION_CHECK"
_UNITS = {"microsecond": 1e-6 / 3600, "millisecond": 1e-3 / 3600, "second": 1 / 3600, "minute": 1 / 60,
          "hour": 1.0, "day": 24.0, "week": 168.0}
_FILE_STATS = T.StructType([T.StructField(n, t, True) for n, t in (
    ("min", T.LongType()), ("max", T.LongType()), ("avg", T.DoubleType()), ("totalFiles", T.LongType()),
    ("totalSize", T.LongType()))])
OPTIMIZE_RESULT = T.StructType([
    T.StructField("path", T.StringType(), True),
    T.StructField("metrics", T.StructType([
        T.StructField("numFilesAdded", T.LongType(), True),
        T.StructField("numFilesRemoved", T.LongType(), True),
        T.StructField("filesAdded", _FILE_STATS, True),
        T.StructField("filesRemoved", _FILE_STATS, True),
        T.StructField("partitionsOptimized", T.LongType(), True),
        T.StructField("zOrderStats", T.StringType(), True),
        T.StructField("numBatches", T.LongType(), True),
        T.StructField("totalConsideredFiles", T.LongType(), True),
        T.StructField("totalFilesSkipped", T.LongType(), True),
        T.StructField("preserveInsertionOrder", T.BooleanType(), True),
    ]), True),
])
RESTORE_RESULT = ("table_size_after_restore BIGINT, num_of_files_after_restore BIGINT, num_removed_files BIGINT, "
                  "num_restored_files BIGINT, removed_files_size BIGINT, restored_files_size BIGINT")
DETAIL = T.StructType([
    T.StructField("format", T.StringType(), True),
    T.StructField("id", T.StringType(), True),
    T.StructField("name", T.StringType(), True),
    T.StructField("description", T.StringType(), True),
    T.StructField("location", T.StringType(), True),
    T.StructField("createdAt", T.TimestampType(), True),
    T.StructField("lastModified", T.TimestampType(), True),
    T.StructField("partitionColumns", T.ArrayType(T.StringType()), True),
    T.StructField("numFiles", T.LongType(), True),
    T.StructField("sizeInBytes", T.LongType(), True),
    T.StructField("properties", T.MapType(T.StringType(), T.StringType()), True),
    T.StructField("minReaderVersion", T.IntegerType(), True),
    T.StructField("minWriterVersion", T.IntegerType(), True),
    T.StructField("tableFeatures", T.ArrayType(T.StringType()), True),
])


class TableCommands:
    """ALTER TABLE / RESTORE / DESCRIBE DETAIL / OPTIMIZE / VACUUM of `EmbeddedDelta` (see the module docstring)."""

    if TYPE_CHECKING:  # provided by EmbeddedDelta
        spark: SparkSession

        @property
        def pins(self) -> SnapshotPins: ...
        def _catalog(self, name: str) -> DeltaCatalog: ...
        def _writer(self, name: str) -> DeltaWriter: ...
        def _storage(self, catalog: DeltaCatalog) -> Storage: ...
        def _committed(self, ref: TableRef, version: int, frame: DataFrame | None) -> None: ...
        def _ddl_schema(self, ref: TableRef, ddl: str, what: str = "") -> T.StructType: ...
        def _table_properties(self, ref: TableRef, properties: Mapping[str, str]) -> dict[str, str]: ...
        def _timestamp(self, reference: Reference) -> dt.datetime: ...

    # ---- ALTER TABLE ---------------------------------------------------------------------------------
    def _run_alter_table(self, plan: Plan) -> None:
        """ADD COLUMNS, SET/UNSET TBLPROPERTIES, ALTER COLUMN … COMMENT: one metadata-only commit each."""
        assert isinstance(plan, TablePlan) and plan.target is not None
        ref = plan.target
        table = open_table(self._catalog(ref.catalog), ref)
        check_writable(table, ref, removes_files=False)
        schema = spark_schema(table.schema())
        names = {f.name.lower(): f.name for f in schema.fields}
        writer = self._writer(ref.catalog)
        if plan.action in ("rename_column", "drop_columns") or (
                plan.action == "set_properties" and any(k.lower() == cm.MODE.lower() for k in plan.properties)) or (
                plan.action == "add_columns" and cm.is_mapped(table)):
            version = self._alter_mapped(plan, table, schema)
            self._committed(ref, version, self._empty(ref))
            return None
        if plan.action == "add_columns":
            added = self._ddl_schema(ref, plan.columns_ddl or "", f"ALTER TABLE {ref} ADD COLUMNS")
            seen: set[str] = set()
            for column in added.fields:
                if column.name.lower() in names or column.name.lower() in seen:
                    raise DeltaConnectorError(f"ALTER TABLE {ref} ADD COLUMNS: column '{column.name}' already exists.")
                seen.add(column.name.lower())
                if not column.nullable:
                    raise DeltaConnectorError(f"ALTER TABLE {ref} ADD COLUMNS: '{column.name}' cannot be NOT NULL "
                                              "(rows already written have no value for it); add it nullable.")
            fields = delta_schema(added, table=str(ref)).fields
            version, _ = writer.operate(ref, table, "ADD COLUMNS",
                                        lambda props: table.alter.add_columns(fields, commit_properties=props))
        elif plan.action == "set_properties":
            properties = self._table_properties(ref, plan.properties)
            for key, value in properties.items():
                if key.lower() == "delta.deletedfileretentionduration":
                    retention_hours(value, f"ALTER TABLE {ref} SET TBLPROPERTIES")
            version, _ = writer.operate(ref, table, "SET TBLPROPERTIES",
                                        lambda props: table.alter.set_table_properties(properties,
                                                                                       commit_properties=props))
        elif plan.action == "unset_properties":
            current = {k.lower() for k in table.metadata().configuration}
            missing = [k for k in plan.keys if k.lower() not in current]
            if missing and not plan.if_exists:
                raise DeltaConnectorError(f"ALTER TABLE {ref} UNSET TBLPROPERTIES: {', '.join(missing)} is not set "
                                          "on the table (use UNSET TBLPROPERTIES IF EXISTS).")
            present = [k for k in plan.keys if k.lower() in current]
            if not present:
                return None
            raise DeltaConnectorError(
                f"ALTER TABLE {ref} UNSET TBLPROPERTIES ({', '.join(present)}) is not supported by the embedded Delta "
                "connector: delta-rs 1.6 has no operation that removes a table property. SET it to its default "
                "value instead (e.g. 'delta.appendOnly' = 'false').")
        elif plan.action == "column_comment":
            target = names.get((plan.column or "").lower())
            if target is None:
                raise DeltaConnectorError(f"ALTER TABLE {ref} ALTER COLUMN: '{plan.column}' is not a column of the "
                                          f"table (columns: {', '.join(schema.names)}).")
            comment = plan.comment or ""
            version, _ = writer.operate(ref, table, "CHANGE COLUMN", lambda props: table.alter.set_column_metadata(
                target, {"comment": comment}, commit_properties=props))
        else:  # pragma: no cover — the reader only makes the four actions above
            raise DeltaConnectorError(f"ALTER TABLE {ref}: unknown action '{plan.action}'.")
        self._committed(ref, version, self._empty(ref))
        return None

    def _alter_mapped(self, plan: TablePlan, table: Any, schema: T.StructType) -> int:
        """Column mapping's ALTER TABLE forms, each one metadata-only commit (`column_mapping.py`): SET TBLPROPERTIES
        ('delta.columnMapping.mode' = 'name') enabling it, RENAME COLUMN, DROP COLUMNS, and ADD COLUMNS on a mapped
        table (delta-rs 1.6 refuses these on column-mapped tables)."""
        assert plan.target is not None
        ref = plan.target
        what = f"ALTER TABLE {ref}"
        names = {f.name.lower(): f.name for f in schema.fields}
        partition_cols = {c.lower() for c in table.metadata().partition_columns}
        mode = column_mapping_mode(table)
        configuration = {k: v or "" for k, v in table.metadata().configuration.items()}
        current = json.loads(table.schema().to_json())
        protocol = None
        parameters: dict[str, Any]
        extra = self._writer(ref.catalog).extra_metadata
        info: dict[str, Any] = {"lakeport.operation": "", **extra}
        if plan.action == "set_properties":
            wanted = next(v for k, v in plan.properties.items() if k.lower() == cm.MODE.lower()).lower()
            others = {k: v for k, v in plan.properties.items() if k.lower() != cm.MODE.lower()}
            if wanted != "name" and wanted != mode:
                raise DeltaConnectorError(
                    f"{what} SET TBLPROPERTIES ('{cm.MODE}' = '{wanted}'): the embedded Delta connector enables column "
                    f"mapping in mode 'name' only (the table's mode is '{mode}'); Delta does not turn it off again.")
            configuration.update(self._table_properties(ref, others))
            operation, parameters = "SET TBLPROPERTIES", {"properties": {**others, cm.MODE: wanted}}
            if mode == "none":
                current, last = cm.mapped_schema(current)
                configuration[cm.MODE], configuration[cm.MAX_ID] = "name", str(last)
                protocol = cm.upgraded_protocol(table)
        else:
            if mode == "none":
                raise DeltaConnectorError(
                    f"{what} {'RENAME COLUMN' if plan.action == 'rename_column' else 'DROP COLUMNS'} needs column "
                    f"mapping, as in Delta: enable it first with ALTER TABLE {ref} SET TBLPROPERTIES "
                    f"('{cm.MODE}' = 'name') (the table then needs readers of protocol 2 and writers of protocol 5).")
            if plan.action == "add_columns":
                added = self._ddl_schema(ref, plan.columns_ddl or "", f"{what} ADD COLUMNS")
                for column in added.fields:
                    if column.name.lower() in names:
                        raise DeltaConnectorError(f"{what} ADD COLUMNS: column '{column.name}' already exists.")
                    if not column.nullable:
                        raise DeltaConnectorError(f"{what} ADD COLUMNS: '{column.name}' cannot be NOT NULL "
                                                  "(rows already written have no value for it); add it nullable.")
                fields = json.loads(delta_schema(added, table=str(ref)).to_json())["fields"]
                current, last = cm.with_new_fields(current, fields, cm.max_column_id(table))
                configuration[cm.MAX_ID] = str(last)
                operation, parameters = "ADD COLUMNS", {"columns": [f["name"] for f in fields]}
            elif plan.action == "rename_column":
                old, new = plan.column or "", plan.new_name or ""
                if "." in old or "." in new:
                    raise DeltaConnectorError(f"{what} RENAME COLUMN {old}: renaming nested fields is not supported "
                                              "by the embedded Delta connector (top-level columns are).")
                if old.lower() not in names:
                    raise DeltaConnectorError(f"{what} RENAME COLUMN: '{old}' is not a column of the table "
                                              f"(columns: {', '.join(schema.names)}).")
                if new.lower() in names and new.lower() != old.lower():
                    raise DeltaConnectorError(f"{what} RENAME COLUMN: column '{new}' already exists.")
                if old.lower() in partition_cols:
                    raise DeltaConnectorError(f"{what} RENAME COLUMN: '{old}' is a partition column; the embedded "
                                              "Delta connector renames data columns only.")
                current = cm.renamed(current, names[old.lower()], new)
                operation, parameters = "RENAME COLUMN", {"oldColumnPath": names[old.lower()], "newColumnPath": new}
            else:  # drop_columns
                missing = [c for c in plan.keys if c.lower() not in names]
                if missing and not plan.if_exists:
                    raise DeltaConnectorError(f"{what} DROP COLUMNS: {', '.join(repr(c) for c in missing)} is not a column of the "
                                              f"table (columns: {', '.join(schema.names)}).")
                drop = [names[c.lower()] for c in plan.keys if c.lower() in names]
                if any("." in c for c in plan.keys):
                    raise DeltaConnectorError(f"{what} DROP COLUMNS: dropping nested fields is not supported by the "
                                              "embedded Delta connector (top-level columns are).")
                if any(c.lower() in partition_cols for c in drop):
                    raise DeltaConnectorError(f"{what} DROP COLUMNS: a partition column cannot be dropped (Delta "
                                              "refuses it too).")
                if len(set(drop)) >= len(schema.fields) - len(partition_cols):
                    raise DeltaConnectorError(f"{what} DROP COLUMNS: a table keeps at least one data column.")
                if not drop:
                    return int(table.version())
                current = cm.dropped(current, drop)
                operation, parameters = "DROP COLUMNS", {"columns": drop}
        info["lakeport.operation"] = operation
        info[COMMIT_ID_KEY] = uuid.uuid4().hex[:16]
        return cm.commit_metadata(self._catalog(ref.catalog), ref, table, schema=current, configuration=configuration,
                                  operation=operation, parameters=parameters, commit_info=info, protocol=protocol)

    # ---- RESTORE / DESCRIBE DETAIL -------------------------------------------------------------------
    def _run_restore(self, plan: Plan) -> DataFrame:
        """RESTORE TABLE t TO VERSION|TIMESTAMP AS OF …: one commit making the table what it was; Delta's metrics."""
        assert isinstance(plan, TablePlan) and plan.target is not None
        ref = plan.target
        catalog = self._catalog(ref.catalog)
        table = open_table(catalog, ref)
        check_writable(table, ref, removes_files=True)
        latest = table.version()
        target: int | dt.datetime
        if plan.restore_version is not None:
            if plan.restore_version > latest:
                raise DeltaConnectorError(f"RESTORE TABLE {ref} TO VERSION AS OF {plan.restore_version}: the table's "
                                          f"latest version is {latest}.")
            target = plan.restore_version
        else:
            target = self._timestamp(Reference(ref, 0, 0, timestamp_sql=plan.restore_timestamp_sql))
        old = open_table(catalog, ref)
        try:
            old.load_as_version(target)
        except Exception as exc:  # noqa: BLE001 — delta-rs: version cleaned up or timestamp before the first commit
            raise DeltaConnectorError(f"RESTORE TABLE {ref}: there is no version to restore at "
                                      f"{'version ' + str(target) if isinstance(target, int) else target.isoformat()}"
                                      f" ({_first_line(exc)}).") from exc
        if isinstance(target, dt.datetime) and old.version() == 0:
            first = old.history(1)
            created = first[0].get("timestamp") if first else None
            if created is not None and created > target.timestamp() * 1000:
                raise DeltaConnectorError(f"RESTORE TABLE {ref}: there is no version at or before "
                                          f"{target.isoformat()} (the table was created at "
                                          f"{_time(int(created)).isoformat()}).")  # type: ignore[union-attr]
        check_writable(old, ref, removes_files=True)
        before = {f["path"]: int(f["size_bytes"]) for f in add_actions(table)}
        after = {f["path"]: int(f["size_bytes"]) for f in add_actions(old)}
        version, _ = self._writer(ref.catalog).operate(
            ref, table, "RESTORE", lambda props: table.restore(target, commit_properties=props))
        self._committed(ref, version, self._empty(ref))
        removed = [s for p, s in before.items() if p not in after]
        restored = [s for p, s in after.items() if p not in before]
        return self.spark.createDataFrame(
            [(sum(after.values()), len(after), len(removed), len(restored), sum(removed), sum(restored))],
            RESTORE_RESULT)

    def _run_describe_detail(self, plan: Plan) -> DataFrame:
        """DESCRIBE DETAIL t: one row in Delta's columns, of the table's latest version."""
        assert plan.target is not None
        ref = plan.target
        table = open_table(self._catalog(ref.catalog), ref)
        meta, protocol = table.metadata(), table.protocol()
        files = add_actions(table)
        last = table.history(1)
        features = sorted(set(protocol.reader_features or []) | set(protocol.writer_features or []))
        row = ("delta", meta.id, f"{ref.catalog}.{ref.database}.{ref.table}", meta.description,
               table.table_uri.rstrip("/"), _time(meta.created_time), _time(last[0].get("timestamp") if last else None),
               list(meta.partition_columns), len(files), sum(int(f["size_bytes"]) for f in files),
               {k: v or "" for k, v in meta.configuration.items()}, protocol.min_reader_version,
               protocol.min_writer_version, features)
        return self.spark.createDataFrame([row], DETAIL)

    # ---- OPTIMIZE / VACUUM ---------------------------------------------------------------------------
    def _run_optimize(self, plan: Plan) -> DataFrame:
        """OPTIMIZE t [WHERE partitions] [ZORDER BY (…)]: delta-rs compaction, committed with dataChange=false."""
        assert isinstance(plan, TablePlan) and plan.target is not None
        ref = plan.target
        table = open_table(self._catalog(ref.catalog), ref)
        check_writable(table, ref, removes_files=True)
        if cm.is_mapped(table):
            raise DeltaConnectorError(f"OPTIMIZE {ref}: the table uses column mapping, and delta-rs 1.6 (which "
                                      "compacts for this connector) does not rewrite column-mapped tables.")
        partition_cols = list(table.metadata().partition_columns)
        filters = partition_filters(plan.where, partition_cols, f"OPTIMIZE {ref} WHERE") if plan.where else None
        columns = {f.name.lower(): f.name for f in spark_schema(table.schema()).fields}
        zorder = []
        for name in plan.zorder:
            if name.lower() not in columns:
                raise DeltaConnectorError(f"OPTIMIZE {ref} ZORDER BY: '{name}' is not a column of the table.")
            if name.lower() in {c.lower() for c in partition_cols}:
                raise DeltaConnectorError(f"OPTIMIZE {ref} ZORDER BY: '{name}' is a partition column; Z-ordering "
                                          "by a partition column has no effect (Delta refuses it).")
            zorder.append(columns[name.lower()])
        optimizer = table.optimize
        read_version = table.version()  # delta-rs moves `table` itself to the version it commits

        def run(props: Any) -> dict[str, Any]:
            if zorder:
                return optimizer.z_order(zorder, partition_filters=filters, commit_properties=props)
            return optimizer.compact(partition_filters=filters, commit_properties=props)

        version, answer = self._writer(ref.catalog).operate(ref, table, "OPTIMIZE", run)
        if version != read_version:
            self._committed(ref, version, self._empty(ref))
        metrics = dict(answer) if isinstance(answer, dict) else {}
        return self.spark.createDataFrame([(table.table_uri.rstrip("/"), (
            _int(metrics.get("numFilesAdded")), _int(metrics.get("numFilesRemoved")),
            _file_stats(metrics.get("filesAdded")), _file_stats(metrics.get("filesRemoved")),
            _int(metrics.get("partitionsOptimized")),
            json.dumps(metrics["zOrderStats"]) if metrics.get("zOrderStats") is not None else None,
            _int(metrics.get("numBatches")), _int(metrics.get("totalConsideredFiles")),
            _int(metrics.get("totalFilesSkipped")), metrics.get("preserveInsertionOrder")))], OPTIMIZE_RESULT)

    def _run_vacuum(self, plan: Plan) -> DataFrame:
        """VACUUM t [RETAIN n HOURS] [DRY RUN]: delete files no version within the retention needs."""
        assert isinstance(plan, TablePlan) and plan.target is not None
        ref = plan.target
        table = open_table(self._catalog(ref.catalog), ref)
        check_writable(table, ref, removes_files=False)
        configured = table.metadata().configuration.get("delta.deletedFileRetentionDuration") or DEFAULT_RETENTION
        minimum = retention_hours(configured, f"VACUUM {ref}")
        hours = minimum if plan.retain_hours is None else plan.retain_hours
        if hours < minimum and _retention_check_on():
            raise DeltaConnectorError(
                f"VACUUM {ref} RETAIN {plan.retain_hours:g} HOURS: the retention is below the table's "
                f"delta.deletedFileRetentionDuration ('{configured}' = {minimum:g} hours); files that readers of "
                f"recent versions still need could be deleted. Retain at least {minimum:g} hours, or lower the table's "
                "delta.deletedFileRetentionDuration with ALTER TABLE … SET TBLPROPERTIES.")
        read_version = table.version()
        retain = math.ceil(hours)  # delta-rs takes whole hours: never round the retention down
        version, answer = self._writer(ref.catalog).operate(
            ref, table, "VACUUM", lambda props: table.vacuum(retention_hours=retain, dry_run=plan.dry_run,
                                                             enforce_retention_duration=False, full=True,
                                                             commit_properties=props))
        files = [str(f) for f in answer] if isinstance(answer, list) else []
        files += self._abandoned_staging(ref, hours, delete=not plan.dry_run)
        if version != read_version:
            self._committed(ref, version, None)
        root = table.table_uri.rstrip("/")
        if plan.dry_run:
            return self.spark.createDataFrame([(f"{root}/{f}",) for f in sorted(files)], "path STRING")
        return self.spark.createDataFrame([(root, len(files))], "path STRING, numDeletedFiles BIGINT")

    def _abandoned_staging(self, ref: TableRef, hours: float, *, delete: bool) -> list[str]:
        """Staging directories of writes that never finished (a killed engine), untouched for `hours`: Delta's vacuum
        skips `_`-prefixed directories, so VACUUM removes these itself. Answers their paths under the table root."""
        catalog = self._catalog(ref.catalog)
        storage = self._storage(catalog)
        root = catalog.table_uri(ref)
        cutoff = (dt.datetime.now(dt.UTC).timestamp() - hours * 3600) * 1000
        stale = []
        for name in storage.list_dirs(root):
            if not name.startswith(STAGING_PREFIX):
                continue
            files = storage.list_files(f"{root}/{name}")
            if max((f.modification_time for f in files), default=0) <= cutoff:
                stale.append(name)
                if delete:
                    storage.delete(f"{root}/{name}")
        return stale

    def _empty(self, ref: TableRef) -> DataFrame:
        """No rows, the table's latest schema: what lineage records as written by a commit that changed no data."""
        table = open_table(self._catalog(ref.catalog), ref)
        return self.spark.createDataFrame([], spark_schema(table.schema()))


def _retention_check_on() -> bool:
    """False only when the operator turned VACUUM's retention check off for the engine
    (`LAKEPORT_DELTA_RETENTION_CHECK=false`, Delta's `retentionDurationCheck.enabled`); SQL cannot."""
    return os.environ.get(RETENTION_CHECK_ENV, "true").strip().lower() not in ("false", "0", "no", "off")


def retention_hours(value: str, what: str) -> float:
    """Hours of a Delta interval property (`interval 1 week`, `interval 36 hours`, `7 days`)."""
    match = re.fullmatch(r"\s*(?:interval\s+)?(\d+(?:\.\d+)?)\s+([a-z]+?)s?\s*", value.lower())
    if match is None or match.group(2) not in _UNITS:
        raise DeltaConnectorError(f"{what}: '{value}' is not an interval (e.g. 'interval 7 days', 'interval 36 "
                                  "hours').")
    return float(match.group(1)) * _UNITS[match.group(2)]


_OPS: dict[type[exp.Expr], str] = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">",
                                   exp.GTE: ">="}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def partition_filters(where: str, partition_cols: list[str], what: str) -> list[tuple[str, str, Any]]:
    """delta-rs partition filters for a WHERE that is an AND of comparisons/IN of partition columns with literals;
    anything else is refused (OPTIMIZE only selects whole partitions, as Delta's)."""
    try:
        tree = sqlglot.parse_one(where, dialect="spark")
    except (ParseError, TokenError) as exc:
        raise DeltaConnectorError(f"{what}: {str(exc).splitlines()[0]}") from exc
    by_lower = {c.lower(): c for c in partition_cols}
    rule = (f"only comparisons of partition columns ({', '.join(partition_cols) or 'the table has none'}) with "
            "literals, joined by AND, are allowed")
    filters: list[tuple[str, str, Any]] = []
    for term in tree.flatten() if isinstance(tree, exp.And) else [tree]:
        while isinstance(term, exp.Paren):
            term = term.this
        negated = isinstance(term, exp.Not) and isinstance(term.this, exp.In)
        node = term.this if negated else term
        if isinstance(node, exp.In) and isinstance(node.this, exp.Column):
            column = node.this.name
            op = "not in" if negated else "in"
            value: str | list[str] = [_literal(v, what, rule) for v in node.expressions]
        elif type(node) in _OPS:
            op = _OPS[type(node)]
            left, right = node.this, node.expression
            if not isinstance(left, exp.Column) and isinstance(right, exp.Column):
                left, right, op = right, left, _FLIP[op]
            if not isinstance(left, exp.Column):
                raise DeltaConnectorError(f"{what}: '{term.sql(dialect='spark')}' — {rule}.")
            column, value = left.name, _literal(right, what, rule)
        else:
            raise DeltaConnectorError(f"{what}: '{term.sql(dialect='spark')}' — {rule}.")
        if column.lower() not in by_lower:
            raise DeltaConnectorError(f"{what}: '{column}' is not a partition column — {rule}.")
        filters.append((by_lower[column.lower()], op, value))
    return filters


def _literal(node: exp.Expr, what: str, rule: str) -> str:
    negative = isinstance(node, exp.Neg)
    inner = node.this if negative else node
    if isinstance(inner, exp.Literal):
        return ("-" if negative else "") + inner.name
    if isinstance(inner, exp.Boolean) and not negative:
        return "true" if inner.this else "false"
    raise DeltaConnectorError(f"{what}: '{node.sql(dialect='spark')}' is not a literal — {rule}.")


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _file_stats(value: Any) -> tuple[Any, ...] | None:
    data = json.loads(value) if isinstance(value, str) else value
    if not isinstance(data, dict):
        return None
    return (_int(data.get("min")), _int(data.get("max")),
            None if data.get("avg") is None else float(data["avg"]), _int(data.get("totalFiles")),
            _int(data.get("totalSize")))


def _time(millis: int | None) -> dt.datetime | None:
    return None if millis is None else dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

