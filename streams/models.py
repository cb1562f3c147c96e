"""Stream state kept in PostgreSQL (the source of truth): one StreamState per streaming job, its per-batch
metrics, and the audit trail of users' stream actions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class StreamStatus(models.TextChoices):
    """`STARTING → RUNNING → (RESTARTING →) RUNNING | STOPPING → STOPPED | FAILED`."""

    STARTING = "STARTING", "Starting"
    RUNNING = "RUNNING", "Running"
    RESTARTING = "RESTARTING", "Restarting"
    STOPPING = "STOPPING", "Stopping"
    STOPPED = "STOPPED", "Stopped"
    FAILED = "FAILED", "Failed"


ACTIVE_STATUSES = (StreamStatus.STARTING, StreamStatus.RUNNING, StreamStatus.RESTARTING, StreamStatus.STOPPING)
IDLE_STATUSES = (StreamStatus.STOPPED, StreamStatus.FAILED)


class Desired(models.TextChoices):
    """What users asked for; the supervisor moves the stream towards it."""

    RUNNING = "running", "Running"
    STOPPED = "stopped", "Stopped"


class StreamState(models.Model):
    """The one stream of a streaming job: status, what users want, and the lease of the worker supervising it.

    Exactly one supervisor holds `lease_owner` (a token per supervision) until `lease_expires_at`; it renews the
    lease with each heartbeat and makes every write conditional on still holding it.
    """

    job = models.OneToOneField("jobs.SqlJob", on_delete=models.CASCADE, primary_key=True, related_name="stream")
    status = models.CharField(max_length=16, choices=StreamStatus.choices, default=StreamStatus.STOPPED)
    desired = models.CharField(max_length=8, choices=Desired.choices, default=Desired.STOPPED)
    restart_seq = models.PositiveIntegerField(default=0, help_text="Bumped by restart: the supervisor restarts "
                                                                   "the driver when it changes.")
    lease_owner = models.CharField(max_length=255, blank=True, default="")
    lease_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="Last time a supervise task was sent.")
    worker = models.CharField(max_length=255, blank=True, default="")
    restarts = models.PositiveIntegerField(default=0, help_text="Driver restarts since the last start.")
    last_error = models.TextField(null=True, blank=True)
    query_id = models.CharField(max_length=64, null=True, blank=True)
    checkpoint_generation = models.PositiveIntegerField(default=1)
    started_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"stream of job {self.job_id} ({self.status}, wants {self.desired})"


class StreamMetric(models.Model):
    """One micro-batch of a stream, from the runtime's `batch` event; pruned after the retention setting."""

    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, related_name="stream_metrics")
    generation = models.PositiveIntegerField(default=1)
    query_id = models.CharField(max_length=64, blank=True, default="")
    batch_id = models.BigIntegerField()
    ts = models.DateTimeField(default=timezone.now)
    input_rows = models.BigIntegerField(default=0)
    input_rows_per_second = models.FloatField(null=True, blank=True)
    processed_rows_per_second = models.FloatField(null=True, blank=True)
    output_rows = models.BigIntegerField(null=True, blank=True)
    output_rows_per_second = models.FloatField(null=True, blank=True)
    duration_ms = models.BigIntegerField(default=0)
    watermark = models.DateTimeField(null=True, blank=True)
    state_rows = models.BigIntegerField(null=True, blank=True)
    state_memory_bytes = models.BigIntegerField(null=True, blank=True)
    lag = models.BigIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["job", "ts"], name="streammetric_job_ts")]
        ordering = ["ts", "id"]


class StreamAction(models.TextChoices):
    START = "start", "Start"
    STOP = "stop", "Stop"
    RESTART = "restart", "Restart"
    RESET = "reset", "Reset (new checkpoint)"


class StreamAudit(models.Model):
    """Who did what to a stream, and when (reset above all: it replays every source from its beginning)."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    job = models.ForeignKey("jobs.SqlJob", on_delete=models.SET_NULL, null=True, related_name="+")
    job_name = models.CharField(max_length=200)
    action = models.CharField(max_length=16, choices=StreamAction.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    actor_name = models.CharField(max_length=150)
    ts = models.DateTimeField(default=timezone.now, db_index=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-ts", "-id"]
