"""`EmbeddedPaimon`: Paimon catalogs in Spark SQL without paimon-spark jars.

pypaimon owns the metadata and the merge-on-read; Spark distributes the work (files.py hands an append table's
planned files to Spark's own parquet/ORC reader where that is exact, source.py otherwise reads one pypaimon split
per task, write.py writes from the executors and commits once from the driver). Statements are read with the
Delta connector's `StatementReader` (same grammar, same name rules; `VERSION AS OF 'tag'` for tags): reads
register each referenced snapshot as a temp view and hand the rewritten statement on (to Iceberg, Delta or
Spark); writes are one Paimon snapshot each. See docs/paimon.md.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from lakeport_engine.datasets import Dataset, paimon_dataset
from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.commit import align
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.metadata import DESCRIBE, SHOW_DATABASES, SHOW_TABLES, like
from lakeport_engine.delta.statements import Plan, Reference, StatementReader, rewrite
from lakeport_engine.paimon.catalog import (
    PaimonError,
    arrow_schema,
    check_name,
    check_options,
    check_readable,
    check_table,
    confined,
    merge_engine,
    open_catalog,
    table_path,
    type_text,
)
from lakeport_engine.paimon.files import files_frame
from lakeport_engine.paimon.source import FILTER_PUSHDOWN_CONF, FORMAT, PaimonDataSource
from lakeport_engine.paimon.write import commit, writable, write_messages
from lakeport_engine.pins import ConnectorLineage
from lakeport_kernel.redaction import redact

logger = logging.getLogger(__name__)

VIEW_PREFIX = "__lp_paimon_"
SUPPORTED = ("SELECT [VERSION AS OF <snapshot id> | '<tag>' | TIMESTAMP AS OF <timestamp>], INSERT INTO (upsert on primary-key tables), "
             "INSERT OVERWRITE [PARTITION (…)], CREATE TABLE [PARTITIONED BY] [TBLPROPERTIES] [AS SELECT], "
             "DROP TABLE, CREATE/DROP DATABASE, SHOW DATABASES/TABLES, DESCRIBE [HISTORY]")
_REFUSED_KINDS = {
    "update": "UPDATE (not written yet)",
    "merge": "MERGE INTO (not written yet; INSERT INTO a primary-key table upserts)",
    "delete": "DELETE FROM (not written yet)",
    "truncate": "TRUNCATE TABLE (not written yet; use INSERT OVERWRITE)",
}
_ALLOWED_PROPERTIES = ("primary-key", "bucket", "bucket-key", "merge-engine", "file.format", "file.compression",
                       "sequence.field", "changelog-producer", "deletion-vectors.enabled", "snapshot.num-retained.min",
                       "snapshot.num-retained.max", "comment")


@dataclass(frozen=True)
class PaimonCatalogConfig:
    """One registered Paimon catalog: its warehouse and default database."""

    name: str
    warehouse: str
    default_database: str = "default"

    @classmethod
    def from_config(cls, name: str, config: Mapping[str, Any]) -> PaimonCatalogConfig:
        """From the plain configuration (`warehouse`, `default-database`)."""
        warehouse = str(config.get("warehouse") or "").removeprefix("file://").rstrip("/")
        if not warehouse.startswith("/"):
            raise PaimonError(f"Paimon catalog '{name}': warehouse must be a local absolute path.")
        default = check_name(str(config.get("default-database") or "default"), what="database", catalog=name)
        return cls(name, warehouse, default)

    def catalog(self) -> Any:  # noqa: ANN401 - pypaimon's FileSystemCatalog
        """pypaimon's filesystem catalog of the warehouse (the default database always exists)."""
        try:
            catalog = open_catalog(self.warehouse)
        except FileNotFoundError:
            raise PaimonError(f"Paimon catalog '{self.name}': warehouse {self.warehouse} does not exist.") from None
        catalog.create_database(self.default_database, True)
        return catalog


def load_table(catalog: PaimonCatalogConfig, ref: TableRef) -> Any:  # noqa: ANN401 - pypaimon's FileStoreTable
    """An existing table of the catalog, its files confined to the warehouse (PaimonError otherwise)."""
    check_name(ref.database, what="database", catalog=catalog.name)
    check_name(ref.table, what="table", catalog=catalog.name)
    paimon = catalog.catalog()
    if not _exists(paimon, ref):
        raise PaimonError(f"Paimon table {ref} does not exist.")
    loaded = paimon.get_table(f"{ref.database}.{ref.table}")
    check_table(loaded, catalog.warehouse, table=str(ref))
    return loaded


def spark_schema(loaded: Any, name: str) -> T.StructType:  # noqa: ANN401 - pypaimon's FileStoreTable
    """The table's columns as a Spark schema (PaimonError naming a type Spark cannot hold)."""
    return _spark_schema(loaded, name)


class EmbeddedPaimon(ConnectorLineage):
    """Paimon catalogs for one Spark session: register catalogs, then `handles()` / `execute()` statements."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self._catalogs: dict[str, PaimonCatalogConfig] = {}
        self._lock = threading.Lock()
        self.views_read: dict[str, Dataset] = {}
        self.writes: list[tuple[Dataset, DataFrame]] = []
        # Where a statement goes once its Paimon tables are views (the resolver routes it on).
        self.next_sql: Callable[[str], DataFrame | None] = spark.sql
        spark.conf.set(FILTER_PUSHDOWN_CONF, "true")  # partition pruning from the query's filters
        # Spark refuses a name its *active* session already knows: make this session active first (as bindings do)
        spark.sparkContext._jvm.org.apache.spark.sql.SparkSession.setActiveSession(  # type: ignore[union-attr]
            spark._jsparkSession)
        spark.dataSource.register(PaimonDataSource)

    # ---- catalogs ----------------------------------------------------------------------------------------
    def register(self, name: str, config: Mapping[str, Any]) -> None:
        """Register (or replace) the Paimon catalog `name` from its plain configuration."""
        catalog = PaimonCatalogConfig.from_config(name.lower(), config)
        with self._lock:
            self._catalogs[catalog.name] = catalog

    def is_registered(self, name: str) -> bool:
        """True if `name` is a registered Paimon catalog."""
        return name.lower() in self._catalogs

    # ---- statements --------------------------------------------------------------------------------------
    def handles(self, sql: str, *, current_catalog: str | None, current_database: str | None) -> bool:
        """True if the statement names a Paimon table or is a SHOW/DESCRIBE/DDL in a Paimon context."""
        if not self._catalogs:
            return False
        try:
            return self._plan(sql, current_catalog, current_database) is not None
        except PaimonError:
            return True  # ours, but wrong: execute() reports it

    def execute(self, sql: str, *, current_catalog: str | None, current_database: str | None) -> DataFrame | None:
        """Run one statement: reads return a DataFrame, writes commit one snapshot and return None."""
        plan = self._plan(sql, current_catalog, current_database)
        if plan is None:
            return self.next_sql(sql)
        if plan.kind in _REFUSED_KINDS or plan.kind == "unsupported":
            reason = _REFUSED_KINDS.get(plan.kind, f"{plan.reason}")
            raise PaimonError(f"{reason} is not supported on Paimon tables by the embedded Paimon connector "
                              f"(it supports {SUPPORTED}).")
        self.refuse_row_policy(plan)
        handler: Callable[[Plan], DataFrame | None] = getattr(self, f"_run_{plan.kind}")
        try:
            return handler(plan)
        except DeltaConnectorError as exc:  # the shared statement and row-shaping helpers speak of Delta
            raise PaimonError(_paimon_words(str(exc))) from None

    def _plan(self, sql: str, current_catalog: str | None, current_database: str | None) -> Plan | None:
        catalog = self.spark._jsparkSession.sessionState().catalog()
        reader = StatementReader(dict(self._catalogs), current_catalog=current_catalog,
                                 current_database=current_database, table_format="paimon",
                                 is_temp_view=lambda name: bool(catalog.getTempView(name).isDefined()))
        try:
            return reader.read(sql)
        except DeltaConnectorError as exc:
            raise PaimonError(_paimon_words(str(exc))) from None

    # ---- lineage and pins --------------------------------------------------------------------------------
    def _dataset(self, ref: TableRef, snapshot: int | None) -> Dataset:
        catalog = self._catalog(ref.catalog)
        return paimon_dataset(catalog.name, ref.database, ref.table,
                              table_path(catalog.warehouse, ref.database, ref.table), snapshot)

    def _committed(self, ref: TableRef, frame: DataFrame | None) -> int | None:
        snapshot = _latest(self._load(ref))
        if snapshot is None:
            return None
        self.pins.pin(self._dataset(ref, None).key, snapshot, committed=True)
        if frame is not None:
            self.writes.append((self._dataset(ref, snapshot), frame))
        logger.info("paimon.committed", extra={"table": str(ref), "snapshot": snapshot})
        return snapshot

    # ---- reads -------------------------------------------------------------------------------------------
    def _run_query(self, plan: Plan) -> DataFrame | None:
        views = self._register_snapshots(plan.references, None if plan.keep_views else plan.sql)
        kept = False
        try:
            frame = self.next_sql(rewrite(plan.sql, plan.references, views))
            kept = plan.keep_views
            return frame
        finally:
            if not kept:
                for view in set(views.values()):
                    self.spark.catalog.dropTempView(view)

    def _register_snapshots(self, references: list[Reference], sql: str | None) -> dict[tuple[Any, ...], str]:
        """A temp view per table snapshot the statement reads; with `sql`, each view holds only the columns the
        statement can name (projection pushed into the read)."""
        views: dict[tuple[Any, ...], str] = {}
        try:
            for reference in references:
                if reference.snapshot_key in views:
                    continue
                view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
                # a filter or mask may name columns the statement does not: a protected table is read whole
                policy = self.row_policy.get((reference.ref.catalog, reference.ref.database, reference.ref.table))
                frame, snapshot = self.snapshot_frame(reference, None if policy is not None else sql)
                self.protected(frame, reference.ref).createOrReplaceTempView(view)
                views[reference.snapshot_key] = view
                self.views_read[view] = self._dataset(reference.ref, snapshot)
        except BaseException:
            for view in views.values():
                self.spark.catalog.dropTempView(view)
            raise
        return views

    def snapshot_frame(self, reference: Reference, sql: str | None = None) -> tuple[DataFrame, int | None]:
        """The table at the snapshot the reference reads (its time travel, else the run's pin, else the latest),
        and that snapshot's id; only the columns `sql` can name when it is given (`needed_columns`)."""
        ref = reference.ref
        loaded = self._load(ref)
        check_readable(loaded, table=str(ref))
        key = self._dataset(ref, None).key
        snapshot: int | None
        travel = {}
        if reference.timestamp_sql is not None:
            when = self._timestamp(reference)
            snapshot = _snapshot_at(loaded, when, f"TIMESTAMP AS OF {reference.timestamp_sql} on Paimon table {ref}")
        elif reference.tag is not None:
            tag = loaded.tag_manager().get(reference.tag)
            if tag is None:
                raise PaimonError(f"VERSION AS OF '{reference.tag}' on Paimon table {ref}: no such tag.")
            snapshot, travel = int(tag.id), {"scan.tag-name": reference.tag}
        elif reference.version is not None:
            snapshot = reference.version
            if _snapshot(loaded, snapshot) is None:
                raise PaimonError(f"VERSION AS OF {snapshot} on Paimon table {ref}: no such snapshot (latest is "
                                  f"{_latest(loaded)}).")
        else:
            snapshot = self.pins.version_for(key)
            as_of = self.pins.as_of_for(key) if snapshot is None else None
            if as_of is not None:  # the run reads every input as of one instant (docs/snapshots.md)
                snapshot = _snapshot_at(loaded, as_of, f"the run's snapshot as of {as_of.isoformat()} of Paimon "
                                                       f"table {ref}")
            elif snapshot is None:
                snapshot = _latest(loaded)
            if snapshot is not None:
                self.pins.pin(key, snapshot)
        if snapshot is not None and not travel:
            travel = {"scan.snapshot-id": str(snapshot)}
        at = loaded.copy(travel) if travel else loaded
        schema = _spark_schema(at, str(ref))
        keep = needed_columns(sql, [f.name for f in schema.fields]) if sql is not None else None
        fast = files_frame(self.spark, at, schema, keep) if travel else None  # Spark's own reader where exact
        if fast is not None:
            return fast, snapshot
        if keep is not None:
            schema = T.StructType([f for f in schema.fields if f.name in keep])
        self.spark.conf.set(FILTER_PUSHDOWN_CONF, "true")  # again: a script may have SET it off since
        frame = (self.spark.read.format(FORMAT)
                 .option("path", confined(str(loaded.table_path), self._catalog(ref.catalog).warehouse,
                                          table=str(ref)))
                 .option("table", str(ref)).option("travel", json.dumps(travel))
                 .option("partition_keys", json.dumps(list(at.table_schema.partition_keys)))
                 .option("schema", schema.json()).load())
        return frame, snapshot

    def _timestamp(self, reference: Reference) -> dt.datetime:
        """`TIMESTAMP AS OF <expr>` evaluated by Spark (session time zone), as an aware UTC datetime."""
        try:
            micros = self.spark.sql(f"SELECT unix_micros(CAST(({reference.timestamp_sql}) AS TIMESTAMP))").collect()[0][0]
        except Exception:
            raise PaimonError(f"TIMESTAMP AS OF on Paimon table {reference.ref}: '{reference.timestamp_sql}' is not a "
                              "timestamp.") from None
        if micros is None:
            raise PaimonError(f"TIMESTAMP AS OF on Paimon table {reference.ref}: the timestamp is NULL.")
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=int(micros))

    def _source(self, plan: Plan) -> tuple[DataFrame, list[str]]:
        assert plan.source_sql is not None
        views = self._register_snapshots(plan.references, plan.source_sql)
        try:
            frame = self.next_sql(rewrite(plan.source_sql, plan.references, views, offset=plan.source_offset))
        except PaimonError:
            raise
        except Exception as exc:
            for view in set(views.values()):
                self.spark.catalog.dropTempView(view)
            raise PaimonError(f"the query writing to Paimon table {plan.target} failed: {_first_line(exc)}") \
                from None
        if frame is None:
            raise PaimonError(f"the query writing to Paimon table {plan.target} returned no rows to write.")
        return frame, list(set(views.values()))

    def _drop(self, views: list[str]) -> None:
        for view in views:
            self.spark.catalog.dropTempView(view)

    # ---- writes ------------------------------------------------------------------------------------------
    def _run_insert(self, plan: Plan) -> None:
        ref = _target(plan)
        loaded = self._load(ref)
        writable(loaded, table=str(ref))
        if plan.dynamic_partitions:
            raise PaimonError(f"INSERT … PARTITION with dynamic partition columns into Paimon table {ref} is not "
                              "supported; give every partition column a value, or none.")
        schema = _spark_schema(loaded, str(ref))
        static = dict(plan.partition or {})
        keys = [k.lower() for k in loaded.table_schema.partition_keys]
        unknown = [k for k in static if k.lower() not in keys]
        if unknown:
            raise PaimonError(f"PARTITION column(s) {', '.join(unknown)} are not partition keys of Paimon table "
                              f"{ref} ({', '.join(loaded.table_schema.partition_keys) or 'none'}).")
        source, views = self._source(plan)
        try:
            frame = align(source, schema, ref=ref, columns=plan.columns, static=static, by_name=plan.by_name,
                          table_format="Paimon")
            overwrite: dict[str, Any] | None = None
            if plan.overwrite:
                overwrite = {next(k for k in loaded.table_schema.partition_keys if k.lower() == name.lower()): value
                             for name, value in static.items()}
            operation = "INSERT OVERWRITE" if plan.overwrite else "INSERT INTO"
            messages = write_messages(frame, loaded, overwrite=overwrite)
        except PaimonError:
            raise
        except Exception as exc:
            raise PaimonError(f"{'INSERT OVERWRITE' if plan.overwrite else 'INSERT INTO'} Paimon table {ref} "
                              f"failed, nothing was committed: {_first_line(exc)}") from None
        finally:
            self._drop(views)
        mode = str(self.spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static") or "static")
        commit(self._load(ref), messages, overwrite=overwrite, properties={"lakeport.operation": operation},
               dynamic=mode.lower() == "dynamic")
        self._committed(ref, frame)
        return None

    def _run_create_table(self, plan: Plan) -> None:
        ref = _target(plan)
        catalog = self._catalog(ref.catalog)
        paimon = catalog.catalog()
        if _exists(paimon, ref):
            if plan.if_exists:
                return None
            raise PaimonError(f"Paimon table {ref} already exists.")
        if ref.database not in paimon.list_databases():
            raise PaimonError(f"database '{ref.database}' does not exist in Paimon catalog '{catalog.name}' "
                              f"(CREATE DATABASE {catalog.name}.{ref.database} first).")
        options = self._table_properties(ref, plan.properties)
        primary = [c.strip() for c in options.pop("primary-key", "").split(",") if c.strip()]
        if primary and "bucket" not in options:
            raise PaimonError(f"CREATE TABLE {ref}: a primary-key table needs TBLPROPERTIES ('bucket'='<n>') "
                              "(dynamic buckets are not written by the embedded Paimon connector).")
        comment = plan.comment or options.pop("comment", None)
        source: DataFrame | None = None
        views: list[str] = []
        if plan.kind == "ctas":
            source, views = self._source(plan)
            spark_schema = T.StructType([T.StructField(f.name, f.dataType, True) for f in source.schema.fields])
        else:
            spark_schema = self._ddl_schema(ref, plan.columns_ddl or "")
        try:
            self._create(paimon, ref, spark_schema, list(plan.partition_by), primary, options, comment)
            if source is not None:
                try:
                    loaded = self._load(ref)
                    writable(loaded, table=str(ref))
                    frame = align(source, _spark_schema(loaded, str(ref)), ref=ref, table_format="Paimon")
                    messages = write_messages(frame, loaded, overwrite=None)
                    commit(loaded, messages, overwrite=None, properties={"lakeport.operation": "CREATE TABLE AS SELECT"})
                except BaseException as exc:
                    _await_idle_tasks(self.spark)  # the failed write's straggling tasks may still be adding files
                    self._drop_table(paimon, ref)  # CTAS: no table is left behind when its rows failed
                    if isinstance(exc, (PaimonError, KeyboardInterrupt)):
                        raise
                    raise PaimonError(f"CREATE TABLE {ref} AS SELECT failed, no table was created: "
                                      f"{_first_line(exc)}") from None
        finally:
            self._drop(views)
        self.pins.forget(self._dataset(ref, None).key)
        self._committed(ref, source)
        return None

    _run_ctas = _run_create_table

    def _create(self, paimon: Any, ref: TableRef, schema: T.StructType, partition: list[str],  # noqa: ANN401
                primary: list[str], options: dict[str, str], comment: str | None) -> None:
        import pyarrow as pa
        from pypaimon import Schema
        from pyspark.sql.pandas.types import to_arrow_schema

        by_lower = {f.name.lower(): f.name for f in schema.fields}
        for what, names in (("PARTITIONED BY", partition), ("primary-key", primary)):
            missing = [n for n in names if n.lower() not in by_lower]
            if missing:
                raise PaimonError(f"CREATE TABLE {ref}: {what} column(s) {', '.join(missing)} are not columns.")
        partition = [by_lower[n.lower()] for n in partition]
        primary = [by_lower[n.lower()] for n in primary]
        if primary and not set(partition) <= set(primary):
            raise PaimonError(f"CREATE TABLE {ref}: a primary-key table's primary key must include its partition "
                              f"columns ({', '.join(partition)}), as Paimon requires.")
        try:
            arrow = to_arrow_schema(schema)
        except Exception as exc:
            raise PaimonError(f"CREATE TABLE {ref}: a column type is not supported: {_first_line(exc)}") from None
        arrow = pa.schema([f.with_nullable(f.nullable and f.name not in primary) for f in arrow])
        try:
            paimon_schema = Schema.from_pyarrow_schema(arrow, partition_keys=partition or None,
                                                       primary_keys=primary or None, options=options,
                                                       comment=comment)
            paimon.create_table(f"{ref.database}.{ref.table}", paimon_schema, False)
        except PaimonError:
            raise
        except Exception as exc:
            raise PaimonError(f"CREATE TABLE {ref}: {_first_line(exc)}") from None

    def _run_drop_table(self, plan: Plan) -> None:
        ref = _target(plan)
        paimon = self._catalog(ref.catalog).catalog()
        if not _exists(paimon, ref):
            if plan.if_exists:
                return None
            raise PaimonError(f"Paimon table {ref} does not exist.")
        self._load(ref)  # confinement: never remove a directory outside the warehouse
        self._drop_table(paimon, ref)
        self.pins.forget(self._dataset(ref, None).key)
        return None

    def _drop_table(self, paimon: Any, ref: TableRef) -> None:  # noqa: ANN401
        catalog = self._catalog(ref.catalog)
        path = confined(table_path(catalog.warehouse, ref.database, ref.table), catalog.warehouse, table=str(ref))
        try:
            paimon.drop_table(f"{ref.database}.{ref.table}", True)
        except OSError:
            pass  # pypaimon's own removal raced a late file; the loop below removes what is left
        finally:
            for _ in range(50):
                shutil.rmtree(path, ignore_errors=True)
                if not os.path.exists(path):
                    break
                time.sleep(0.1)

    def _run_create_db(self, plan: Plan) -> None:
        catalog = self._catalog(plan.catalog or "")
        database = check_name(plan.database or "", what="database", catalog=catalog.name)
        paimon = catalog.catalog()
        if database in paimon.list_databases():
            if plan.if_exists:
                return None
            raise PaimonError(f"database '{database}' already exists in Paimon catalog '{catalog.name}'.")
        paimon.create_database(database, False)
        return None

    def _run_drop_db(self, plan: Plan) -> None:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        paimon = catalog.catalog()
        if database not in paimon.list_databases():
            if plan.if_exists:
                return None
            raise PaimonError(f"database '{database}' does not exist in Paimon catalog '{catalog.name}'.")
        tables = paimon.list_tables(database)
        if tables and not plan.cascade:
            raise PaimonError(f"database '{database}' in Paimon catalog '{catalog.name}' is not empty "
                              f"({len(tables)} table(s)); use DROP DATABASE … CASCADE.")
        for name in tables:
            self._run_drop_table(Plan("drop_table", "", target=TableRef(catalog.name, database, name)))
        paimon.drop_database(database, True, True)
        return None

    # ---- metadata ----------------------------------------------------------------------------------------
    def _run_show_dbs(self, plan: Plan) -> DataFrame:
        catalog = self._catalog(plan.catalog or "")
        match = like(plan.pattern)
        names = sorted(catalog.catalog().list_databases())
        return self.spark.createDataFrame([(n,) for n in names if match is None or match.match(n)], SHOW_DATABASES)

    def _run_show_tables(self, plan: Plan) -> DataFrame:
        catalog = self._catalog(plan.catalog or "")
        database = plan.database or ""
        paimon = catalog.catalog()
        if database not in paimon.list_databases():
            raise PaimonError(f"database '{database}' does not exist in Paimon catalog '{catalog.name}'.")
        match = like(plan.pattern)
        rows = [(database, n, False) for n in sorted(paimon.list_tables(database)) if match is None or match.match(n)]
        return self.spark.createDataFrame(rows, SHOW_TABLES)

    def _run_describe(self, plan: Plan) -> DataFrame:
        ref = _target(plan)
        loaded = self._load(ref)
        schema = loaded.table_schema
        rows: list[tuple[str, str | None, str | None]] = [
            (f.name, type_text(f.type), f.description) for f in arrow_schema(loaded)
            for f in [_Field(f, schema)]]
        if schema.partition_keys:
            rows += [("# Partitioning", "", "")] + [(f"Part {i}", k, "") for i, k in enumerate(schema.partition_keys)]
        if plan.extended:
            rows += [("", "", ""), ("# Detailed Table Information", "", ""), ("Catalog", ref.catalog, ""),
                     ("Database", ref.database, ""), ("Table", ref.table, ""), ("Provider", "paimon", ""),
                     ("Location", str(loaded.table_path), ""),
                     ("Primary Key", ", ".join(schema.primary_keys), ""),
                     ("Merge Engine", merge_engine(loaded) or "", ""),
                     ("Current Snapshot", str(_latest(loaded) or ""), ""),
                     ("Table Properties", "[" + ",".join(f"{k}={v}" for k, v in sorted(schema.options.items()))
                      + "]", ""),
                     ("Engine", "lakeport embedded Paimon connector (pypaimon splits read by Spark tasks)", "")]
        return self.spark.createDataFrame(rows, DESCRIBE)

    def _run_history(self, plan: Plan) -> DataFrame:
        ref = _target(plan)
        loaded = self._load(ref)
        rows = []
        for snap in reversed(_snapshots(loaded)):
            rows.append((dt.datetime.fromtimestamp(snap.time_millis / 1000, tz=dt.UTC).replace(tzinfo=None),
                         int(snap.id), str(snap.commit_kind), int(snap.total_record_count or 0),
                         (snap.properties or {}).get("lakeport.operation")))
        if plan.limit is not None:
            rows = rows[: plan.limit]
        return self.spark.createDataFrame(rows, "timestamp TIMESTAMP_NTZ, snapshot_id BIGINT, commit_kind STRING, "
                                                "total_record_count BIGINT, operation STRING")

    # ---- helpers -----------------------------------------------------------------------------------------
    def _catalog(self, name: str) -> PaimonCatalogConfig:
        try:
            return self._catalogs[name.lower()]
        except KeyError:
            raise PaimonError(f"'{name}' is not a registered Paimon catalog.") from None

    def _load(self, ref: TableRef) -> Any:  # noqa: ANN401 - pypaimon's FileStoreTable
        return load_table(self._catalog(ref.catalog), ref)

    def _ddl_schema(self, ref: TableRef, ddl: str) -> T.StructType:
        from lakeport_engine.jvm import jvm

        try:
            parsed = jvm(self.spark).org.apache.spark.sql.types.StructType.fromDDL(ddl)
        except Exception as exc:
            raise PaimonError(f"CREATE TABLE {ref}: invalid column definitions: {_first_line(exc)}") from None
        return T.StructType.fromJson(json.loads(parsed.json()))

    def _table_properties(self, ref: TableRef, properties: Mapping[str, str]) -> dict[str, str]:
        check_options(dict(properties), table=str(ref))
        for key in properties:
            if key.lower() not in _ALLOWED_PROPERTIES and not key.lower().startswith(("lakeport.", "fields.")):
                raise PaimonError(f"TBLPROPERTIES '{key}' on {ref} is not supported by the embedded Paimon "
                                  f"connector (allowed: {', '.join(_ALLOWED_PROPERTIES)}, fields.*, lakeport.*).")
        options = {k.lower(): str(v) for k, v in properties.items()}
        engine = options.get("merge-engine")
        if engine is not None and engine not in ("deduplicate", "partial-update", "aggregation", "first-row"):
            raise PaimonError(f"TBLPROPERTIES 'merge-engine'='{engine}' on {ref}: not a merge engine the embedded "
                              "Paimon connector reads (deduplicate, partial-update, aggregation, first-row).")
        return options


class _Field:
    """An Arrow field with its Paimon description (DESCRIBE's comment column)."""

    def __init__(self, field: Any, schema: Any) -> None:  # noqa: ANN401
        self.name = field.name
        self.type = field.type
        self.description = next((f.description for f in schema.fields if f.name == field.name), None)


def needed_columns(sql: str, columns: list[str]) -> list[str] | None:
    """The columns a statement can name: every table column spelled as an identifier anywhere in it (a superset of
    what it reads, so pruning never removes a column it uses); None — read them all — for a `*` projection (not
    `count(*)`), a NATURAL join, or a statement sqlglot cannot read."""
    import re

    import sqlglot
    from sqlglot import exp

    if re.search(r"\bnatural\b", sql, re.IGNORECASE):
        return None
    try:
        trees = [t for t in sqlglot.parse(sql, dialect="spark") if t is not None]
    except Exception:
        return None
    names: set[str] = set()
    for tree in trees:
        for star in tree.find_all(exp.Star):
            if not isinstance(star.parent, exp.Count):
                return None
        names |= {i.name.lower() for i in tree.find_all(exp.Identifier)}
    keep = [c for c in columns if c.lower() in names]
    return keep or columns[:1]  # count(*) and friends: one column keeps the row count


def _spark_schema(loaded: Any, name: str) -> T.StructType:  # noqa: ANN401
    from pyspark.sql.pandas.types import from_arrow_schema

    try:
        schema: T.StructType = from_arrow_schema(arrow_schema(loaded))
    except Exception as exc:
        raise PaimonError(f"Paimon table {name}: a column type is not supported by the embedded Paimon connector: "
                          f"{_first_line(exc)}") from None
    return schema


def _exists(paimon: Any, ref: TableRef) -> bool:  # noqa: ANN401
    try:
        return ref.database in paimon.list_databases() and ref.table in paimon.list_tables(ref.database)
    except Exception:
        return False


def _latest(loaded: Any) -> int | None:  # noqa: ANN401
    snapshot = loaded.snapshot_manager().get_latest_snapshot()
    return int(snapshot.id) if snapshot is not None else None


def _snapshot(loaded: Any, snapshot_id: int) -> Any:  # noqa: ANN401
    try:
        return loaded.snapshot_manager().get_snapshot_by_id(snapshot_id)
    except Exception:
        return None


def _snapshot_at(loaded: Any, when: dt.datetime, what: str) -> int:  # noqa: ANN401 - pypaimon's FileStoreTable
    """The newest snapshot committed at or before `when` (Paimon's `scan.timestamp-millis`: snapshot times are
    epoch milliseconds); PaimonError naming `what` when the table had none yet."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    millis = int((when - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) / dt.timedelta(milliseconds=1))
    found = loaded.snapshot_manager().earlier_or_equal_time_mills(millis)
    if found is None:
        first = next(iter(_snapshots(loaded)), None)
        since = (f"its first snapshot ({first.id}) was committed at "
                 f"{dt.datetime.fromtimestamp(first.time_millis / 1000, tz=dt.UTC).isoformat()}"
                 if first is not None else "it has no snapshot")
        raise PaimonError(f"{what}: the table had no snapshot then ({since}).")
    return int(found.id)


def _snapshots(loaded: Any) -> list[Any]:  # noqa: ANN401
    latest = _latest(loaded)
    found = [_snapshot(loaded, i) for i in range(1, (latest or 0) + 1)]
    return [s for s in found if s is not None]


def _target(plan: Plan) -> TableRef:
    if plan.target is None:
        raise PaimonError("statement has no target table.")
    return plan.target


def _paimon_words(text: str) -> str:
    """A message of the shared Delta statement helpers in Paimon's words."""
    for old, new in (("Delta catalog", "Paimon catalog"), ("Delta table", "Paimon table"),
                     ("embedded Delta connector", "embedded Paimon connector")):
        text = text.replace(old, new)
    return text


def _first_line(exc: BaseException) -> str:
    text = redact(str(exc).strip())
    return text.splitlines()[0] if text else type(exc).__name__


def _await_idle_tasks(spark: SparkSession, timeout: float = 60.0) -> None:
    """Wait (bounded) until no Spark stage of this session is active, so no task still writes files."""
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + timeout
    while tracker.getActiveStageIds() and time.monotonic() < deadline:
        time.sleep(0.1)
