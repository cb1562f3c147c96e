"""Lineage kept in PostgreSQL: datasets by physical identity, the catalog names that alias them, run-level edges,
the job-level graph the API walks, column lineage, and the Delta snapshot each run asked for."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Direction(models.TextChoices):
    """Whether a job reads (`in`) or writes (`out`) a dataset."""

    IN = "in", "Read"
    OUT = "out", "Written"


class Dataset(models.Model):
    """One table, by its physical identity in OpenLineage naming: two catalogs on one table share this row."""

    namespace = models.CharField(max_length=500, help_text="postgres://host:port, mysql://…, hive://…, file")
    name = models.CharField(max_length=1000, help_text="database.schema.table, database.table or a table path")
    kind = models.CharField(max_length=32, help_text="jdbc-postgresql | jdbc-mysql | hive | delta")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["namespace", "name"], name="uniq_lineage_dataset_identity")]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class DatasetAlias(models.Model):
    """A catalog's name for a dataset (`pg_sales.shop.orders`); a team sees the datasets its catalogs alias."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="aliases")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    catalog = models.ForeignKey("catalogs.Catalog", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=400)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["catalog", "name"], name="uniq_lineage_alias_catalog_name")]
        indexes = [models.Index(fields=["team", "name"], name="lineage_alias_team_name")]


class RunEdge(models.Model):
    """A run read or wrote a dataset (in statement `statement`, at Delta `version`); kept for failed runs too."""

    run = models.ForeignKey("jobs.JobRun", on_delete=models.CASCADE, related_name="lineage_edges")
    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="run_edges")
    direction = models.CharField(max_length=3, choices=Direction.choices)
    statement = models.PositiveIntegerField()
    version = models.BigIntegerField(null=True, blank=True, help_text="Delta: snapshot read or version committed")
    run_status = models.CharField(max_length=16, help_text="The run's final status: edges of failed runs stay, marked")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["run", "direction"], name="lineage_runedge_run")]


class JobEdge(models.Model):
    """The job-level graph the API walks: job reads/writes dataset, as of its latest run that did."""

    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="job_edges")
    direction = models.CharField(max_length=3, choices=Direction.choices)
    last_run = models.ForeignKey("jobs.JobRun", on_delete=models.SET_NULL, null=True, related_name="+")
    last_status = models.CharField(max_length=16)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "dataset", "direction"], name="uniq_lineage_jobedge")]
        indexes = [models.Index(fields=["team", "dataset", "direction"], name="lineage_jobedge_walk")]


class ColumnEdge(models.Model):
    """Column `column` of `dataset` is computed by `job` from `input_column` of `input_dataset` (`kind`)."""

    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="+")
    column = models.CharField(max_length=255)
    input_dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="+")
    input_column = models.CharField(max_length=255)
    kind = models.CharField(max_length=16, help_text="identity | expression | aggregation")
    last_run = models.ForeignKey("jobs.JobRun", on_delete=models.SET_NULL, null=True, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "dataset", "column", "input_dataset", "input_column"],
                                               name="uniq_lineage_columnedge")]
        indexes = [models.Index(fields=["team", "dataset", "column"], name="lineage_columnedge_walk")]


class RunSnapshot(models.Model):
    """What a run asked of its Delta inputs: `as_of` an instant, the versions `like_run` read (copied here), or a
    `consistent` cut (the versions it chose are copied here when it ends)."""

    run = models.OneToOneField("jobs.JobRun", on_delete=models.CASCADE, related_name="snapshot")
    as_of = models.DateTimeField(null=True, blank=True)
    like_run = models.ForeignKey("jobs.JobRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    versions = models.JSONField(default=dict, blank=True, help_text="{table path: version} to read")
    consistent = models.BooleanField(default=False, help_text="Read one consistent cut of the pipeline; `versions` "
                                                              "are then the versions it chose, recorded at the end")
