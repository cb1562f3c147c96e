"""Groups inside a team and the privileges granted to members and groups on catalogs, schemas and tables.

See docs/access.md: a securable is `cat`, `cat.*`, `cat.db`, `cat.db.*` or `cat.db.table`; a grant on one holds
below it; a catalog that no grant names keeps the team's role defaults.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from lakeport_engine.protocol import PRIVILEGES

GROUP_NAME_RE = r"^[a-z][a-z0-9_-]{0,62}$"


class Privilege(models.TextChoices):
    """What a grant allows on its securable (docs/access.md; MANAGE implies the others, each implies BROWSE)."""

    BROWSE = "BROWSE", "Browse"
    SELECT = "SELECT", "Select"
    MODIFY = "MODIFY", "Modify"
    CREATE = "CREATE", "Create"
    MANAGE = "MANAGE", "Manage"


assert tuple(Privilege.values) == PRIVILEGES  # one list of privileges: the engine protocol's


class Group(models.Model):
    """A named set of a team's members, a principal grants can name."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="access_groups")
    name = models.CharField(max_length=63, validators=[RegexValidator(
        GROUP_NAME_RE, "Use lowercase letters, digits, '_' and '-', starting with a letter.")])
    description = models.CharField(max_length=500, blank=True, default="")
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="access_groups", blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="uniq_group_team_name")]
        ordering = ["team_id", "name"]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.name}"


class Grant(models.Model):
    """`privilege` on `securable` to a member (`user`) or a `group` of the team; `catalog` is the securable's first
    part (the catalog it governs)."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="grants")
    securable = models.CharField(max_length=200)
    catalog = models.CharField(max_length=63, db_index=True)
    privilege = models.CharField(max_length=8, choices=Privilege.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                             related_name="+")
    group = models.ForeignKey(Group, on_delete=models.CASCADE, null=True, blank=True, related_name="grants")
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    granted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(user__isnull=False, group__isnull=True)
                                   | models.Q(user__isnull=True, group__isnull=False), name="grant_one_principal"),
            models.UniqueConstraint(fields=["team", "securable", "privilege", "user"], condition=models.Q(
                user__isnull=False), name="uniq_grant_user"),
            models.UniqueConstraint(fields=["team", "securable", "privilege", "group"], condition=models.Q(
                group__isnull=False), name="uniq_grant_group"),
        ]
        ordering = ["securable", "privilege", "id"]

    def __str__(self) -> str:
        return f"{self.privilege} ON {self.securable} TO {self.principal}"

    @property
    def principal(self) -> str:
        """`user:alice` or `group:analysts`."""
        return f"group:{self.group.name}" if self.group_id and self.group else f"user:{self.user}"


class RowFilter(models.Model):
    """A boolean SQL expression over a table's columns and the caller: a read of `table` returns only the rows for
    which it is true (docs/access.md, "Row filters and column masks"). One per table."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="row_filters")
    table = models.CharField(max_length=200)  # `cat.db.t`, lower case
    catalog = models.CharField(max_length=63, db_index=True)
    expression = models.TextField()
    description = models.CharField(max_length=500, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "table"], name="uniq_row_filter_table")]
        ordering = ["table", "id"]

    def __str__(self) -> str:
        return f"row filter on {self.table}"


class ColumnMask(models.Model):
    """A scalar SQL expression that replaces `column` of `table` in every read (its value cast to the column's
    type). One per column."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="column_masks")
    table = models.CharField(max_length=200)
    catalog = models.CharField(max_length=63, db_index=True)
    column = models.CharField(max_length=128)
    expression = models.TextField()
    description = models.CharField(max_length=500, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "table", "column"], name="uniq_column_mask_column")]
        ordering = ["table", "column", "id"]

    def __str__(self) -> str:
        return f"column mask on {self.table}.{self.column}"
