"""Job-side state kept in the database (the source of truth): SQL jobs, their runs, run logs, worker heartbeats."""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker proved it was alive; /healthz and the reaper read it."""

    hostname = models.CharField(max_length=255, unique=True)
    pid = models.IntegerField()
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    engines = models.JSONField(default=dict, blank=True,
                               help_text='The worker\'s alive engines at its last beat: {team: {"alive", "rss_bytes"}}.')

    def __str__(self) -> str:
        return f"{self.hostname} (last seen {self.last_seen:%H:%M:%S})"


class Engine(models.TextChoices):
    """Where a run executes: the platform default, the team's long-lived engine, or an engine of its own."""

    DEFAULT = "default", "Platform default"
    WARM = "warm", "Team engine (long-lived driver of the team, new session per run)"
    ISOLATED = "isolated", "Isolated engine (a driver of the run's own)"


class JobKind(models.TextChoices):
    """A batch job runs to completion per submitted run; a streaming job is one supervised long-running query."""

    BATCH = "batch", "Batch"
    STREAMING = "streaming", "Streaming"


class SqlJob(models.Model):
    """A named Spark SQL script of one team, with its Spark conf overrides and engine choice."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="sql_jobs")
    name = models.CharField(max_length=200)
    sql = models.TextField()
    spark_conf = models.JSONField(default=dict, blank=True, help_text="Allow-listed Spark SQL conf overrides.")
    default_catalog = models.CharField(max_length=63, blank=True, default="")
    engine = models.CharField(max_length=16, choices=Engine.choices, default=Engine.DEFAULT)
    kind = models.CharField(max_length=16, choices=JobKind.choices, default=JobKind.BATCH,
                            help_text="streaming: the script ends with one streaming INSERT, run by streams/.")
    max_retries = models.PositiveSmallIntegerField(
        default=0, help_text="How often a run whose worker was lost is re-queued before it fails."
    )
    parameters = models.JSONField(default=dict, blank=True,
                                  help_text='`${name}` parameters of the SQL: {name: {"type", "default"}}.')
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="uniq_sqljob_team_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.name}"


class RunStatus(models.TextChoices):
    """`QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED`; a QUEUED run may also be cancelled directly."""

    QUEUED = "QUEUED", "Queued"
    RUNNING = "RUNNING", "Running"
    SUCCEEDED = "SUCCEEDED", "Succeeded"
    FAILED = "FAILED", "Failed"
    CANCELLED = "CANCELLED", "Cancelled"


TERMINAL_STATUSES = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


def empty_progress() -> dict[str, int]:
    return {"statements_done": 0, "statements_total": 0, "stages_done": 0, "stages_total": 0,
            "tasks_done": 0, "tasks_total": 0}


class JobRun(models.Model):
    """One execution of a SqlJob. The script and conf are copied at submission so later edits do not change it."""

    job = models.ForeignKey(SqlJob, on_delete=models.CASCADE, related_name="runs")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="job_runs")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)
    sql = models.TextField(help_text="The script as run: parameters already rendered as SQL literals.")
    parameters = models.JSONField(default=dict, blank=True, help_text='Values used: {name: {"type", "value"}}.')
    spark_conf = models.JSONField(default=dict, blank=True)
    default_catalog = models.CharField(max_length=63, blank=True, default="")
    engine = models.CharField(max_length=16, choices=Engine.choices, default=Engine.DEFAULT,
                              help_text="The engine asked for; `engine_used` is the one that ran it.")
    engine_used = models.CharField(max_length=32, blank=True, default="")
    attempt = models.PositiveIntegerField(default=0, help_text="Incremented by every claim.")
    max_retries = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=255, blank=True, default="")
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="Last time a task message was sent.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Written by the executing process.")
    spark_app_id = models.CharField(max_length=255, blank=True, default="")
    spark_ui_url = models.CharField(max_length=500, blank=True, default="")  # the engine's own address (loopback)
    progress = models.JSONField(default=empty_progress)
    statements = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    error = models.JSONField(null=True, blank=True, help_text='{"statement", "line", "column", "message"}')
    catalogs_used = models.JSONField(default=list, blank=True)
    result = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder,
                              help_text='Last query preview: {"columns", "rows", "truncated"}.')
    log_lines = models.PositiveIntegerField(default=0, help_text="Number of JobRunLogLine rows (the next offset).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "idempotency_key"], name="uniq_jobrun_job_idempotency_key",
                                    condition=models.Q(idempotency_key__isnull=False)),
        ]
        indexes = [models.Index(fields=["team", "-created_at"], name="jobrun_team_created")]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk} of job {self.job_id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def spark_ui_prefix(self) -> str:
        """The path the run's Spark UI is served under (jobs/spark_ui_views.py); Spark writes its links below it."""
        return f"/t/{self.team.name}/runs/{self.pk}/spark"

    @property
    def spark_ui_path(self) -> str:
        """Where the team's members open this run's Spark UI; "" before its engine reported one."""
        return f"{self.spark_ui_prefix}/" if self.spark_ui_url else ""


class JobRunLogLine(models.Model):
    """One line of a run's incremental log; `seq` is 0-based and dense per run (the log offset)."""

    run = models.ForeignKey(JobRun, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveIntegerField()
    ts = models.DateTimeField(default=timezone.now)
    level = models.CharField(max_length=8, default="INFO")
    message = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="uniq_jobrunlog_run_seq")]
        ordering = ["run", "seq"]
