"""`EmbeddedDelta`: Delta catalogs in Spark SQL without delta-spark jars.

delta-rs (`deltalake`) owns the transaction log; Spark's parquet reader and writer move the data. Reads
register each referenced snapshot as a temp view and run the statement rewritten onto those views (so
JDBC and Hive tables in the same statement keep working); writes are one delta-rs commit each.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import sqlglot
from deltalake import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T
from sqlglot.errors import ParseError, TokenError

from lakeport_engine.datasets import Dataset, delta_dataset
from lakeport_engine.delta import metadata
from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.commit import DeltaWriter, align
from lakeport_engine.delta.cut_reads import pin_consistent_cut
from lakeport_engine.delta.dml import RowChange, apply_change
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.history import commit_history
from lakeport_engine.delta.merge import apply_merge, merge_spec
from lakeport_engine.delta.schema import spark_schema
from lakeport_engine.delta.snapshot import open_table, snapshot_frame, travel
from lakeport_engine.delta.statements import Plan, Reference, StatementReader, rewrite
from lakeport_engine.delta.storage import Storage, storage_for
from lakeport_engine.delta.table_commands import TableCommands
from lakeport_engine.delta.table_sql import read_table_statement
from lakeport_engine.delta.view_sql import read_view_statement
from lakeport_engine.delta.view_statements import MaterializedViews
from lakeport_engine.jvm import jvm
from lakeport_engine.matviews import READS_KEY, ViewStore
from lakeport_engine.pins import ConnectorLineage

logger = logging.getLogger(__name__)

VIEW_PREFIX = "__lp_delta_"
USER_METADATA_CONF = "spark.databricks.delta.commitInfo.userMetadata"
# TBLPROPERTIES that would turn on a feature this connector must then refuse to read.
_REFUSED_PROPERTIES = {
    "delta.enabledeletionvectors": ("true", "deletionVectors"),
    "delta.enablerowtracking": ("true", "rowTracking"),
}


class EmbeddedDelta(MaterializedViews, TableCommands, ConnectorLineage):
    """Delta catalogs for one Spark session: register catalogs, then `handles()` / `execute()` statements."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self._catalogs: dict[str, DeltaCatalog] = {}
        self._lock = threading.Lock()
        # Per thread: the versions the last source query read, and the plan `handles()` just made.
        self._read_versions = threading.local()
        # Lineage of the current statement: snapshot views read (view → table at its version) and commits made
        # (target at the version committed, with the frame written); `take_lineage()` hands them over.
        self.views_read: dict[str, Dataset] = {}
        self.writes: list[tuple[Dataset, DataFrame]] = []
        # Snapshot views that a temp view or cache of the session refers to by name (at a table's latest or pinned
        # version, not time travel): a commit of this session to the table re-points them, so they never go stale.
        self._kept_views: dict[str, TableRef] = {}
        self.views: ViewStore | None = None  # the team's materialized view definitions (set by the resolver)

    # ---- catalogs ------------------------------------------------------------------------------------
    def register(self, name: str, config: Mapping[str, Any]) -> None:
        """Register (or replace) the Delta catalog `name` from its plain configuration dict."""
        catalog = DeltaCatalog.from_config(name.lower(), config)
        with self._lock:
            self._catalogs[catalog.name] = catalog
        logger.info("delta.catalog_registered", extra={"catalog": catalog.name})

    def is_registered(self, name: str) -> bool:
        """True if `name` is a registered Delta catalog."""
        return name.lower() in self._catalogs

    # ---- statements ----------------------------------------------------------------------------------
    def handles(self, sql: str, *, current_catalog: str | None, current_database: str | None) -> bool:
        """True if the statement reads or writes a Delta table, or is a SHOW/DESCRIBE/DDL in a Delta context."""
        if not self._catalogs:
            return False
        try:
            return self._plan(sql, current_catalog, current_database, remember=True) is not None
        except DeltaConnectorError:
            return True  # ours, but wrong: execute() reports the error

    def execute(self, sql: str, *, current_catalog: str | None, current_database: str | None) -> DataFrame | None:
        """Run one statement: reads return a DataFrame, writes commit atomically and return None."""
        plan = self._plan(sql, current_catalog, current_database, remember=False)
        if plan is None:
            return self.spark.sql(sql)
        self.refuse_view_write(plan)
        self.refuse_row_policy(plan)
        handler: Callable[[Plan], DataFrame | None] = getattr(self, f"_run_{plan.kind}")
        return handler(plan)

    def query_references(self, query: str, *, current_catalog: str | None,
                         current_database: str | None) -> list[Reference]:
        """The Delta tables a query (SELECT …) reads, with their spans in `query`; empty when it reads none."""
        plan = self._reader(current_catalog, current_database).read(query)
        return plan.references if plan is not None else []

    def _plan(self, sql: str, current_catalog: str | None, current_database: str | None, *,
              remember: bool) -> Plan | None:
        """Read the statement; `handles()` then `execute()` of the same statement parse it once."""
        key = (sql, current_catalog, current_database, tuple(sorted(self._catalogs.items(), key=lambda i: i[0])))
        cached = getattr(self._read_versions, "plan", None)
        self._read_versions.plan = None
        if cached is not None and cached[0] == key:
            remembered: Plan | None = cached[1]
            return remembered
        self._read_versions.where = (current_catalog, current_database)
        reader = self._reader(current_catalog, current_database)
        plan = read_view_statement(reader, sql) or read_table_statement(reader, sql) or reader.read(sql)
        if remember:
            self._read_versions.plan = (key, plan)
        return plan

    # ---- lineage and snapshots -----------------------------------------------------------------------
    def _dataset(self, ref: TableRef, version: int | None) -> Dataset:
        catalog = self._catalog(ref.catalog)
        return delta_dataset(catalog.name, ref.database, ref.table, catalog.table_uri(ref), version)

    def _committed(self, ref: TableRef, version: int, frame: DataFrame | None) -> None:
        """A commit of this session: later reads of the table see it (pins, kept views); lineage records it."""
        self.pins.pin(self._dataset(ref, None).key, version, committed=True)
        self._refresh_kept_views(ref, version)
        if frame is not None:
            self.writes.append((self._dataset(ref, version), frame))

    def _dropped(self, ref: TableRef) -> None:
        """A table this session dropped: a table created under its name later starts from its own version 0."""
        self.pins.forget(self._dataset(ref, None).key)

    def _refresh_kept_views(self, ref: TableRef, version: int) -> None:
        """Re-point the snapshot views kept for temp views/caches over `ref` at `version` (what Spark's own temp
        views do: they re-read the table by name, so they see a commit made after they were defined)."""
        stale = [view for view, kept in self._kept_views.items() if kept == ref]
        if not stale:
            return
        table = open_table(self._catalog(ref.catalog), ref)
        travel(table, ref, version=version)
        frame = self.row_policy.protect(snapshot_frame(self.spark, table, ref), (ref.catalog, ref.database, ref.table))
        for view in stale:
            # Replacing the view uncaches what was cached over it; a later read recomputes, as after a Spark write.
            frame.createOrReplaceTempView(view)

    # ---- reads ---------------------------------------------------------------------------------------
    def _run_query(self, plan: Plan) -> DataFrame:
        return self._sql_on_snapshots(plan.sql, plan.references, keep_views=plan.keep_views)

    def _sql_on_snapshots(self, text: str, references: list[Reference], *, offset: int = 0,
                          keep_views: bool = False) -> DataFrame:
        views = self._register_snapshots(references)
        kept = False
        try:
            frame = self.spark.sql(rewrite(text, references, views, offset=offset))
            kept = keep_views
            if kept:
                self._kept_views.update({views[r.snapshot_key]: r.ref for r in references
                                         if r.version is None and r.timestamp_sql is None})
            return frame
        finally:
            # The analysed plan inlines the views, so dropping them afterwards leaves the DataFrame intact;
            # a temp view or cache defined by the statement resolves them by name later, so those stay.
            if not kept:
                for view in set(views.values()):
                    self.spark.catalog.dropTempView(view)

    @contextlib.contextmanager
    def _snapshot_views(self, references: list[Reference]) -> Iterator[dict[tuple[Any, ...], str]]:
        """The references' snapshot views for the length of one statement, dropped after it."""
        views = self._register_snapshots(references)
        try:
            yield views
        finally:
            for view in set(views.values()):
                self.spark.catalog.dropTempView(view)

    def _register_snapshots(self, references: list[Reference]) -> dict[tuple[Any, ...], str]:
        views: dict[tuple[Any, ...], str] = {}
        self._read_versions.latest = {}
        self._read_versions.read = {}  # every version this statement reads, time travel included (READS_KEY)
        if self.pins.consistent:  # decide the statement's new tables as one cut with the run's earlier reads
            pin_consistent_cut(self.pins, [r.ref for r in references if r.version is None and r.timestamp_sql is None],
                               catalog=self._catalog, key_of=lambda ref: self._dataset(ref, None).key,
                               hints=[] if self.pins.cut else self._script_reads())
        try:
            for reference in references:
                if reference.snapshot_key in views:
                    continue
                catalog = self._catalog(reference.ref.catalog)
                table = open_table(catalog, reference.ref)
                version, timestamp = reference.version, self._timestamp(reference) if reference.timestamp_sql else None
                key = self._dataset(reference.ref, None).key  # the table's lineage identity keys its pin
                if version is None and timestamp is None:  # no time travel asked: the run's pinned version
                    version = self.pins.version_for(key)
                    timestamp = self.pins.as_of_for(key) if version is None else None
                travel(table, reference.ref, version=version, timestamp=timestamp)
                if reference.version is None and reference.timestamp_sql is None:
                    self.pins.pin(key, table.version())
                view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
                # the table's row filter and column masks sit in the snapshot view, below all the statement does
                frame = snapshot_frame(self.spark, table, reference.ref)
                ref = reference.ref
                self.row_policy.protect(frame, (ref.catalog, ref.database, ref.table)).createOrReplaceTempView(view)
                views[reference.snapshot_key] = view
                self.views_read[view] = self._dataset(reference.ref, table.version())
                read: dict[TableRef, int] = self._read_versions.read
                read[reference.ref] = table.version() if read.get(reference.ref, table.version()) == \
                    table.version() else -1  # read at two versions: the commit reflects no one version of it
                if reference.version is None and reference.timestamp_sql is None:
                    self._read_versions.latest[reference.ref] = table.version()
        except BaseException:
            for view in views.values():
                self.spark.catalog.dropTempView(view)
            raise
        return views

    def _script_reads(self) -> list[TableRef]:
        """The Delta tables the run's statements read (without time travel), resolved in the current statement's
        catalog and database: the first consistent cut covers them all, so later statements agree with it."""
        where = getattr(self._read_versions, "where", (None, None))
        found: list[TableRef] = []
        for sql in self.pins.statements:
            try:
                reader = self._reader(*where)
                plan = read_view_statement(reader, sql) or read_table_statement(reader, sql) or reader.read(sql)
            except Exception:  # noqa: BLE001 - a hint only: the statement reports its own error when it runs
                continue
            found.extend(r.ref for r in (plan.references if plan is not None else [])
                         if r.version is None and r.timestamp_sql is None)
        return found

    def _timestamp(self, reference: Reference) -> dt.datetime:
        """`TIMESTAMP AS OF <expr>` evaluated by Spark (session time zone), as an aware UTC datetime."""
        try:
            micros = self.spark.sql(f"SELECT unix_micros(CAST(({reference.timestamp_sql}) AS TIMESTAMP))").collect()[0][0]
        except Exception as exc:
            raise DeltaConnectorError(
                f"TIMESTAMP AS OF on {reference.ref}: '{reference.timestamp_sql}' is not a timestamp."
            ) from exc
        if micros is None:
            raise DeltaConnectorError(f"TIMESTAMP AS OF on {reference.ref}: the timestamp is NULL.")
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=int(micros))

    def _source(self, plan: Plan) -> DataFrame:
        assert plan.source_sql is not None
        try:
            return self._sql_on_snapshots(plan.source_sql, plan.references, offset=plan.source_offset)
        except DeltaConnectorError:
            raise
        except Exception as exc:
            target = plan.target
            raise DeltaConnectorError(f"the query writing to Delta table {target} failed: {_first_line(exc)}") \
                from exc

    # ---- writes --------------------------------------------------------------------------------------
    def _run_insert(self, plan: Plan) -> None:
        ref = _target(plan)
        table = open_table(self._catalog(ref.catalog), ref)
        schema = spark_schema(table.schema())
        partition_cols = list(table.metadata().partition_columns)
        lower = {c.lower() for c in partition_cols}
        for column in [*plan.partition, *plan.dynamic_partitions]:
            if column.lower() not in lower:
                raise DeltaConnectorError(f"'{column}' in PARTITION (…) is not a partition column of Delta table "
                                          f"{ref} (partition columns: {', '.join(partition_cols) or 'none'}).")
        source = self._source(plan)
        frame = align(source, schema, ref=ref, columns=plan.columns, static=plan.partition, by_name=plan.by_name)
        writer = self._statement_writer(ref)
        operation = "INSERT OVERWRITE" if plan.overwrite else "INSERT INTO"
        if not plan.overwrite:
            # An append whose query reads the table itself is not blind: concurrent changes to it conflict.
            blind = all(r.ref != ref for r in plan.references)
            read = getattr(self._read_versions, "latest", {}).get(ref)
            version = writer.append(ref, frame, operation=operation, blind=blind, read_version=read)
        else:
            static = {next(c for c in partition_cols if c.lower() == k.lower()): v for k, v in plan.partition.items()}
            dynamic = (bool(plan.dynamic_partitions) or not static) and self._dynamic_overwrite() and bool(
                partition_cols)
            # An overwrite whose query read the table replaces only what it read: later commits conflict.
            read = getattr(self._read_versions, "latest", {}).get(ref)
            version = writer.overwrite(ref, frame, operation=operation, partition=static or None, dynamic=dynamic,
                                       read_version=read)
        self._committed(ref, version, frame)
        logger.info("delta.committed", extra={"table": str(ref), "operation": operation, "version": version})
        return None

    def _run_delete(self, plan: Plan) -> DataFrame:
        return self._row_change(plan, "DELETE")

    def _run_update(self, plan: Plan) -> DataFrame:
        return self._row_change(plan, "UPDATE")

    def _run_truncate(self, plan: Plan) -> DataFrame:
        return self._row_change(plan, "TRUNCATE")

    def _row_change(self, plan: Plan, operation: str) -> DataFrame:
        """DELETE/UPDATE/TRUNCATE on the table's latest version (as Delta's DML reads it), one commit; answers
        `num_affected_rows` as Delta does. Delta tables its subqueries read come from the run's snapshots."""
        ref = _target(plan)
        with self._snapshot_views(plan.references) as views:
            def onto_views(offset: int, piece: str) -> str:
                inside = [r for r in plan.references if offset <= r.start and r.end <= offset + len(piece)]
                return rewrite(piece, inside, views, offset=offset)

            change = RowChange(
                operation, ref, plan.alias or ref.table,
                condition=onto_views(*plan.condition) if plan.condition else None,
                assignments=tuple((column, onto_views(offset, value)) for column, offset, value in plan.assignments))
            table = open_table(self._catalog(ref.catalog), ref)
            result = apply_change(self.spark, self._statement_writer(ref), table, change)
            if result.committed:
                written = result.rewritten if result.rewritten is not None else self.spark.createDataFrame(
                    [], spark_schema(table.schema()))
                self._committed(ref, result.version, written)
                logger.info("delta.committed", extra={"table": str(ref), "operation": operation,
                                                      "version": result.version})
        return self.spark.createDataFrame([(result.affected_rows,)], "num_affected_rows BIGINT")

    def _run_merge(self, plan: Plan) -> DataFrame:
        """MERGE INTO on the table's latest version, one commit; answers Delta's four counts."""
        ref = _target(plan)
        with self._snapshot_views(plan.references) as views:
            try:
                tree = sqlglot.parse_one(rewrite(plan.sql, plan.references, views), dialect="spark")
            except (ParseError, TokenError) as exc:
                raise DeltaConnectorError(f"MERGE INTO {ref}: {str(exc).splitlines()[0]}") from exc
            if not isinstance(tree, sqlglot.exp.Merge):
                raise DeltaConnectorError(f"MERGE INTO {ref}: the statement could not be read as a MERGE.")
            spec = merge_spec(tree, ref, plan.alias or ref.table)
            result = apply_merge(self.spark, self._statement_writer(ref),
                                 open_table(self._catalog(ref.catalog), ref), spec)
            if result.committed:
                self._committed(ref, result.version, result.written)
                logger.info("delta.committed", extra={"table": str(ref), "operation": "MERGE",
                                                      "version": result.version})
        affected = result.updated + result.deleted + result.inserted
        return self.spark.createDataFrame(
            [(affected, result.updated, result.deleted, result.inserted)],
            "num_affected_rows BIGINT, num_updated_rows BIGINT, num_deleted_rows BIGINT, num_inserted_rows BIGINT")

    def _run_create_table(self, plan: Plan) -> None:
        ref = _target(plan)
        catalog = self._catalog(ref.catalog)
        # CREATE OR REPLACE of an existing table is one commit on it (history kept); of a missing one, version 0.
        replacing = plan.replace and self._table_exists(ref)
        if not replacing and self._table_exists(ref):
            if plan.if_exists:
                return None
            raise DeltaConnectorError(f"Delta table {ref} already exists.")
        self._require_database(catalog, ref.database)
        configuration = self._table_properties(ref, plan.properties)
        writer = self._writer(ref.catalog)
        verb = "CREATE OR REPLACE TABLE" if plan.replace else "CREATE TABLE"
        if plan.kind == "ctas":
            source = self._source(plan)
            writer = self._statement_writer(ref)
            schema = T.StructType([T.StructField(f.name, f.dataType, True, f.metadata) for f in source.schema.fields])
            partition_by = self._partition_columns(ref, schema, plan.partition_by)
            frame = source.select(*[f"`{f.name}`" for f in schema.fields])
            make = writer.replace if replacing else writer.create
            version = make(ref, schema, partition_by=partition_by, frame=frame, description=plan.comment,
                           configuration=configuration, operation=f"{verb} AS SELECT")
            self._committed(ref, version, source)
            return None
        schema = self._ddl_schema(ref, plan.columns_ddl or "")
        if plan.partition_ddl:
            extra = self._ddl_schema(ref, plan.partition_ddl)
            schema = T.StructType(schema.fields + [f for f in extra.fields if f.name not in schema.names])
        partition_by = self._partition_columns(ref, schema, plan.partition_by)
        if replacing:
            version = writer.replace(ref, schema, partition_by=partition_by, description=plan.comment,
                                     configuration=configuration, operation=verb)
            self._committed(ref, version, self.spark.createDataFrame([], schema))
            return None
        version = writer.create(ref, schema, partition_by=partition_by, description=plan.comment,
                                configuration=configuration, operation=verb)
        self._committed(ref, version, None)
        return None

    _run_ctas = _run_create_table

    def _run_drop_table(self, plan: Plan) -> None:
        ref = _target(plan)
        catalog = self._catalog(ref.catalog)
        if not self._table_exists(ref):
            if plan.if_exists:
                return None
            raise DeltaConnectorError(f"Delta table {ref} does not exist.")
        self._storage(catalog).delete(catalog.table_uri(ref))
        self._dropped(ref)
        logger.info("delta.table_dropped", extra={"table": str(ref)})
        return None

    def _run_create_db(self, plan: Plan) -> None:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        storage = self._storage(catalog)
        if storage.exists(catalog.database_uri(database)):
            if plan.if_exists:
                return None
            raise DeltaConnectorError(f"database '{database}' already exists in Delta catalog '{catalog.name}'.")
        storage.mkdirs(catalog.database_uri(database))
        return None

    def _run_drop_db(self, plan: Plan) -> None:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        storage = self._storage(catalog)
        if not storage.exists(catalog.database_uri(database)):
            if plan.if_exists:
                return None
            raise DeltaConnectorError(f"database '{database}' does not exist in Delta catalog '{catalog.name}'.")
        contents = metadata.tables(catalog, storage, database)
        if contents and not plan.cascade:
            raise DeltaConnectorError(f"database '{database}' in Delta catalog '{catalog.name}' is not empty "
                                      f"({len(contents)} table(s)); use DROP DATABASE … CASCADE.")
        storage.delete(catalog.database_uri(database))
        return None

    # ---- metadata ------------------------------------------------------------------------------------
    def _run_show_dbs(self, plan: Plan) -> DataFrame:
        catalog = self._catalog(plan.catalog or "")
        return metadata.show_databases(self.spark, catalog, self._storage(catalog), plan.pattern)

    def _run_show_tables(self, plan: Plan) -> DataFrame:
        catalog = self._catalog(plan.catalog or "")
        return metadata.show_tables(self.spark, catalog, self._storage(catalog), plan.database or "", plan.pattern)

    def _run_describe(self, plan: Plan) -> DataFrame:
        ref = _target(plan)
        table = open_table(self._catalog(ref.catalog), ref)
        return metadata.describe(self.spark, self._catalog(ref.catalog), ref, table, extended=plan.extended)

    def _run_history(self, plan: Plan) -> DataFrame:
        ref = _target(plan)
        return metadata.history(self.spark, commit_history(open_table(self._catalog(ref.catalog), ref), ref, plan.limit))

    def _run_unsupported(self, plan: Plan) -> None:
        raise DeltaConnectorError(
            f"{plan.reason} is not supported on Delta tables by the embedded Delta connector (it supports SELECT "
            "with time travel, INSERT INTO/OVERWRITE, MERGE INTO, UPDATE, DELETE, TRUNCATE TABLE, CREATE [OR REPLACE] "
            "TABLE [AS SELECT], ALTER TABLE ADD COLUMNS/SET|UNSET TBLPROPERTIES/ALTER COLUMN COMMENT, RESTORE, "
            "OPTIMIZE, VACUUM, DROP TABLE, CREATE/DROP DATABASE, SHOW and DESCRIBE [HISTORY|DETAIL]). "
            "Use LAKEPORT_DELTA_MODE=jvm with "
            "delta-spark jars for it."
        )

    # ---- helpers -------------------------------------------------------------------------------------
    def _reader(self, current_catalog: str | None, current_database: str | None) -> StatementReader:
        catalog = self.spark._jsparkSession.sessionState().catalog()

        def is_temp_view(name: str) -> bool:
            return bool(catalog.getTempView(name).isDefined())

        return StatementReader(dict(self._catalogs), current_catalog=current_catalog,
                               current_database=current_database, is_temp_view=is_temp_view)

    def _catalog(self, name: str) -> DeltaCatalog:
        try:
            return self._catalogs[name.lower()]
        except KeyError:
            raise DeltaConnectorError(f"'{name}' is not a registered Delta catalog.") from None

    def _storage(self, catalog: DeltaCatalog) -> Storage:
        return storage_for(is_local=catalog.is_local, spark=self.spark)

    def _writer(self, name: str) -> DeltaWriter:
        catalog = self._catalog(name)
        writer = DeltaWriter(self.spark, catalog, self._storage(catalog))
        # Delta's `spark.databricks.delta.commitInfo.userMetadata`: a caller's label on every commit of the session
        label = self.spark.conf.get(USER_METADATA_CONF, None)
        if label:
            writer.extra_metadata["userMetadata"] = label
        return writer

    def _statement_writer(self, target: TableRef) -> DeltaWriter:
        """The writer of a statement's commit to `target`, recording the versions of the other Delta tables the
        statement read (READS_KEY): a consistent read traces `target`'s version to them, as a view's to its sources."""
        writer = self._writer(target.catalog)
        read: dict[TableRef, int] = getattr(self._read_versions, "read", {})
        sources = {str(r): v for r, v in read.items() if r != target}
        if sources:
            writer.extra_metadata[READS_KEY] = json.dumps(sources, sort_keys=True)
        return writer

    def _table_exists(self, ref: TableRef) -> bool:
        catalog = self._catalog(ref.catalog)
        return bool(DeltaTable.is_deltatable(catalog.table_uri(ref), catalog.delta_options()))

    def _require_database(self, catalog: DeltaCatalog, database: str) -> None:
        if not metadata.database_exists(catalog, self._storage(catalog), database):
            raise DeltaConnectorError(f"database '{database}' does not exist in Delta catalog '{catalog.name}' "
                                      f"(CREATE DATABASE {catalog.name}.{database} first).")

    def _dynamic_overwrite(self) -> bool:
        mode = self.spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static") or "static"
        return mode.lower() == "dynamic"

    def _ddl_schema(self, ref: TableRef, ddl: str, what: str = "") -> T.StructType:
        try:
            parsed = jvm(self.spark).org.apache.spark.sql.types.StructType.fromDDL(ddl)
        except Exception as exc:
            raise DeltaConnectorError(f"{what or f'CREATE TABLE {ref}'}: invalid column definitions: "
                                      f"{_first_line(exc)}") from exc
        return T.StructType.fromJson(json.loads(parsed.json()))

    def _partition_columns(self, ref: TableRef, schema: T.StructType, names: list[str]) -> list[str]:
        by_lower = {f.name.lower(): f.name for f in schema.fields}
        missing = [n for n in names if n.lower() not in by_lower]
        if missing:
            raise DeltaConnectorError(f"PARTITIONED BY {', '.join(missing)}: not column(s) of Delta table {ref}.")
        return [by_lower[n.lower()] for n in names]

    def _table_properties(self, ref: TableRef, properties: Mapping[str, str]) -> dict[str, str]:
        for key, value in properties.items():
            refused = _REFUSED_PROPERTIES.get(key.lower())
            if refused and value.lower() == refused[0]:
                raise DeltaConnectorError(f"TBLPROPERTIES '{key}'='{value}' on {ref} would enable the Delta feature "
                                          f"'{refused[1]}', which the embedded Delta connector does not write.")
            if key.lower() == "delta.columnmapping.mode" and value.lower() != "none":
                raise DeltaConnectorError(f"TBLPROPERTIES '{key}'='{value}' on {ref}: the embedded Delta connector "
                                          "enables column mapping on an existing table only: create it, then ALTER "
                                          f"TABLE {ref} SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name').")
            if not key.lower().startswith("delta."):
                raise DeltaConnectorError(f"TBLPROPERTIES '{key}' on {ref}: delta-rs keeps only Delta table "
                                          "properties (keys starting with 'delta.'); use COMMENT for notes.")
            if key.lower().startswith("delta.feature."):
                raise DeltaConnectorError(f"TBLPROPERTIES '{key}' on {ref}: enabling table features explicitly is "
                                          "not supported by the embedded Delta connector.")
        return dict(properties)


def _target(plan: Plan) -> TableRef:
    if plan.target is None:
        raise DeltaConnectorError("statement has no target table.")
    return plan.target


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
