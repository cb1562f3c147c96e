"""`EmbeddedIceberg`: Iceberg catalogs in Spark SQL without iceberg-spark jars.

pyiceberg owns the metadata (its SQL catalog in the warehouse); Spark's parquet reader and writer move the data.
Statements are read with the Delta connector's `StatementReader` (same grammar, same name rules): reads register
each referenced snapshot as a temp view and hand the rewritten statement on (to the Delta connector when it names
Delta tables, else to Spark); writes are one pyiceberg commit each. See docs/iceberg.md.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import shutil
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from lakeport_engine.datasets import Dataset, iceberg_dataset
from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.commit import align
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.metadata import DESCRIBE, SHOW_DATABASES, SHOW_TABLES, like
from lakeport_engine.delta.statements import Plan, Reference, StatementReader, rewrite
from lakeport_engine.delta.table_sql import TablePlan, read_table_statement
from lakeport_engine.iceberg.catalog import (
    IcebergConflictError,
    IcebergError,
    check_name,
    confined,
    open_catalog,
    table_location,
    type_text,
)
from lakeport_engine.iceberg.evolution import schema_change
from lakeport_engine.iceberg.metadata_tables import check_metadata_table, metadata_frame
from lakeport_engine.iceberg.planning import ReadTask, plan_reads
from lakeport_engine.iceberg.scan import FIELD_ID_CONFS, pick_snapshot, plain_schema, snapshot_frame, spark_schema
from lakeport_engine.iceberg.write import (
    commit_append,
    commit_overwrite,
    commit_with_retries,
    iceberg_schema,
    partition_item,
    partition_spec,
    write_files,
)
from lakeport_engine.jvm import jvm
from lakeport_engine.pins import ConnectorLineage
from lakeport_kernel.redaction import redact

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table

logger = logging.getLogger(__name__)

VIEW_PREFIX = "__lp_iceberg_"
SUPPORTED = ("SELECT with VERSION/TIMESTAMP AS OF, metadata tables (t.snapshots, t.history, t.files, …), INSERT "
             "INTO/OVERWRITE, DELETE FROM of whole files, CREATE TABLE [PARTITIONED BY transforms] [AS SELECT], ALTER "
             "TABLE schema evolution and TBLPROPERTIES, DROP TABLE, CREATE/DROP DATABASE, SHOW DATABASES/TABLES, "
             "DESCRIBE [HISTORY]")
_REFUSED_KINDS = {
    "update": "UPDATE (needs positional delete files, not written yet)",
    "merge": "MERGE INTO (needs positional delete files, not written yet)",
    "truncate": "TRUNCATE TABLE (not written yet)",
}


@dataclass(frozen=True)
class IcebergCatalogConfig:
    """One registered Iceberg catalog: its warehouse, default namespace and commit retries."""

    name: str
    warehouse: str
    default_database: str = "default"
    retries: int = 4
    _sql: list[SqlCatalog] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_config(cls, name: str, config: Mapping[str, Any]) -> IcebergCatalogConfig:
        """From the plain configuration (`warehouse`, `default-namespace`, `commit-retries`)."""
        warehouse = str(config.get("warehouse") or "").removeprefix("file://").rstrip("/")
        if not warehouse.startswith("/"):
            raise IcebergError(f"Iceberg catalog '{name}': warehouse must be a local absolute path.")
        default = check_name(str(config.get("default-namespace") or "default"), what="namespace", catalog=name)
        return cls(name, warehouse, default, int(config.get("commit-retries", 4)))

    def sql(self) -> SqlCatalog:
        """pyiceberg's SQL catalog of the warehouse (opened once; the default namespace always exists)."""
        if not self._sql:
            try:
                catalog = open_catalog(self.warehouse)
            except FileNotFoundError:
                raise IcebergError(f"Iceberg catalog '{self.name}': warehouse {self.warehouse} does not exist.") from None
            catalog.create_namespace_if_not_exists(self.default_database)
            self._sql.append(catalog)
        return self._sql[0]


class EmbeddedIceberg(ConnectorLineage):
    """Iceberg catalogs for one Spark session: register catalogs, then `handles()` / `execute()` statements."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self._catalogs: dict[str, IcebergCatalogConfig] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self.views_read: dict[str, Dataset] = {}
        self.writes: list[tuple[Dataset, DataFrame]] = []
        # Where a statement goes once its Iceberg tables are views (the resolver routes it on to Delta or Spark).
        self.next_sql: Callable[[str], DataFrame | None] = spark.sql
        for key, value in FIELD_ID_CONFS.items():
            spark.conf.set(key, value)  # columns are matched by Iceberg field id, never by name

    # ---- catalogs ----------------------------------------------------------------------------------------
    def register(self, name: str, config: Mapping[str, Any]) -> None:
        """Register (or replace) the Iceberg catalog `name` from its plain configuration."""
        catalog = IcebergCatalogConfig.from_config(name.lower(), config)
        with self._lock:
            self._catalogs[catalog.name] = catalog

    def is_registered(self, name: str) -> bool:
        """True if `name` is a registered Iceberg catalog."""
        return name.lower() in self._catalogs

    # ---- statements --------------------------------------------------------------------------------------
    def handles(self, sql: str, *, current_catalog: str | None, current_database: str | None) -> bool:
        """True if the statement names an Iceberg table or is a SHOW/DESCRIBE/DDL in an Iceberg context."""
        if not self._catalogs:
            return False
        try:
            return self._plan(sql, current_catalog, current_database) is not None
        except IcebergError:
            return True  # ours, but wrong: execute() reports it

    def execute(self, sql: str, *, current_catalog: str | None, current_database: str | None) -> DataFrame | None:
        """Run one statement: reads return a DataFrame, writes commit atomically and return None."""
        plan = self._plan(sql, current_catalog, current_database)
        if plan is None:
            return self.next_sql(sql)
        if plan.kind in _REFUSED_KINDS or plan.kind == "unsupported":
            reason = _REFUSED_KINDS.get(plan.kind, f"{plan.reason}")
            raise IcebergError(f"{reason} is not supported on Iceberg tables by the embedded Iceberg connector "
                               f"(it supports {SUPPORTED}).")
        if plan.target is not None and plan.target.metadata:
            raise IcebergError(f"{plan.target} is an Iceberg metadata table: it is read-only (SELECT from it).")
        self.refuse_row_policy(plan)
        handler: Callable[[Plan], DataFrame | None] = getattr(self, f"_run_{plan.kind}")
        try:
            return handler(plan)
        except DeltaConnectorError as exc:  # the shared statement and row-shaping helpers speak of Delta
            raise IcebergError(_iceberg_words(str(exc))) from None

    def _plan(self, sql: str, current_catalog: str | None, current_database: str | None) -> Plan | None:
        catalog = self.spark._jsparkSession.sessionState().catalog()
        reader = StatementReader(dict(self._catalogs), current_catalog=current_catalog,
                                 current_database=current_database, table_format="iceberg", metadata_tables=True,
                                 is_temp_view=lambda name: bool(catalog.getTempView(name).isDefined()))
        try:
            altered = read_table_statement(reader, sql)
            if altered is not None and altered.kind in ("alter_table", "unsupported"):
                return altered  # ALTER TABLE on an Iceberg table (RESTORE, OPTIMIZE, … are Delta's: refused below)
            return reader.read(sql)
        except DeltaConnectorError as exc:
            raise IcebergError(_iceberg_words(str(exc))) from None

    # ---- lineage and pins --------------------------------------------------------------------------------
    def _dataset(self, ref: TableRef, snapshot: int | None) -> Dataset:
        catalog = self._catalog(ref.catalog)
        return iceberg_dataset(catalog.name, ref.database, ref.table, table_location(
            catalog.warehouse, ref.database, ref.table), snapshot)

    def _committed(self, ref: TableRef, table: Table, frame: DataFrame | None) -> None:
        snapshot = table.current_snapshot()
        if snapshot is None:
            return
        self.pins.pin(self._dataset(ref, None).key, snapshot.snapshot_id, committed=True)
        if frame is not None:
            self.writes.append((self._dataset(ref, snapshot.snapshot_id), frame))
        logger.info("iceberg.committed", extra={"table": str(ref), "snapshot": snapshot.snapshot_id})

    # ---- reads -------------------------------------------------------------------------------------------
    def _run_query(self, plan: Plan) -> DataFrame | None:
        views = self._register_snapshots(plan.references)
        kept = False
        try:
            frame = self.next_sql(rewrite(plan.sql, plan.references, views))
            kept = plan.keep_views
            return frame
        finally:
            if not kept:
                for view in set(views.values()):
                    self.spark.catalog.dropTempView(view)

    def _register_snapshots(self, references: list[Reference]) -> dict[tuple[Any, ...], str]:
        views: dict[tuple[Any, ...], str] = {}
        self._local.latest = {}
        try:
            for reference in references:
                if reference.snapshot_key in views:
                    continue
                ref = reference.ref
                catalog = self._catalog(ref.catalog)
                if ref.metadata:
                    views[reference.snapshot_key] = self._register_metadata(reference)
                    continue
                table = self._load(ref)
                key = self._dataset(ref, None).key
                snapshot_id, timestamp = reference.version, None
                if reference.timestamp_sql:
                    timestamp = self._timestamp(reference)
                travel = reference.version is not None or reference.timestamp_sql is not None
                if not travel:
                    snapshot_id = self.pins.version_for(key)
                    timestamp = self.pins.as_of_for(key) if snapshot_id is None else None
                snapshot = pick_snapshot(table, str(ref), snapshot_id=snapshot_id, timestamp=timestamp)
                if not travel and snapshot is not None:
                    self.pins.pin(key, snapshot.snapshot_id)
                view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
                # the table's row filter and column masks sit in the snapshot view, below all the statement does
                # a read of the current table sees its current schema (columns altered since its last commit too)
                frame = snapshot_frame(self.spark, table, snapshot, name=str(ref), warehouse=catalog.warehouse,
                                       schema=None if travel else table.schema())
                self.protected(frame, ref).createOrReplaceTempView(view)
                views[reference.snapshot_key] = view
                self.views_read[view] = self._dataset(ref, snapshot.snapshot_id if snapshot else None)
                if not travel:
                    self._local.latest[ref] = snapshot.snapshot_id if snapshot else None
        except BaseException:
            for view in views.values():
                self.spark.catalog.dropTempView(view)
            raise
        return views

    def _register_metadata(self, reference: Reference) -> str:
        """A temp view of metadata table `t.<name>` (pyiceberg's `inspect`), refused by name for a table whose row
        filter or masks the caller may not see: file statistics and partition values hold the table's values."""
        ref = reference.ref
        base = TableRef(ref.catalog, ref.database, ref.table)
        name = ref.metadata or ""
        travel = reference.version is not None or reference.timestamp_sql is not None
        check_metadata_table(name, str(base), time_travel=travel)
        self.row_policy.refuse_hidden((base.catalog, base.database, base.table), f"the metadata table '{name}'")
        table = self._load(base)
        timestamp = self._timestamp(reference) if reference.timestamp_sql else None
        snapshot_id = reference.version if travel else self.pins.version_for(self._dataset(base, None).key)
        snapshot = pick_snapshot(table, str(base), snapshot_id=snapshot_id, timestamp=timestamp)
        view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
        metadata_frame(self.spark, table, name, snapshot).createOrReplaceTempView(view)
        return view

    def _timestamp(self, reference: Reference) -> dt.datetime:
        """`TIMESTAMP AS OF <expr>` evaluated by Spark (session time zone), as an aware UTC datetime."""
        try:
            micros = self.spark.sql(f"SELECT unix_micros(CAST(({reference.timestamp_sql}) AS TIMESTAMP))").collect()[0][0]
        except Exception:
            raise IcebergError(f"TIMESTAMP AS OF on {reference.ref}: '{reference.timestamp_sql}' is not a timestamp.") \
                from None
        if micros is None:
            raise IcebergError(f"TIMESTAMP AS OF on {reference.ref}: the timestamp is NULL.")
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=int(micros))

    def _source(self, plan: Plan) -> DataFrame:
        assert plan.source_sql is not None
        views = self._register_snapshots(plan.references)
        try:
            frame = self.next_sql(rewrite(plan.source_sql, plan.references, views, offset=plan.source_offset))
        except IcebergError:
            raise
        except Exception as exc:
            for view in set(views.values()):
                self.spark.catalog.dropTempView(view)
            raise IcebergError(f"the query writing to Iceberg table {plan.target} failed: {_first_line(exc)}") \
                from None
        if frame is None:
            raise IcebergError(f"the query writing to Iceberg table {plan.target} returned no rows to write.")
        # the views stay until the write has read them (`_drop_source_views`)
        self._local.views = list(views.values())
        return frame

    def _drop_source_views(self) -> None:
        for view in getattr(self._local, "views", []):
            self.spark.catalog.dropTempView(view)
        self._local.views = []

    # ---- writes ------------------------------------------------------------------------------------------
    def _run_insert(self, plan: Plan) -> None:
        ref = _target(plan)
        if plan.partition or plan.dynamic_partitions:
            raise IcebergError(f"INSERT … PARTITION (…) into {ref}: Iceberg partitions are hidden; insert the "
                               "columns' values instead (INSERT OVERWRITE replaces the partitions written when "
                               "spark.sql.sources.partitionOverwriteMode=dynamic).")
        catalog = self._catalog(ref.catalog)
        table = self._load(ref)  # an overwrite replaces what this snapshot holds, and commits only on top of it
        target_schema = plain_schema(spark_schema(table.schema(), str(ref)))
        try:
            source = self._source(plan)
            frame = align(source, target_schema, ref=ref, columns=plan.columns, by_name=plan.by_name,
                          table_format="Iceberg")
            files, directory = write_files(self.spark, table, frame, name=str(ref), warehouse=catalog.warehouse)
        finally:
            self._drop_source_views()
        operation = "INSERT OVERWRITE" if plan.overwrite else "INSERT INTO"
        try:
            if plan.overwrite:
                dynamic = self._dynamic_overwrite() and bool(table.spec().fields)
                commit_overwrite(table, files, dynamic=dynamic, name=str(ref),
                                 properties={"lakeport.operation": operation})
                committed = self._load(ref)
            else:
                committed = commit_with_retries(lambda: self._load(ref), lambda t: _append(t, files, operation),
                                                name=str(ref), retries=catalog.retries)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        self._committed(ref, committed, frame)
        return None

    def _dynamic_overwrite(self) -> bool:
        mode = self.spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static") or "static"
        return mode.lower() == "dynamic"

    def _run_delete(self, plan: Plan) -> DataFrame:
        """DELETE FROM whose condition is decided per data file (identity partition columns only, or no condition):
        the matching files are removed in one commit, no data file is rewritten. Answers `num_affected_rows`."""
        ref = _target(plan)
        table = self._load(ref)
        condition = plan.condition[1] if plan.condition else None
        columns = _identity_columns(table, str(ref), condition, plan.alias or ref.table)
        snapshot = table.current_snapshot()
        tasks = plan_reads(table, snapshot) if snapshot is not None else []  # equality deletes too
        view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
        snapshot_frame(self.spark, table, snapshot, name=str(ref), warehouse=self._catalog(ref.catalog).warehouse,
                       schema=table.schema()).createOrReplaceTempView(view)
        try:
            where = f" WHERE {condition}" if condition else ""
            alias = f"`{plan.alias or ref.table}`"
            affected = int(self.spark.sql(f"SELECT count(*) FROM `{view}` AS {alias}{where}").collect()[0][0])
            doomed = self._files_matching(table, tasks, columns, condition, alias)
        finally:
            self.spark.catalog.dropTempView(view)
        if doomed:
            from pyiceberg.exceptions import CommitFailedException, ValidationException

            try:
                with table.transaction() as tx, tx.update_snapshot(
                        snapshot_properties={"lakeport.operation": "DELETE"}).overwrite() as overwrite:
                    for data_file in doomed:
                        overwrite.delete_data_file(data_file)
            except (CommitFailedException, ValidationException):
                raise IcebergConflictError(f"DELETE FROM {ref}: another commit changed the table since this "
                                           "statement read it; nothing was committed.") from None
            self._committed(ref, self._load(ref), None)
        return self.spark.createDataFrame([(affected,)], "num_affected_rows BIGINT")

    def _files_matching(self, table: Table, tasks: list[ReadTask], columns: dict[str, int], condition: str | None,
                        alias: str) -> list[Any]:
        """The data files whose identity partition values satisfy `condition` (all of them without one)."""
        if condition is None:
            return [task.data_file for task in tasks]
        spec = table.spec()
        positions = {name: next(i for i, f in enumerate(spec.fields) if f.source_id == source)
                     for name, source in columns.items()}
        schema = spark_schema(table.schema(), "")
        types = {f.name: f.dataType for f in schema.fields}
        fields = [T.StructField("__lp_file", T.IntegerType(), False)] + [
            T.StructField(name, types[name], True) for name in columns]
        rows = []
        for index, task in enumerate(tasks):
            if task.data_file.spec_id != spec.spec_id:
                raise IcebergError(f"DELETE FROM: data files of an older partition spec cannot be decided by "
                                   f"partition values ({table.name()}); nothing was deleted.")
            rows.append((index, *[_spark_value(types[name], task.data_file.partition[positions[name]])
                                   for name in columns]))
        frame = self.spark.createDataFrame(rows, T.StructType(fields))
        view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
        frame.createOrReplaceTempView(view)
        try:
            matched = {r[0] for r in self.spark.sql(f"SELECT __lp_file FROM `{view}` AS {alias} WHERE {condition}")
                       .collect()}
        finally:
            self.spark.catalog.dropTempView(view)
        return [task.data_file for index, task in enumerate(tasks) if index in matched]

    def _run_create_table(self, plan: Plan) -> None:
        ref = _target(plan)
        catalog = self._catalog(ref.catalog)
        sql = catalog.sql()
        if sql.table_exists((ref.database, ref.table)):
            if plan.if_exists:
                return None
            raise IcebergError(f"Iceberg table {ref} already exists.")
        if not sql.namespace_exists(ref.database):
            raise IcebergError(f"namespace '{ref.database}' does not exist in Iceberg catalog '{catalog.name}' "
                               f"(CREATE DATABASE {catalog.name}.{ref.database} first).")
        properties = self._table_properties(ref, plan.properties)
        if plan.comment:
            properties["comment"] = plan.comment
        location = table_location(catalog.warehouse, ref.database, ref.table)
        target = Path(confined(location, catalog.warehouse, what="location", table=str(ref)))
        if target.exists():
            raise IcebergError(f"Iceberg table {ref}: its directory {target} already exists (left by another tool); "
                               "move it away or pick another name.")
        items = [partition_item(text, str(ref)) for text in plan.partition_items]
        if plan.kind == "ctas":
            try:
                source = self._source(plan)
                schema = iceberg_schema(T.StructType([T.StructField(f.name, f.dataType, True, f.metadata)
                                                      for f in source.schema.fields]), str(ref))
                self._create_with_rows(ref, catalog, schema, items, properties, location, source)
            finally:
                self._drop_source_views()
            return None
        schema = iceberg_schema(self._ddl_schema(ref, plan.columns_ddl or ""), str(ref))
        spec = partition_spec(schema, items, str(ref))
        try:
            created = sql.create_table((ref.database, ref.table), schema=schema, location=location,
                                       partition_spec=spec, properties=properties)
        except Exception:
            shutil.rmtree(target, ignore_errors=True)
            raise
        self.pins.forget(self._dataset(ref, None).key)
        self._committed(ref, created, None)
        return None

    _run_ctas = _run_create_table

    def _create_with_rows(self, ref: TableRef, catalog: IcebergCatalogConfig, schema: Any, items: list[Any],  # noqa: ANN401
                          properties: dict[str, str], location: str, source: DataFrame) -> None:
        """CTAS: the table and its first snapshot in one catalog commit (nothing exists if any step fails)."""
        from pyiceberg.partitioning import assign_fresh_partition_spec_ids
        from pyiceberg.schema import assign_fresh_schema_ids

        fresh = assign_fresh_schema_ids(schema)
        spec = assign_fresh_partition_spec_ids(partition_spec(schema, items, str(ref)), schema, fresh)
        target = Path(confined(location, catalog.warehouse, what="location", table=str(ref)))
        try:
            tx = catalog.sql().create_table_transaction((ref.database, ref.table), schema=fresh, location=location,
                                                        partition_spec=spec, properties=properties)
            staged = tx.table_metadata  # the table as it will be, for the files' spec and field ids
            files, _directory = write_files(self.spark, tx._table, source, name=str(ref), warehouse=catalog.warehouse,
                                            schema=staged.schema(), spec=staged.spec())
            commit_append(tx, files, {"lakeport.operation": "CREATE TABLE AS SELECT"})
            tx.commit_transaction()
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)  # no catalog entry was made: the directory is only ours
            raise
        self.pins.forget(self._dataset(ref, None).key)
        self._committed(ref, self._load(ref), source)

    def _run_drop_table(self, plan: Plan) -> None:
        ref = _target(plan)
        catalog = self._catalog(ref.catalog)
        sql = catalog.sql()
        if not sql.table_exists((ref.database, ref.table)):
            if plan.if_exists:
                return None
            raise IcebergError(f"Iceberg table {ref} does not exist.")
        table = self._load(ref)
        location = confined(table.location(), catalog.warehouse, what="location", table=str(ref))
        sql.drop_table((ref.database, ref.table))
        shutil.rmtree(location, ignore_errors=True)  # managed-table semantics, as for Delta tables
        self.pins.forget(self._dataset(ref, None).key)
        return None

    def _run_create_db(self, plan: Plan) -> None:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        if catalog.sql().namespace_exists(database):
            if plan.if_exists:
                return None
            raise IcebergError(f"namespace '{database}' already exists in Iceberg catalog '{catalog.name}'.")
        catalog.sql().create_namespace(database)
        return None

    def _run_drop_db(self, plan: Plan) -> None:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        sql = catalog.sql()
        if not sql.namespace_exists(database):
            if plan.if_exists:
                return None
            raise IcebergError(f"namespace '{database}' does not exist in Iceberg catalog '{catalog.name}'.")
        tables = sql.list_tables(database)
        if tables and not plan.cascade:
            raise IcebergError(f"namespace '{database}' in Iceberg catalog '{catalog.name}' is not empty "
                               f"({len(tables)} table(s)); use DROP DATABASE … CASCADE.")
        for identifier in tables:
            self._run_drop_table(Plan("drop_table", "", target=TableRef(catalog.name, database, identifier[-1])))
        sql.drop_namespace(database)
        return None

    def _run_alter_table(self, plan: Plan) -> None:
        """ALTER TABLE: one metadata-only commit through pyiceberg (`evolution.py`), rebuilt and checked again on
        the refreshed table when a concurrent commit wins the race."""
        assert isinstance(plan, TablePlan)
        ref = _target(plan)
        catalog = self._catalog(ref.catalog)
        change = schema_change(plan, name=str(ref), parse_type=self._parse_type,
                               properties=lambda props: self._table_properties(ref, props, altering=True))
        committed = commit_with_retries(lambda: self._load(ref), change, name=str(ref), retries=catalog.retries)
        self._committed(ref, committed, None)
        logger.info("iceberg.altered", extra={"table": str(ref), "action": plan.action,
                                               "schema": committed.schema().schema_id})
        return None

    def _parse_type(self, text: str) -> T.DataType:
        """A Spark SQL type as written (`BIGINT`, `DECIMAL(12, 2)`, `STRUCT<x: INT>`), parsed by Spark."""
        parsed = jvm(self.spark).org.apache.spark.sql.types.DataType.fromDDL(text)
        return T._parse_datatype_json_string(parsed.json())

    # ---- metadata ----------------------------------------------------------------------------------------
    def _run_show_dbs(self, plan: Plan) -> DataFrame:
        catalog = self._catalog(plan.catalog or "")
        match = like(plan.pattern)
        names = sorted(n[-1] for n in catalog.sql().list_namespaces())
        return self.spark.createDataFrame([(n,) for n in names if match is None or match.match(n)], SHOW_DATABASES)

    def _run_show_tables(self, plan: Plan) -> DataFrame:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        if not catalog.sql().namespace_exists(database):
            raise IcebergError(f"namespace '{database}' does not exist in Iceberg catalog '{catalog.name}'.")
        match = like(plan.pattern)
        names = sorted(t[-1] for t in catalog.sql().list_tables(database))
        rows = [(database, n, False) for n in names if match is None or match.match(n)]
        return self.spark.createDataFrame(rows, SHOW_TABLES)

    def _run_describe(self, plan: Plan) -> DataFrame:
        ref = _target(plan)
        table = self._load(ref)
        rows: list[tuple[str, str | None, str | None]] = [
            (f.name, type_text(f.field_type), f.doc) for f in table.schema().fields]
        spec = table.spec()
        if spec.fields:
            rows += [("# Partitioning", "", "")]
            rows += [(f"Part {i}", f"{f.transform}({table.schema().find_column_name(f.source_id)})", "")
                     for i, f in enumerate(spec.fields)]
        if plan.extended:
            snapshot = table.current_snapshot()
            rows += [("", "", ""), ("# Detailed Table Information", "", ""), ("Catalog", ref.catalog, ""),
                     ("Namespace", ref.database, ""), ("Table", ref.table, ""), ("Provider", "iceberg", ""),
                     ("Location", table.location(), ""),
                     ("Current Snapshot", str(snapshot.snapshot_id) if snapshot else "", ""),
                     ("Format Version", str(table.format_version), ""),
                     ("Field Ids", json.dumps({f.name: f.field_id for f in table.schema().fields}), ""),
                     ("Table Properties", "[" + ",".join(f"{k}={v}" for k, v in sorted(table.properties.items()))
                      + "]", ""),
                     ("Engine", "lakeport embedded Iceberg connector (pyiceberg metadata, Spark parquet)", "")]
        return self.spark.createDataFrame(rows, DESCRIBE)

    def _run_history(self, plan: Plan) -> DataFrame:
        ref = _target(plan)
        table = self._load(ref)
        current = {s.snapshot_id for s in table.snapshots()}
        rows = []
        for entry in reversed(table.history()):
            snapshot = table.snapshot_by_id(entry.snapshot_id)
            summary = snapshot.summary if snapshot is not None else None
            rows.append((dt.datetime.fromtimestamp(entry.timestamp_ms / 1000, tz=dt.UTC).replace(tzinfo=None),
                         entry.snapshot_id, snapshot.parent_snapshot_id if snapshot else None,
                         str(summary.operation.value) if summary is not None else None,
                         entry.snapshot_id in current))
        if plan.limit is not None:
            rows = rows[: plan.limit]
        schema = "made_current_at TIMESTAMP_NTZ, snapshot_id BIGINT, parent_id BIGINT, operation STRING, " \
                 "is_current_ancestor BOOLEAN"
        return self.spark.createDataFrame(rows, schema)

    # ---- helpers -----------------------------------------------------------------------------------------
    def _catalog(self, name: str) -> IcebergCatalogConfig:
        try:
            return self._catalogs[name.lower()]
        except KeyError:
            raise IcebergError(f"'{name}' is not a registered Iceberg catalog.") from None

    def _load(self, ref: TableRef) -> Table:
        from pyiceberg.exceptions import NoSuchTableError

        catalog = self._catalog(ref.catalog)
        try:
            table = catalog.sql().load_table((ref.database, ref.table))
        except NoSuchTableError:
            raise IcebergError(f"Iceberg table {ref} does not exist.") from None
        confined(table.metadata_location, catalog.warehouse, what="metadata file", table=str(ref))
        confined(table.location(), catalog.warehouse, what="location", table=str(ref))
        return table

    def _ddl_schema(self, ref: TableRef, ddl: str) -> T.StructType:
        try:
            parsed = jvm(self.spark).org.apache.spark.sql.types.StructType.fromDDL(ddl)
        except Exception as exc:
            raise IcebergError(f"CREATE TABLE {ref}: invalid column definitions: {_first_line(exc)}") from None
        return T.StructType.fromJson(json.loads(parsed.json()))

    def _table_properties(self, ref: TableRef, properties: Mapping[str, str], *,
                          altering: bool = False) -> dict[str, str]:
        for key in properties:
            lowered = key.lower()
            if "path" in lowered or "location" in lowered:  # a path property could point writes out of the warehouse
                raise IcebergError(f"TBLPROPERTIES '{key}' on {ref}: table paths are not settable (rule "
                                   "iceberg-location); tables live at <warehouse>/<namespace>/<table>.")
        allowed = {"format-version", "write.parquet.compression-codec", "write.metadata.metrics.default",
                   "commit.retry.num-retries"} | ({"comment"} if altering else set())
        for key in properties:
            if key.lower() not in allowed and not key.lower().startswith("lakeport."):
                raise IcebergError(f"TBLPROPERTIES '{key}' on {ref} is not supported by the embedded Iceberg "
                                   f"connector (allowed: {', '.join(sorted(allowed))}, lakeport.*).")
        return dict(properties)


def _identity_columns(table: Table, name: str, condition: str | None, alias: str) -> dict[str, int]:
    """The columns `condition` uses (by name → field id), all identity partition sources; IcebergError otherwise
    (the connector deletes whole files only, so the condition must be constant within each file)."""
    import sqlglot
    from sqlglot import exp

    if condition is None:
        return {}
    spec = table.spec()
    schema = table.schema()
    identity = {schema.find_column_name(f.source_id): f.source_id for f in spec.fields
                if str(f.transform) == "identity"}
    by_lower = {str(k).lower(): (str(k), v) for k, v in identity.items()}
    why = (f"DELETE FROM {name}: the embedded Iceberg connector deletes whole data files only (positional delete "
           f"files are not written yet), so the WHERE condition may use only identity partition columns "
           f"({', '.join(sorted(str(k) for k in identity)) or 'none'}) and no subquery")
    try:
        tree = sqlglot.parse_one(condition, dialect="spark")
    except Exception:
        raise IcebergError(f"{why}; the condition could not be read.") from None
    if any(isinstance(node, (exp.Select, exp.Subquery)) for node in tree.walk()):
        raise IcebergError(f"{why}.")
    used: dict[str, int] = {}
    for column in tree.find_all(exp.Column):
        qualifier = column.table
        if qualifier and qualifier.lower() not in (alias.lower(), name.rsplit(".", 1)[-1].lower()):
            raise IcebergError(f"{why}.")
        found = by_lower.get(column.name.lower())
        if found is None:
            raise IcebergError(f"{why}; '{column.name}' is not one.")
        used[found[0]] = found[1]
    return used


def _spark_value(kind: T.DataType, value: Any) -> Any:  # noqa: ANN401 - a partition value as Spark takes it
    """An identity partition value (pyiceberg's internal form: days for dates, micros for timestamps) for Spark."""
    if value is None:
        return None
    if isinstance(kind, T.DateType):
        return dt.date(1970, 1, 1) + dt.timedelta(days=int(value))
    if isinstance(kind, T.TimestampType):
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=int(value))
    if isinstance(kind, T.TimestampNTZType):
        return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=int(value))
    return value


def _append(table: Table, files: list[Any], operation: str) -> None:
    with table.transaction() as tx:
        commit_append(tx, files, {"lakeport.operation": operation})


def _target(plan: Plan) -> TableRef:
    if plan.target is None:
        raise IcebergError("statement has no target table.")
    return plan.target


def _iceberg_words(text: str) -> str:
    """A message of the shared Delta statement helpers in Iceberg's words."""
    for old, new in (("Delta catalog", "Iceberg catalog"), ("Delta table", "Iceberg table"),
                     ("embedded Delta connector", "embedded Iceberg connector"), ("database", "namespace")):
        text = text.replace(old, new)
    return text


def _first_line(exc: BaseException) -> str:
    text = redact(str(exc).strip())
    return text.splitlines()[0] if text else type(exc).__name__
