"""Job-side state kept in the database (the source of truth)."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker proved it was alive; /healthz and the reaper read it."""

    hostname = models.CharField(max_length=255, unique=True)
    pid = models.IntegerField()
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.hostname} (last seen {self.last_seen:%H:%M:%S})"
