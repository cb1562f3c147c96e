"""Team-scoped RBAC: every `/api/v1/teams/{team}/…` view resolves the team and the caller's role here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from rest_framework import exceptions, permissions
from rest_framework.request import Request

from teams.models import Role, Team
from teams.selectors import role_allows, team_role

if TYPE_CHECKING:
    from rest_framework.permissions import _PermissionClass


class TeamRolePermission(permissions.BasePermission):
    """Require membership of the URL's team, with a role that depends on the method.

    Views set `read_role` (safe methods) and `write_role` (others), or override
    `required_role(request)`. Unknown teams and teams the caller is not in answer 404, so team
    names do not leak; a member with too small a role gets 403.
    """

    def has_permission(self, request: Request, view: Any) -> bool:
        if not request.user or not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        team = Team.objects.filter(name=view.kwargs.get("team", "")).first()
        role = team_role(user=request.user, team=team) if team is not None else None
        if team is None or role is None:
            raise exceptions.NotFound("Team not found.")
        view.team = team
        view.team_role = role
        required = view.required_role(request) if hasattr(view, "required_role") else _default_required(request, view)
        if not role_allows(role=role, required=required):
            raise exceptions.PermissionDenied(f"This needs the '{required}' role in team '{team.name}'; you are '{role}'.")
        return True


def request_user(request: Request) -> User:
    """The signed-in user of a request its view's permissions let through (never the anonymous user there)."""
    user = request.user
    if not isinstance(user, User):
        raise exceptions.NotAuthenticated()
    return user


def _default_required(request: Request, view: Any) -> str:
    if request.method in permissions.SAFE_METHODS:
        return getattr(view, "read_role", Role.VIEWER)
    return getattr(view, "write_role", Role.ADMIN)


class TeamScopedMixin:
    """Mixin for views under `/teams/{team}/`: sets `self.team` and `self.team_role` before the handler runs."""

    permission_classes: Sequence[_PermissionClass] = [TeamRolePermission]
    read_role: str = Role.VIEWER
    write_role: str = Role.ADMIN
    team: Team
    team_role: str


class IsPlatformAdmin(permissions.BasePermission):
    """Only superusers (platform admins)."""

    message = "Only platform admins may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated and request.user.is_superuser)
