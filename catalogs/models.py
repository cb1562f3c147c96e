"""The catalog table (`t_spark_catalog`, after the seed's `t_flink_catalog`) and its audit trail."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from lakeport_engine.catalog_types import DEFINITIONS

CATALOG_NAME_RE = r"^[a-z][a-z0-9_]{0,62}$"


def validate_catalog_type(value: str) -> None:
    """A catalog type must be registered (lakeport_engine/catalog_types): no model choices, so a new type needs
    no migration."""
    if value not in DEFINITIONS:
        raise ValidationError(f"Unknown catalog type '{value}'; use one of: {', '.join(DEFINITIONS)}.",
                              code="invalid_choice")


class Catalog(models.Model):
    """A named catalog of one team. `configuration` is JSON text; secret values in it are sealed
    (``{"$secret": "<fernet token>"}``, see lakeport_kernel/secretbox.py) so the Spark driver can read the row
    with psycopg and decrypt without Django."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="catalogs")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+",
        help_text="Who last changed the catalog.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="Who created the catalog.",
    )
    catalog_type = models.CharField(max_length=16, validators=[validate_catalog_type])
    catalog_name = models.CharField(
        max_length=63,
        validators=[RegexValidator(CATALOG_NAME_RE, "Use lowercase letters, digits and _, starting with a letter.")],
    )
    configuration = models.TextField(help_text="JSON; secret values sealed.")
    description = models.CharField(max_length=1000, blank=True, default="")
    version = models.PositiveIntegerField(default=1, help_text="Bumped on every change; the API's ETag.")
    create_time = models.DateTimeField(default=timezone.now)
    update_time = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "t_spark_catalog"
        constraints = [
            models.UniqueConstraint(fields=["team", "catalog_name"], name="uniq_catalog_team_name"),
        ]
        ordering = ["catalog_name"]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.catalog_name} ({self.catalog_type})"


class CatalogChangeAction(models.TextChoices):
    CREATE = "create", "Created"
    UPDATE = "update", "Updated"
    DELETE = "delete", "Deleted"
    ROTATE = "rotate", "Secrets re-encrypted"
    GRANT = "grant", "Privilege granted"
    REVOKE = "revoke", "Privilege revoked"
    REFUSE = "refuse", "Access refused"
    ROW_FILTER = "row_filter", "Row filter changed"
    COLUMN_MASK = "column_mask", "Column mask changed"


class CatalogChange(models.Model):
    """One entry of a catalog's audit trail. Keyed by team and catalog name (not a foreign key to the catalog)
    so the trail survives the catalog's deletion. `changes` maps a field to ``{"from", "to"}`` for plain
    values and to ``"set"`` / ``"changed"`` / ``"removed"`` for secrets: a secret value is never recorded."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="catalog_changes")
    catalog_name = models.CharField(max_length=63)
    catalog_type = models.CharField(max_length=16, validators=[validate_catalog_type])
    action = models.CharField(max_length=16, choices=CatalogChangeAction.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    actor_name = models.CharField(max_length=150, help_text="The actor's user name, or the command that acted.")
    time = models.DateTimeField(default=timezone.now)
    version = models.PositiveIntegerField(help_text="The catalog's version after the change (before, for a delete).")
    changes = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "t_spark_catalog_change"
        ordering = ["-time", "-id"]
        indexes = [models.Index(fields=["team", "catalog_name", "-time"], name="catalog_change_by_name")]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.catalog_name} {self.action} v{self.version} by {self.actor_name}"


# ---- materialized views (issue 32) ---------------------------------------------------------------------------
class MaterializedViewRefresh(models.TextChoices):
    MANUAL = "manual", "Manual"
    SCHEDULE = "schedule", "Schedule (cron)"
    ON_COMMIT = "on_commit", "On commit to a source"


class MaterializedView(models.Model):
    """A materialized view of an embedded Delta catalog: its definition, kept with the team's catalog (the data is
    the Delta table `<catalog>.<database>.<name>`). `sources` maps each source table to the Delta version the view
    reflects; the view table's own commits record the same (the runtime trusts those first)."""

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="materialized_views")
    database = models.CharField(max_length=255)
    name = models.CharField(max_length=255)
    query = models.TextField(help_text="The SELECT, every Delta table fully qualified.")
    refresh_mode = models.CharField(max_length=16, choices=MaterializedViewRefresh.choices,
                                    default=MaterializedViewRefresh.MANUAL)
    schedule_cron = models.CharField(max_length=200, blank=True, default="")
    schedule_timezone = models.CharField(max_length=64, blank=True, default="")
    partition_by = models.JSONField(default=list, blank=True)
    properties = models.JSONField(default=dict, blank=True)
    comment = models.CharField(max_length=1000, blank=True, default="")
    sources = models.JSONField(default=dict, blank=True, help_text='{"cat.db.table": version reflected}')
    table_version = models.BigIntegerField(null=True, blank=True)
    last_refresh = models.JSONField(null=True, blank=True)
    state = models.CharField(max_length=16, default="fresh")
    refresh_again = models.BooleanField(
        default=False, help_text="REFRESH ON COMMIT: a source committed while a refresh ran; refresh once more after.")
    declared = models.JSONField(default=dict, blank=True, help_text=(
        "The `apply -f` entry that made the view ({query, partitioned_by}); empty for a view made by SQL."))
    create_time = models.DateTimeField(default=timezone.now)
    update_time = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "t_materialized_view"
        constraints = [
            models.UniqueConstraint(fields=["catalog", "database", "name"], name="uniq_mview_catalog_db_name"),
        ]
        ordering = ["database", "name"]

    def __str__(self) -> str:
        return f"{self.catalog.catalog_name}.{self.database}.{self.name}"
