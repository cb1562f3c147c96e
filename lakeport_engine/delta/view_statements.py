"""Materialized views in the embedded Delta connector: CREATE, REFRESH (full or incremental), ALTER, DROP, SHOW,
DESCRIBE, and refusing direct writes into a view. Mixed into `EmbeddedDelta`.

A view is a Delta table at its own name plus a definition in the team's `ViewStore`. Every refresh is one Delta
commit to the view table, and that commit's commitInfo records the source versions it reflects (`SOURCES_KEY`):
a refresh killed after its commit but before the store update is still recorded, and one killed before its
commit left the view at its previous version. The next refresh starts from what the view's log says.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deltalake import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.commit import DeltaWriter, align
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.history import commit_history
from lakeport_engine.delta.refresh import Incremental, incremental_shape
from lakeport_engine.delta.schema import spark_schema
from lakeport_engine.delta.snapshot import open_table, read_actions, snapshot_frame, travel
from lakeport_engine.delta.statements import Plan, Reference, StatementReader, rewrite
from lakeport_engine.delta.view_sql import ViewPlan, qualify_query
from lakeport_engine.matviews import MODE_KEY, SOURCES_KEY, ViewDefinition, ViewStore

if TYPE_CHECKING:
    from lakeport_engine.datasets import Dataset
    from lakeport_engine.delta.storage import Storage
    from lakeport_engine.pins import SnapshotPins
    from lakeport_engine.row_policy import RowPolicy

logger = logging.getLogger(__name__)
WRITES = {"insert": "INSERT INTO", "delete": "DELETE FROM", "update": "UPDATE", "truncate": "TRUNCATE TABLE",
          "merge": "MERGE INTO", "drop_table": "DROP TABLE", "alter_table": "ALTER TABLE", "restore": "RESTORE TABLE",
          "create_table": "CREATE OR REPLACE TABLE", "ctas": "CREATE OR REPLACE TABLE"}
# The view table refuses concurrent commits that only add files: two refreshes never both apply the same changes.
VIEW_TABLE_PROPERTIES = {"delta.isolationLevel": "Serializable"}


@dataclass(frozen=True)
class RefreshResult:
    """What one refresh did: `mode` full | incremental | none (already fresh), why not incremental, the view
    table's version after it and the source versions it reflects."""

    mode: str
    reason: str | None
    table_version: int
    sources: dict[str, int]
    rows: int | None


class MaterializedViews:
    """The materialized view statements of `EmbeddedDelta` (see the module docstring)."""

    views: ViewStore | None

    if TYPE_CHECKING:  # provided by EmbeddedDelta
        spark: SparkSession
        views_read: dict[str, Dataset]
        _read_versions: Any

        @property
        def pins(self) -> SnapshotPins: ...
        @property
        def row_policy(self) -> RowPolicy: ...
        def _catalog(self, name: str) -> DeltaCatalog: ...
        def _storage(self, catalog: DeltaCatalog) -> Storage: ...
        def _writer(self, name: str) -> DeltaWriter: ...
        def _reader(self, current_catalog: str | None, current_database: str | None) -> StatementReader: ...
        def _dataset(self, ref: TableRef, version: int | None) -> Dataset: ...
        def _committed(self, ref: TableRef, version: int, frame: DataFrame | None) -> None: ...
        def _dropped(self, ref: TableRef) -> None: ...
        def _table_exists(self, ref: TableRef) -> bool: ...
        def _require_database(self, catalog: DeltaCatalog, database: str) -> None: ...
        def _table_properties(self, ref: TableRef, properties: Mapping[str, str]) -> dict[str, str]: ...
        def _partition_columns(self, ref: TableRef, schema: T.StructType, names: list[str]) -> list[str]: ...
        def _sql_on_snapshots(self, text: str, references: list[Reference], *, offset: int = 0,
                              keep_views: bool = False) -> DataFrame: ...

    # ---- guarding writes ---------------------------------------------------------------------------------
    def refuse_view_write(self, plan: Plan) -> None:
        """A write statement whose target is a materialized view fails: only its refresh writes it."""
        verb = WRITES.get(plan.kind)
        if plan.kind in ("create_table", "ctas") and not plan.replace:
            verb = None  # a plain CREATE of an existing name fails as "already exists"
        if verb is None or plan.target is None or self.views is None:
            return
        ref = plan.target
        if self.views.get_view(ref.catalog, ref.database, ref.table) is not None:
            hint = "DROP MATERIALIZED VIEW" if plan.kind == "drop_table" else "REFRESH MATERIALIZED VIEW"
            raise DeltaConnectorError(f"{verb} {ref}: {ref} is a materialized view; its data is written only by its "
                                      f"refresh (use {hint} {ref}).")

    # ---- statements --------------------------------------------------------------------------------------
    def _run_create_mv(self, plan: ViewPlan) -> None:
        store, ref = self._view_store(), _view(plan)
        catalog = self._catalog(ref.catalog)
        if store.get_view(ref.catalog, ref.database, ref.table) is not None:
            if plan.if_exists:
                return None
            raise DeltaConnectorError(f"materialized view {ref} already exists.")
        if self._table_exists(ref):
            raise DeltaConnectorError(f"CREATE MATERIALIZED VIEW {ref}: a Delta table of that name already exists.")
        self._require_database(catalog, ref.database)
        properties = self._table_properties(ref, {**plan.properties, **VIEW_TABLE_PROPERTIES})
        assert plan.query is not None
        frame, sources = self._recompute(ref, plan.query)
        schema = T.StructType([T.StructField(f.name, f.dataType, True, f.metadata) for f in frame.schema.fields])
        partition_by = self._partition_columns(ref, schema, plan.partition_by)
        writer = self._view_writer(ref, sources, "full")
        version = writer.create(ref, schema, partition_by=partition_by,
                                frame=frame.select(*[f"`{f.name}`" for f in schema.fields]),
                                description=plan.comment, configuration=properties,
                                operation="CREATE MATERIALIZED VIEW")
        self._committed(ref, version, frame)
        definition = ViewDefinition(
            ref.catalog, ref.database, ref.table, plan.query, refresh_mode=plan.refresh_mode,
            schedule_cron=plan.schedule_cron, schedule_timezone=plan.schedule_timezone, partition_by=partition_by,
            properties=dict(plan.properties), comment=plan.comment, sources=sources, table_version=version,
            last_refresh=_last_refresh(RefreshResult("full", "created", version, sources, None)))
        try:
            store.save_view(definition)
        except BaseException:
            self._storage(catalog).delete(catalog.table_uri(ref))  # no view table without its definition
            self._dropped(ref)
            raise
        logger.info("delta.mv_created", extra={"view": str(ref), "sources": sources})
        return None

    def _run_refresh_mv(self, plan: ViewPlan) -> DataFrame:
        definition = self._definition(_view(plan))
        result = self.refresh_view(definition, full=plan.full)
        return self.spark.createDataFrame(
            [(result.mode, result.reason, result.table_version, json.dumps(result.sources, sort_keys=True),
              result.rows)],
            "mode STRING, reason STRING, view_version BIGINT, source_versions STRING, rows_written BIGINT")

    def _run_alter_mv(self, plan: ViewPlan) -> None:
        definition = self._definition(_view(plan))
        definition.refresh_mode = plan.refresh_mode
        definition.schedule_cron, definition.schedule_timezone = plan.schedule_cron, plan.schedule_timezone
        self._view_store().save_view(definition)
        return None

    def _run_drop_mv(self, plan: ViewPlan) -> None:
        store, ref = self._view_store(), _view(plan)
        if store.get_view(ref.catalog, ref.database, ref.table) is None:
            if plan.if_exists:
                return None
            raise DeltaConnectorError(f"materialized view {ref} does not exist.")
        catalog = self._catalog(ref.catalog)
        store.drop_view(ref.catalog, ref.database, ref.table)  # first: a view without data is refreshed, not read
        if self._table_exists(ref):
            self._storage(catalog).delete(catalog.table_uri(ref))
        self._dropped(ref)
        return None

    def _run_show_mvs(self, plan: ViewPlan) -> DataFrame:
        rows = []
        for definition in self._view_store().list_views(plan.catalog or "", plan.database):
            lag = self.staleness(definition)
            rows.append((definition.database, definition.name, _refresh_text(definition),
                         any(s["behind"] != 0 for s in lag.values()),
                         (definition.last_refresh or {}).get("at"), (definition.last_refresh or {}).get("mode")))
        return self.spark.createDataFrame(rows, "database STRING, name STRING, refresh STRING, stale BOOLEAN, "
                                                "last_refresh STRING, last_refresh_mode STRING")

    def _run_describe_mv(self, plan: ViewPlan) -> DataFrame:
        ref = _view(plan)
        definition = self._definition(ref)
        references = self._references(definition)
        shape = incremental_shape(definition.query, len({r.ref for r in references}))
        last = definition.last_refresh or {}
        rows: list[tuple[str, str | None]] = [
            ("name", str(ref)), ("query", definition.query), ("refresh", _refresh_text(definition)),
            ("next_refresh", definition.next_refresh),
            ("incremental", _incremental_text(shape)),
            ("partitioned_by", ", ".join(definition.partition_by) or None), ("comment", definition.comment),
            ("view_version", str(definition.table_version) if definition.table_version is not None else None),
            ("last_refresh", last.get("at")), ("last_refresh_mode", last.get("mode")),
            ("last_refresh_reason", last.get("reason")), ("state", definition.state),
        ]
        stale = False
        for source, lag in self.staleness(definition).items():
            stale = stale or lag["behind"] != 0
            rows.append((f"source {source}", f"reflects version {lag['reflected']}; latest {lag['latest']}"
                         + (f" ({lag['behind']} version(s) behind)" if lag["behind"] else " (fresh)")))
        rows.append(("stale", "true" if stale else "false"))
        return self.spark.createDataFrame(rows, "name STRING, value STRING")

    # ---- refresh -----------------------------------------------------------------------------------------
    def refresh_view(self, definition: ViewDefinition, *, full: bool = False) -> RefreshResult:
        """Refresh one view: incrementally when its query and its source's commits allow, else in full; one commit
        (none when every source is still at the version the view reflects); the definition is updated after."""
        ref = TableRef(definition.catalog, definition.database, definition.name)
        catalog = self._catalog(ref.catalog)
        if not self._table_exists(ref):
            raise DeltaConnectorError(f"materialized view {ref} has no data table (it was deleted outside Lakeport); "
                                      "DROP and CREATE it again.")
        view_table = open_table(catalog, ref)
        read_at = view_table.version()
        reflected = reflected_sources(view_table) or dict(definition.sources)
        references = self._references(definition)
        for reference in references:  # its stored rows would be one caller's view of the table
            self.row_policy.refuse((reference.ref.catalog, reference.ref.database, reference.ref.table),
                                   "a refresh of a materialized view over a read")
        shape = incremental_shape(definition.query, len({r.ref for r in references}))
        try:
            if full:
                result = self._full(ref, definition.query, references, read_at, "REFRESH … FULL was asked")
            elif isinstance(shape, str):
                result = self._full(ref, definition.query, references, read_at, shape)
            else:
                result = self._incremental(ref, definition.query, references, shape, reflected, read_at)
        except Exception as exc:
            definition.state = "failed"
            definition.last_refresh = {**(definition.last_refresh or {}), "error": _first_line(exc)[:500],
                                       "failed_at": _now()}
            with contextlib.suppress(Exception):  # the refresh's own error is the one to report
                self._save_refreshed(definition)
            raise
        if result.mode != "none" or definition.state != "fresh":
            definition.sources, definition.table_version = result.sources, result.table_version
            definition.last_refresh, definition.state = _last_refresh(result), "fresh"
            self._save_refreshed(definition)
        logger.info("delta.mv_refreshed", extra={"view": str(ref), "mode": result.mode, "reason": result.reason,
                                                 "version": result.table_version})
        return result

    def _save_refreshed(self, refreshed: ViewDefinition) -> None:
        """Save what a refresh changed (sources, versions, last refresh, state) onto the stored definition as it
        is now: an ALTER of how the view is refreshed, made while this refresh ran, is kept, not reverted."""
        store = self._view_store()
        current = store.get_view(refreshed.catalog, refreshed.database, refreshed.name)
        if current is None:  # dropped while refreshing: nothing to record
            return
        current.sources, current.table_version = refreshed.sources, refreshed.table_version
        current.last_refresh, current.state = refreshed.last_refresh, refreshed.state
        store.save_view(current)

    def staleness(self, definition: ViewDefinition) -> dict[str, dict[str, int]]:
        """Per source: the version the view reflects, the source's latest version and how many versions behind."""
        lag: dict[str, dict[str, int]] = {}
        for source, version in sorted(definition.sources.items()):
            catalog, database, table = source.split(".", 2)
            try:
                latest = open_table(self._catalog(catalog), TableRef(catalog, database, table)).version()
            except DeltaConnectorError:
                latest = -1  # the source is gone: the view cannot be refreshed until it is back
            lag[source] = {"reflected": version, "latest": latest, "behind": latest - version}
        return lag

    def _full(self, ref: TableRef, query: str, references: list[Reference], read_at: int,
              reason: str) -> RefreshResult:
        frame, sources = self._recompute(ref, query)
        table = open_table(self._catalog(ref.catalog), ref)
        aligned = self._aligned(ref, frame, table)
        version = self._view_writer(ref, sources, "full").overwrite(
            ref, aligned, operation="REFRESH MATERIALIZED VIEW", read_version=read_at)
        self._committed(ref, version, aligned)
        return RefreshResult("full", reason, version, sources, _written_rows(table, version))

    def _incremental(self, ref: TableRef, query: str, references: list[Reference], shape: Incremental,
                     reflected: Mapping[str, int], read_at: int) -> RefreshResult:
        """The query over the rows its one changed source appended (joined with the other sources at their
        unchanged versions), merged into the view in one commit; a full refresh, saying why, when that is not
        exact (no recorded version, two changed sources, a self-join's changed table, anything but appends)."""
        tables: dict[TableRef, DeltaTable] = {}
        for source in dict.fromkeys(r.ref for r in references):
            table = open_table(self._catalog(source.catalog), source)
            key = self._dataset(source, None).key
            pinned = self.pins.version_for(key)
            if pinned is not None:
                travel(table, source, version=pinned)
            self.pins.pin(key, table.version())  # the full fallback reads the same versions
            tables[source] = table
        sources = {str(s): t.version() for s, t in tables.items()}
        unknown = [s for s in sources if s not in reflected]
        if unknown:
            return self._full(ref, query, references, read_at, f"no version of {unknown[0]} is recorded")
        changed = [s for s in tables if sources[str(s)] != reflected[str(s)]]
        if not changed:
            return RefreshResult("none", None, read_at, sources, 0)
        if len(changed) > 1:
            return self._full(ref, query, references, read_at,
                              f"more than one table of the join has commits since the last refresh "
                              f"({', '.join(map(str, changed))}); a join is refreshed incrementally only when one "
                              "side changed and the others are static")
        (source,) = changed
        if sum(1 for r in references if r.ref == source) > 1:
            return self._full(ref, query, references, read_at,
                              f"the query reads {source} more than once (a self-join), and it changed")
        catalog, old, new = self._catalog(source.catalog), reflected[str(source)], sources[str(source)]
        why = appended_only(catalog, source, old, new)
        if why is not None:
            return self._full(ref, query, references, read_at, why)
        added = set(read_actions(tables[source]).column("path").to_pylist()) - set(_paths_at(catalog, source, old))
        views: dict[tuple[Any, ...], str] = {}
        try:
            for reference in references:
                if reference.snapshot_key in views:
                    continue
                view = f"__lp_mv_{'new' if reference.ref == source else 'static'}_{uuid.uuid4().hex[:12]}"
                table = tables[reference.ref]
                frame = snapshot_frame(self.spark, table, reference.ref, only=added if reference.ref == source else None)
                frame.createOrReplaceTempView(view)
                views[reference.snapshot_key] = view
                self.views_read[view] = self._dataset(reference.ref, table.version())
            changes = self.spark.sql(rewrite(query, references, views))
            return self._merge_changes(ref, shape, changes, sources, read_at)
        finally:
            for view in views.values():
                self.spark.catalog.dropTempView(view)

    def _merge_changes(self, ref: TableRef, shape: Incremental, changes: DataFrame, sources: dict[str, int],
                       read_at: int) -> RefreshResult:
        """Commit the query's rows over the appended part into the view: appended as they are, or (aggregates)
        regrouped with the view's rows by the keys and replacing them, in one commit on `read_at`."""
        view_table = open_table(self._catalog(ref.catalog), ref)
        writer = self._view_writer(ref, sources, "incremental")
        if shape.kind == "append":
            aligned = self._aligned(ref, changes, view_table)
            version = writer.append(ref, aligned, operation="REFRESH MATERIALIZED VIEW (incremental)",
                                    blind=False, read_version=read_at)
            self._committed(ref, version, aligned)
            return RefreshResult("incremental", None, version, sources, _written_rows(view_table, version))
        part, current = (f"__lp_mv_{what}_{uuid.uuid4().hex[:12]}" for what in ("part", "view"))
        changes.createOrReplaceTempView(part)
        snapshot_frame(self.spark, view_table, ref).createOrReplaceTempView(current)
        try:
            columns = spark_schema(view_table.schema()).names
            regrouped = self._aligned(ref, self.spark.sql(shape.regroup_sql(columns, current, part)), view_table)
            version = writer.overwrite(ref, regrouped, operation="REFRESH MATERIALIZED VIEW (incremental)",
                                       read_version=read_at)
        finally:
            self.spark.catalog.dropTempView(part)
            self.spark.catalog.dropTempView(current)
        self._committed(ref, version, changes)  # lineage: the source's new rows into the view
        return RefreshResult("incremental", None, version, sources, _written_rows(view_table, version))

    def _recompute(self, ref: TableRef, query: str) -> tuple[DataFrame, dict[str, int]]:
        """The query over its sources at the run's pinned (else latest) versions, and those versions."""
        references = self._reader(None, None).read(query)
        if references is None or not references.references:
            raise DeltaConnectorError(f"the query of materialized view {ref} reads no Delta table any more.")
        try:
            frame = self._sql_on_snapshots(query, references.references)
        except DeltaConnectorError:
            raise
        except Exception as exc:
            raise DeltaConnectorError(f"the query of materialized view {ref} failed: {_first_line(exc)}") from exc
        latest: dict[TableRef, int] = getattr(self._read_versions, "latest", {})
        return frame, {str(r): v for r, v in sorted(latest.items(), key=lambda i: str(i[0]))}

    def _aligned(self, ref: TableRef, frame: DataFrame, table: DeltaTable) -> DataFrame:
        schema = spark_schema(table.schema())
        if [f.name.lower() for f in frame.schema.fields] != [f.name.lower() for f in schema.fields]:
            raise DeltaConnectorError(
                f"the query of materialized view {ref} now gives columns ({', '.join(frame.schema.names)}), not the "
                f"view's ({', '.join(schema.names)}): a source's schema changed. DROP and CREATE the view again.")
        return align(frame, schema, ref=ref, by_name=True)

    def _view_writer(self, ref: TableRef, sources: Mapping[str, int], mode: str) -> DeltaWriter:
        writer = self._writer(ref.catalog)
        writer.extra_metadata.update({SOURCES_KEY: json.dumps(dict(sources), sort_keys=True), MODE_KEY: mode})
        return writer

    def _references(self, definition: ViewDefinition) -> list[Reference]:
        """The Delta tables the view's query reads, with spans in `definition.query` (stored qualified)."""
        ref = TableRef(definition.catalog, definition.database, definition.name)
        query, references = qualify_query(self._reader(None, None), definition.query, ref)
        if query != definition.query:  # qualifying is idempotent on a stored query; anything else is a bug
            raise DeltaConnectorError(f"the stored query of materialized view {ref} is not fully qualified.")
        return references

    def _view_store(self) -> ViewStore:
        if self.views is None:
            raise DeltaConnectorError("materialized views need the platform's definition store (run the statement "
                                      "on Lakeport, not in a plain spark-submit).")
        return self.views

    def _definition(self, ref: TableRef) -> ViewDefinition:
        definition = self._view_store().get_view(ref.catalog, ref.database, ref.table)
        if definition is None:
            hint = " (it is a Delta table)" if self._table_exists(ref) else ""
            raise DeltaConnectorError(f"materialized view {ref} does not exist{hint}.")
        return definition


def reflected_sources(view_table: DeltaTable) -> dict[str, int] | None:
    """The source versions the view table's latest commit reflects (its commitInfo), or None if it says none."""
    for commit in view_table.history(1):
        raw = commit.get(SOURCES_KEY)
        if raw:
            return {str(k): int(v) for k, v in json.loads(str(raw)).items()}
    return None


def appended_only(catalog: DeltaCatalog, source: TableRef, old: int, new: int) -> str | None:
    """None if versions old+1..new of `source` only added rows (no file removed or given deletion vectors, same
    schema), else why not."""
    try:
        before = open_table(catalog, source)
        before.load_as_version(old)
    except Exception:  # noqa: BLE001 — vacuumed log, re-created table: the reason says so, refresh goes full
        return f"version {old} of {source} (the one the view reflects) can no longer be read"
    after = open_table(catalog, source)
    after.load_as_version(new)
    if (spark_schema(before.schema()) != spark_schema(after.schema())
            or list(before.metadata().partition_columns) != list(after.metadata().partition_columns)):
        return f"the schema of {source} changed in versions {old + 1}..{new}"
    old_files = _files(before)
    new_files = _files(after)
    changed = [p for p, dv in old_files.items() if new_files.get(p, "gone") != dv]
    if changed:
        return (f"{source} removed or rewrote rows in versions {old + 1}..{new} (DELETE, UPDATE, MERGE, "
                "OVERWRITE or OPTIMIZE), not only appended")
    return None


def _files(table: DeltaTable) -> dict[str, str | None]:
    actions = read_actions(table)
    paths = actions.column("path").to_pylist()
    if "deletionVector.pathOrInlineDv" in actions.column_names:
        vectors = actions.column("deletionVector.pathOrInlineDv").to_pylist()
    else:
        vectors = [None] * len(paths)
    return {p: (str(v) if v is not None else None) for p, v in zip(paths, vectors, strict=True)}


def _paths_at(catalog: DeltaCatalog, source: TableRef, version: int) -> Iterator[str]:
    table = open_table(catalog, source)
    table.load_as_version(version)
    yield from read_actions(table).column("path").to_pylist()


def _written_rows(table: DeltaTable, version: int) -> int | None:
    """Rows the view table's commit `version` wrote (from its commitInfo), for the REFRESH answer."""
    latest = DeltaTable(table.table_uri, storage_options=None) if table.table_uri.startswith("/") else None
    # a local table is read afresh (`commit_history`: true version labels); else the last few commits, as before
    commits = commit_history(latest, TableRef("", "", table.table_uri)) if latest is not None else table.history(5)
    for commit in commits:
        if commit.get("version") == version:
            rows = commit.get("lakeport.numOutputRows")
            return int(rows) if rows is not None else 0
    return None


def _incremental_text(shape: Incremental | str) -> str:
    if isinstance(shape, str):
        return f"no: {shape}"
    if shape.joins:
        return ("yes, when one table of the join only appended since the last refresh and the others did not "
                "change (else in full)")
    return "yes, when its source only appended since the last refresh (else in full)"


def _view(plan: Plan) -> TableRef:
    if plan.target is None:
        raise DeltaConnectorError("statement names no materialized view.")
    return plan.target


def _refresh_text(definition: ViewDefinition) -> str:
    if definition.refresh_mode == "schedule":
        return f"SCHEDULE CRON '{definition.schedule_cron}' AT TIME ZONE '{definition.schedule_timezone or 'UTC'}'"
    return "REFRESH ON COMMIT" if definition.refresh_mode == "on_commit" else "manual"


def _last_refresh(result: RefreshResult) -> dict[str, Any]:
    return {"at": _now(), "mode": result.mode, "reason": result.reason, "rows": result.rows,
            "table_version": result.table_version, "sources": dict(result.sources)}


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
