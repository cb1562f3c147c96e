"""Writes of the lineage app: a run's captured lineage into the graph, OpenLineage events, run snapshots."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from catalogs.models import Catalog
from jobs.hooks import SubmissionRefused
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.protocol import LineageDataset, LineageDocument, SnapshotDocument, StatementEvent
from lineage import openlineage
from lineage.models import ColumnEdge, Dataset, DatasetAlias, Direction, JobEdge, RunEdge, RunSnapshot

logger = logging.getLogger("lakeport.lineage")


class SnapshotError(SubmissionRefused):
    """A snapshot request that cannot be honoured (names the field and why): a 400 on run submission."""


@dataclass(frozen=True)
class SnapshotRequest:
    """`{"as_of": datetime}`, `{"like_run": JobRun}` or `{"consistent": True}`, validated for one team."""

    as_of: datetime | None = None
    like_run: JobRun | None = None
    consistent: bool = False


def statement_lineage(statements: Iterable[StatementEvent]) -> list[tuple[int, LineageDocument]]:
    """(statement index, lineage) of the engine's statement results that carry lineage (decoded by the engine
    protocol, so the document's shape is checked: lakeport_engine/protocol.py `LineageDocument`)."""
    found = []
    for st in statements:
        lineage = st.get("lineage")
        if lineage is not None:
            found.append((st.get("index", 0), lineage))
    return found


def _dataset(entry: LineageDataset, *, team_id: int, catalogs: dict[str, Catalog],
             cache: dict[str, Dataset]) -> Dataset:
    key = f"{entry['namespace']}/{entry['physical_name']}"
    dataset = cache.get(key)
    if dataset is None:
        dataset, _ = Dataset.objects.get_or_create(namespace=entry["namespace"], name=entry["physical_name"],
                                                   defaults={"kind": entry.get("kind", "")})
        cache[key] = dataset
        catalog = catalogs.get(entry.get("catalog", ""))
        if catalog is not None:
            DatasetAlias.objects.update_or_create(catalog=catalog, name=entry["name"],
                                                  defaults={"dataset": dataset, "team_id": team_id})
    return dataset


@dataclass
class RunLineage:
    """What `_record` stored: run-level edges, and the datasets in OpenLineage form (outputs with their columns)."""

    edges: int
    inputs: dict[str, dict[str, Any]]
    outputs: dict[str, dict[str, Any]]


def _record(*, job: SqlJob, run: JobRun | None, status: str, records: list[tuple[int, LineageDocument]]) -> RunLineage:
    """Datasets, aliases, job-level and column edges of `records`; run-level edges when there is a `run`."""
    catalogs = {c.catalog_name: c for c in Catalog.objects.filter(team_id=job.team_id)}
    cache: dict[str, Dataset] = {}
    now = timezone.now()
    inputs: dict[str, dict[str, Any]] = {}
    outputs: dict[str, dict[str, Any]] = {}
    with transaction.atomic():
        edges: list[RunEdge] = []
        job_edges: set[tuple[int, str]] = set()
        for index, lineage in records:
            for direction, entries, seen in ((Direction.IN, lineage.get("inputs") or [], inputs),
                                             (Direction.OUT, lineage.get("outputs") or [], outputs)):
                for entry in entries:
                    dataset = _dataset(entry, team_id=job.team_id, catalogs=catalogs, cache=cache)
                    if run is not None:
                        edges.append(RunEdge(run=run, job_id=job.id, team_id=job.team_id, dataset=dataset,
                                             direction=direction, statement=index, version=entry.get("version"),
                                             run_status=status))
                    job_edges.add((dataset.id, direction))
                    seen.setdefault(f"{entry['namespace']}/{entry['physical_name']}", {**entry, "columns": []})
            for column in lineage.get("columns") or []:
                target = cache.get(column["dataset"])
                if target is None:
                    continue
                columns = outputs.get(column["dataset"], {}).setdefault("columns", [])
                resolved = []
                for input_key, input_column in column["inputs"]:
                    source = cache.get(input_key)
                    if source is None:
                        continue
                    resolved.append((source.namespace, source.name, input_column))
                    ColumnEdge.objects.update_or_create(
                        job_id=job.id, dataset=target, column=column["column"], input_dataset=source,
                        input_column=input_column,
                        defaults={"team_id": job.team_id, "kind": column["kind"], "last_run": run})
                columns.append({"column": column["column"], "kind": column["kind"], "inputs": resolved})
        RunEdge.objects.bulk_create(edges)
        for dataset_id, edge_direction in job_edges:
            JobEdge.objects.update_or_create(job_id=job.id, dataset_id=dataset_id, direction=edge_direction,
                                             defaults={"team_id": job.team_id, "last_run": run,
                                                       "last_status": status, "updated_at": now})
    return RunLineage(len(edges), inputs, outputs)


def lineage_record_run(*, run: JobRun, statements: Iterable[StatementEvent]) -> int:
    """Store what a finished run read and wrote (failed runs too, their edges marked) and emit COMPLETE/FAIL.

    Returns the number of run-level edges stored. Datasets are keyed by physical identity; each catalog name a
    run used becomes an alias of its team.
    """
    run.refresh_from_db(fields=["status", "error"])
    recorded = _record(job=run.job, run=run, status=run.status, records=statement_lineage(statements))
    lineage_emit_run(run=run, recorded=recorded)
    return recorded.edges


def lineage_store_run(*, run: JobRun, status: str, statements: Iterable[StatementEvent]) -> RunLineage | None:
    """Store a run's lineage inside the transaction that ends the run (a savepoint): a client that sees the run
    ended finds its lineage. Lineage is an observation: a failure here is logged and never fails the run."""
    try:
        with transaction.atomic():
            recorded = _record(job=run.job, run=run, status=status, records=statement_lineage(statements))
            _record_consistent_cut(run)
            return recorded
    except Exception:
        logger.exception("lineage.record_failed", extra={"run_id": run.id})
        return None


def _record_consistent_cut(run: JobRun) -> None:
    """A `consistent` run's snapshot keeps the versions its cut chose: the first version it read of each table."""
    snapshot = RunSnapshot.objects.filter(run_id=run.id, consistent=True).first()
    if snapshot is None:
        return
    snapshot.versions = _first_reads(run)
    snapshot.save(update_fields=["versions"])


def _first_reads(run: JobRun) -> dict[str, int]:
    """{table path: version} of the first read of each versioned table by `run` (its lineage's IN edges)."""
    versions: dict[str, int] = {}
    # every versioned read (Delta today; any type whose datasets carry a version), not a type by name
    edges = (RunEdge.objects.filter(run=run, direction=Direction.IN, version__isnull=False)
             .select_related("dataset").order_by("statement", "id"))
    for edge in edges:
        versions.setdefault(f"{edge.dataset.namespace}/{edge.dataset.name}", int(edge.version or 0))
    return versions


def lineage_emit_run(*, run: JobRun, recorded: RunLineage | None) -> None:
    """Emit a finished run's OpenLineage COMPLETE/FAIL/ABORT (after its end is committed: a transport may be slow)."""
    if recorded is None:
        return
    try:
        run.refresh_from_db(fields=["status", "error"])
        status = run.status
        state = "COMPLETE" if status == RunStatus.SUCCEEDED else "FAIL" if status == RunStatus.FAILED else "ABORT"
        error = (run.error or {}).get("message") if status != RunStatus.SUCCEEDED else None
        openlineage.emit(openlineage.run_event(run=run, state=state, inputs=recorded.inputs.values(),
                                               outputs=recorded.outputs.values(), error=error))
    except Exception:
        logger.exception("lineage.emit_failed", extra={"run_id": run.id})
        return
    logger.info("lineage.recorded", extra={"run_id": run.id, "edges": recorded.edges, "status": status})


@dataclass
class StreamLineage:
    """A streaming query's lineage as recorded at its start: what its OpenLineage end event repeats."""

    job: SqlJob
    run_id: str
    inputs: list[dict[str, Any]]
    outputs: list[dict[str, Any]]


def lineage_stream_started(*, job: SqlJob, query_run_id: str, lineage: LineageDocument | None) -> StreamLineage:
    """Record what a streaming job's query reads and writes (job-level and column edges: a stream has no run)
    and emit its OpenLineage START (processingType STREAMING)."""
    recorded = _record(job=job, run=None, status="RUNNING", records=[(0, lineage)] if lineage else [])
    started = StreamLineage(job, openlineage.stream_run_uuid(job, query_run_id), list(recorded.inputs.values()),
                            list(recorded.outputs.values()))
    openlineage.emit(openlineage.build_event(job=job, run_id=started.run_id, sql=job.sql, state="START",
                                             processing="STREAMING", inputs=started.inputs, outputs=started.outputs))
    return started


def lineage_stream_ended(*, started: StreamLineage, status: str, error: str | None = None) -> None:
    """The query of `started` ended: its job edges take the stream's `status`; emit COMPLETE, FAIL or ABORT."""
    JobEdge.objects.filter(job_id=started.job.id, last_run__isnull=True).update(last_status=status,
                                                                                 updated_at=timezone.now())
    state = {"STOPPED": "COMPLETE", "FAILED": "FAIL"}.get(status, "ABORT")
    openlineage.emit(openlineage.build_event(job=started.job, run_id=started.run_id, sql=started.job.sql, state=state,
                                             processing="STREAMING", inputs=started.inputs, outputs=started.outputs,
                                             error=error if state == "FAIL" else None))


def lineage_run_started(*, run: JobRun) -> None:
    """Emit the run's START event (the datasets follow with COMPLETE/FAIL, once the plan has been run)."""
    openlineage.emit(openlineage.run_event(run=run, state="START"))


def snapshot_request_validate(*, team_id: int, data: dict[str, Any] | None) -> SnapshotRequest | None:
    """Check a run's `snapshot` body: exactly one of `as_of` (ISO 8601), `like_run` (a run of this team) or
    `consistent` (true)."""
    if not data:
        return None
    keys = set(data) - {"as_of", "like_run", "consistent"}
    if keys or len(data) != 1:
        raise SnapshotError("snapshot", 'Give exactly one of {"as_of": "<ISO 8601 time>"}, {"like_run": <run id>} '
                                        'or {"consistent": true}.')
    if "consistent" in data:
        if data["consistent"] is not True:
            raise SnapshotError("snapshot.consistent", 'Give {"consistent": true} (or leave `snapshot` out).')
        return SnapshotRequest(consistent=True)
    if "as_of" in data:
        value = data["as_of"]
        parsed = _parse_time(value)
        if parsed is None:
            raise SnapshotError("snapshot.as_of", "Use an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z.")
        return SnapshotRequest(as_of=parsed)
    like = data["like_run"]
    if not isinstance(like, int) or isinstance(like, bool):
        raise SnapshotError("snapshot.like_run", "Give the id of an earlier run of this team.")
    run = JobRun.objects.filter(team_id=team_id, id=like).first()
    if run is None:
        raise SnapshotError("snapshot.like_run", f"Run {like} is not a run of this team.")
    return SnapshotRequest(like_run=run)


def _parse_time(value: Any) -> datetime | None:
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def run_snapshot_create(*, run: JobRun, request: SnapshotRequest) -> RunSnapshot:
    """Record what `run` must read: the Delta versions the earlier run read (first read of each), or `as_of`, or
    a consistent cut (its versions are recorded when the run ends: the engine chooses them at its first reads)."""
    versions = _first_reads(request.like_run) if request.like_run is not None else {}
    return RunSnapshot.objects.create(run=run, as_of=request.as_of, like_run=request.like_run, versions=versions,
                                      consistent=request.consistent)


def snapshot_for_engine(*, run: JobRun) -> SnapshotDocument | None:
    """The run's snapshot as the engine's script runner takes it (None: read the latest, pinned per table)."""
    snapshot = RunSnapshot.objects.filter(run_id=run.id).first()
    if snapshot is None:
        return None
    if snapshot.consistent:
        return {"as_of": None, "versions": {}, "consistent": True}
    return {"as_of": snapshot.as_of.isoformat() if snapshot.as_of else None, "versions": snapshot.versions}


