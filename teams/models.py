"""Teams, memberships with roles, and API tokens for REST integrations."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

TEAM_NAME_RE = r"^[a-z][a-z0-9-]{0,62}$"


class Role(models.TextChoices):
    """A member's role in one team, from least to most powerful."""

    VIEWER = "viewer", "Viewer"
    DEVELOPER = "developer", "Developer"
    ADMIN = "admin", "Admin"


ROLE_RANK = {Role.VIEWER: 1, Role.DEVELOPER: 2, Role.ADMIN: 3}


class Team(models.Model):
    """A group of users that owns catalogs and jobs; addressed by its unique slug `name` in URLs."""

    name = models.CharField(
        max_length=63,
        unique=True,
        validators=[RegexValidator(TEAM_NAME_RE, "Use lowercase letters, digits and '-', starting with a letter.")],
    )
    description = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in a team."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="uniq_membership_team_user")]
        ordering = ["team__name", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} as {self.role}"


class ApiToken(models.Model):
    """A bearer token for REST integrations; only its SHA-256 digest is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, help_text="The token's first characters, to recognise it.")
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @property
    def is_active(self) -> bool:
        """True while the token is neither revoked nor expired."""
        now = timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
