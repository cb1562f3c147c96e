"""The streaming kind's rules (jobs/services/kinds.py), registered by streams/apps.py: a streaming script must be
batch statements then one streaming INSERT its driver can start; a job whose stream is active keeps its kind and
cannot be deleted until the stream is stopped; a new script of a running stream restarts its driver on the same
checkpoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.errors import Conflict, InvalidInput
from jobs.models import JobKind, SqlJob
from jobs.services.kinds import JobEdit, KindRules
from streams.models import ACTIVE_STATUSES, Desired, StreamState, StreamStatus
from streams.services.statement import script_problem

# A change to one of these restarts a running stream's driver (the checkpoint stays).
RESTARTED_BY = ("sql", "spark_conf", "default_catalog", "parameters")


def _active(job_id: int) -> bool:
    return StreamState.objects.filter(job_id=job_id, status__in=ACTIVE_STATUSES).exists()


class StreamingRules(KindRules):
    """The rules of `JobKind.STREAMING` jobs."""

    def check_script(self, *, sql: str, parameters: Mapping[str, Any]) -> None:
        """Refuse a script its driver would refuse before Spark runs (streams/services/statement.py), on save."""
        problem = script_problem(sql, parameters)
        if problem is not None:
            raise InvalidInput.of({"sql": [problem.text()]})

    def check_edit(self, edit: JobEdit) -> None:
        """An active stream keeps its job's kind; a new script (conf, catalog, parameters) of a running stream
        restarts its driver once the edit commits."""
        job = edit.job
        if job.kind != JobKind.STREAMING:
            if _active(job.pk):
                raise InvalidInput.of({"kind": ["The job's stream is running; stop it before changing the kind."]})
            return
        if not edit.changed(*RESTARTED_BY):
            return
        # A new script restarts the driver on the same checkpoint; when Spark cannot resume it (changed aggregation
        # keys…), the stream is FAILED at once with Spark's reason and the way out (reset), without retries.
        job_id = job.pk
        transaction.on_commit(lambda: StreamState.objects.filter(
            job_id=job_id, desired=Desired.RUNNING,
            status__in=[StreamStatus.STARTING, StreamStatus.RUNNING, StreamStatus.RESTARTING],
        ).update(restart_seq=F("restart_seq") + 1, updated_at=timezone.now()))

    def check_delete(self, job: SqlJob) -> None:
        """A job whose stream is active is not deleted (stop the stream first)."""
        if _active(job.pk):
            raise Conflict(f"The stream of job '{job.name}' is running; stop it before deleting the job.")
