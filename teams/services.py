"""Writes for teams, memberships and API tokens."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import Conflict, InvalidInput
from teams.models import ApiToken, Membership, Role, Team
from teams.tokens import TOKEN_PREFIX, token_digest


def team_create(*, name: str, description: str = "") -> Team:
    """Create a team; a bad name raises InvalidInput, a taken one Conflict."""
    team = Team(name=name, description=description)
    try:
        team.full_clean(validate_unique=False)  # uniqueness is the database's job: 409 below
    except ValidationError as exc:  # the model's field checks, told in the domain's words
        raise InvalidInput.of(exc.message_dict) from None
    try:
        with transaction.atomic():
            team.save()
    except IntegrityError as exc:
        raise Conflict(f"A team named '{name}' already exists.") from exc
    return team


def membership_set(*, team: Team, user: User, role: str) -> Membership:
    """Add `user` to `team` with `role`, or change the role of an existing member."""
    if role not in Role.values:
        raise InvalidInput.of({"role": [f"Unknown role '{role}'; use one of {', '.join(Role.values)}."]})
    with transaction.atomic():
        membership, created = Membership.objects.select_for_update().get_or_create(
            team=team, user=user, defaults={"role": role}
        )
        if not created and membership.role != role:
            if membership.role == Role.ADMIN and role != Role.ADMIN:
                _ensure_another_admin(team=team, leaving=membership)
            membership.role = role
            membership.save(update_fields=["role"])
    return membership


def membership_remove(*, membership: Membership) -> None:
    """Remove a member; the team's last admin cannot be removed."""
    with transaction.atomic():
        if membership.role == Role.ADMIN:
            _ensure_another_admin(team=membership.team, leaving=membership)
        membership.delete()


def _ensure_another_admin(*, team: Team, leaving: Membership) -> None:
    others = (
        Membership.objects.select_for_update()
        .filter(team=team, role=Role.ADMIN)
        .exclude(pk=leaving.pk)
        .count()
    )
    if others == 0:
        raise Conflict("A team needs at least one admin; make another member admin first.")


@dataclass(frozen=True)
class IssuedToken:
    """A freshly issued token: `raw` is shown once and never stored."""

    token: ApiToken
    raw: str


def api_token_create(*, user: User, name: str, expires_in_days: int | None = None) -> IssuedToken:
    """Issue a bearer token for `user`; the raw value is returned once."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None
    token = ApiToken.objects.create(
        user=user, name=name, prefix=raw[:12], digest=token_digest(raw), expires_at=expires_at
    )
    return IssuedToken(token=token, raw=raw)


def api_token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token; it stops authenticating at once. Revoking twice is harmless."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def user_get_or_create(*, username: str, password: str | None = None, email: str = "") -> User:
    """Fetch a user by name, creating it (with `password`, or unusable) when missing."""
    user, created = User.objects.get_or_create(username=username, defaults={"email": email})
    if created or password:
        if password:
            user.set_password(password)
        elif created:
            user.set_unusable_password()
        user.save()
    return user
