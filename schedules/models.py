"""Schedules of batch SQL jobs and their fires: one row per schedule tick, unique, so a tick runs a job once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class CatchUp(models.TextChoices):
    """What a schedule does with ticks it missed (the platform was down, or the schedule was late)."""

    SKIP = "skip", "Skip missed ticks (fire only a tick that is due now)"
    LATEST = "latest", "Run the latest missed tick once"


class Concurrency(models.TextChoices):
    """What a tick does while the schedule's previous run is still queued or running."""

    SKIP = "skip", "Skip this tick"
    QUEUE = "queue", "Queue this tick until the previous run finishes"


class Schedule(models.Model):
    """A cron expression in an IANA time zone that submits runs of one job, with parameter overrides."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="schedules")
    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, related_name="schedules")
    name = models.CharField(max_length=200)
    cron = models.CharField(max_length=200, help_text="minute hour day-of-month month day-of-week, or @daily etc.")
    time_zone = models.CharField(max_length=64, default="UTC")
    enabled = models.BooleanField(default=True)
    catchup = models.CharField(max_length=8, choices=CatchUp.choices, default=CatchUp.SKIP)
    concurrency = models.CharField(max_length=8, choices=Concurrency.choices, default=Concurrency.SKIP)
    max_retries = models.PositiveSmallIntegerField(default=0, help_text="Runs re-submitted after a FAILED run.")
    retry_backoff_seconds = models.PositiveIntegerField(default=60, help_text="Doubles with each retry.")
    parameters = models.JSONField(default=dict, blank=True, help_text="Values overriding the job's defaults.")
    next_fire_at = models.DateTimeField(null=True, blank=True, db_index=True,
                                        help_text="The next tick the beat will fire (null while paused).")
    last_fire_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    materialized_view = models.OneToOneField(
        "catalogs.MaterializedView", on_delete=models.CASCADE, null=True, blank=True, related_name="+",
        help_text="The materialized view whose SCHEDULE CRON this is (kept by CREATE/ALTER, deleted with the view).")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="uniq_schedule_team_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.name} ({self.cron} {self.time_zone})"


class FireStatus(models.TextChoices):
    """What became of one tick."""

    SUBMITTED = "submitted", "A run was submitted"
    WAITING = "waiting", "Waiting for the previous run to finish (concurrency: queue)"
    SKIPPED = "skipped", "Skipped (the previous run was still going)"
    FAILED = "failed", "Could not submit (e.g. a parameter no longer valid)"


class ScheduleFire(models.Model):
    """One tick of a schedule. UNIQUE(schedule, fire_time) is the fire key: two beat processes, two workers or a
    restart can never make a second row, so a tick submits at most one run (retries are runs of the same row)."""

    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="fires")
    fire_time = models.DateTimeField(help_text="The tick's logical date (UTC): ${ds} and ${ts} of its runs.")
    status = models.CharField(max_length=16, choices=FireStatus.choices)
    run = models.ForeignKey("jobs.JobRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                            help_text="The latest run of this tick (a retry replaces a FAILED one).")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Runs submitted for this tick.")
    message = models.CharField(max_length=1000, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["schedule", "fire_time"], name="uniq_schedulefire_key")]
        indexes = [models.Index(fields=["schedule", "-fire_time"], name="schedulefire_recent"),
                   models.Index(fields=["status"], name="schedulefire_status")]
        ordering = ["-fire_time"]

    def __str__(self) -> str:
        return f"fire {self.fire_time:%Y-%m-%dT%H:%MZ} of schedule {self.schedule_id} ({self.status})"
