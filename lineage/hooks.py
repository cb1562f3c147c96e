"""Lineage's part in a run (jobs/hooks.py): START at the claim, the snapshot in the engine request, the captured
lineage stored in the transaction that ends the run and emitted after it; a submission's `snapshot` field."""

from __future__ import annotations

from collections.abc import Sequence

from jobs.hooks import RequestExtras
from jobs.models import JobRun
from lakeport_engine.protocol import StatementEvent
from lineage.services import (
    RunLineage,
    SnapshotRequest,
    lineage_emit_run,
    lineage_run_started,
    lineage_store_run,
    run_snapshot_create,
    snapshot_for_engine,
    snapshot_request_validate,
)


class LineageRunHook:
    """Records what each run read and wrote (registered by LineageConfig.ready())."""

    def run_started(self, *, run: JobRun) -> None:
        lineage_run_started(run=run)

    def request_extras(self, *, run: JobRun) -> RequestExtras:
        return {"snapshot": snapshot_for_engine(run=run)}

    def run_finishing(self, *, run: JobRun, status: str, statements: Sequence[StatementEvent]) -> RunLineage | None:
        # the engine's statement results carry each statement's lineage; stored with the run's end, not after it
        return lineage_store_run(run=run, status=status, statements=statements)

    def run_finished(self, *, run: JobRun, token: object) -> None:
        lineage_emit_run(run=run, recorded=token if isinstance(token, RunLineage) else None)


class SnapshotSubmissionHook:
    """A run submission's `snapshot`: validated before the run exists, stored before its task is sent."""

    field = "snapshot"

    def validate(self, *, team_id: int, data: object) -> SnapshotRequest | None:
        return snapshot_request_validate(team_id=team_id, data=data if isinstance(data, dict) else None)

    def store(self, *, run: JobRun, validated: object) -> None:
        if isinstance(validated, SnapshotRequest):
            run_snapshot_create(run=run, request=validated)
