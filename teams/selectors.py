"""Reads for teams and roles."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from teams.models import ROLE_RANK, Membership, Role, Team


def team_role(*, user: User | AnonymousUser, team: Team) -> str | None:
    """The user's role in `team`: platform admins are admin everywhere; None for non-members."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.ADMIN
    return Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()


def role_allows(*, role: str, required: str) -> bool:
    """True when `role` is `required` or above it (viewer < developer < admin): the API's rule for every action."""
    return ROLE_RANK[Role(role)] >= ROLE_RANK[Role(required)]


def teams_visible_to(*, user: User) -> QuerySet[Team]:
    """Teams a user may see: all of them for platform admins, else those they belong to."""
    if user.is_superuser:
        return Team.objects.all()
    return Team.objects.filter(memberships__user=user).distinct()


def roles_by_team(*, user: User) -> dict[int, str]:
    """Map team id → the user's role, for listing teams with roles in one query."""
    return dict(Membership.objects.filter(user=user).values_list("team_id", "role"))
