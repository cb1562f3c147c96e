"""Writes of groups and grants (docs/access.md). Groups are the team admins'; a grant or revoke on a securable is
allowed to team admins and to holders of MANAGE on it (or above it). Every grant and revoke reaches the catalog
history through `grants/hooks.py`, in the same transaction."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from core.errors import Conflict, Forbidden, InvalidInput, NotFound
from grants.hooks import access_changed
from grants.models import GROUP_NAME_RE, Grant, Group, Privilege
from grants.selectors import access_policy, grants_visible
from lakeport_engine.access import MANAGE, describe, securable_parts
from teams.models import Membership, Team


def _member(*, team: Team, username: str) -> User:
    membership = Membership.objects.filter(team=team, user__username=username).select_related("user").first()
    if membership is None:
        raise InvalidInput.of({"principal": [f"'{username}' is not a member of team '{team.name}'."]})
    return membership.user


def group_create(*, team: Team, name: str, description: str = "", members: list[str] | None = None) -> Group:
    """A new group of the team (name unique in the team), with `members` (usernames of members)."""
    if not isinstance(name, str) or not re.fullmatch(GROUP_NAME_RE, name):
        raise InvalidInput.of({"name": ["Use lowercase letters, digits, '_' and '-', starting with a letter "
                                        "(at most 63)."]})
    if len(description) > 500:
        raise InvalidInput.of({"description": ["At most 500 characters."]})
    with transaction.atomic():
        if Group.objects.filter(team=team, name=name).exists():
            raise Conflict(f"Team '{team.name}' already has a group '{name}'.")
        group = Group.objects.create(team=team, name=name, description=description)
        group.members.set([_member(team=team, username=u) for u in members or []])
    return group


def group_update(*, group: Group, description: str | None = None, members: list[str] | None = None) -> Group:
    """Change a group's description or replace its members."""
    with transaction.atomic():
        if description is not None:
            group.description = description
            group.save(update_fields=["description"])
        if members is not None:
            group.members.set([_member(team=group.team, username=u) for u in members])
    return group


def group_member_add(*, group: Group, username: str) -> Group:
    """Add a team member to the group (idempotent)."""
    group.members.add(_member(team=group.team, username=username))
    return group


def group_member_remove(*, group: Group, username: str) -> None:
    """Remove a user from the group (NotFound when they are not in it)."""
    user = group.members.filter(username=username).first()
    if user is None:
        raise NotFound(f"'{username}' is not in group '{group.name}'.")
    group.members.remove(user)


def group_delete(*, group: Group, actor: User | None, operator: str | None = None) -> None:
    """Delete a group and the grants it held (each recorded as a revoke, by `actor` or the `operator`'s name)."""
    with transaction.atomic():
        for grant in list(group.grants.select_related("group")):
            access_changed(grant=grant, action="revoke", actor=actor, actor_name=operator)
        group.delete()


def may_manage(*, team: Team, actor: User | None, securable: tuple[str, ...], what: str = "Granting and revoking",
               operator: str | None = None) -> None:
    """Forbidden unless `actor` is a team admin or holds MANAGE on `securable` (in a governed catalog), or, with no
    user, a platform operator at the shell (`manage.py apply` without --as) recorded by name."""
    if actor is None:
        if operator:
            return
        raise Forbidden(f"{what} needs a signed-in member of the team.")
    policy = access_policy(team=team, user=actor)
    if policy.admin:
        return
    if not (policy.is_governed(securable[0]) and policy.allows(MANAGE, securable)):
        raise Forbidden(f"{what} on {describe(securable)} needs MANAGE on it (or a team admin).")


def grant_create(*, team: Team, actor: User | None, securable: str, privilege: str, principal_type: str,
                 principal: str, operator: str | None = None) -> Grant:
    """Grant `privilege` on `securable` to a member (`principal_type` "user") or a group of the team, as `actor`
    (a team admin or a MANAGE holder) or, with no user, as the shell's `operator` (`cli:<OS user>`)."""
    try:
        parts = securable_parts(securable)
    except ValueError as exc:
        raise InvalidInput.of({"securable": [str(exc)]}) from None
    if privilege not in Privilege.values:
        raise InvalidInput.of({"privilege": [f"Use one of {', '.join(Privilege.values)}."]})
    may_manage(team=team, actor=actor, securable=parts, operator=operator)
    user, group = None, None
    if principal_type == "group":
        group = Group.objects.filter(team=team, name=principal).first()
        if group is None:
            raise InvalidInput.of({"principal": [f"Team '{team.name}' has no group '{principal}'."]})
    elif principal_type == "user":
        user = _member(team=team, username=principal)
    else:
        raise InvalidInput.of({"principal_type": ["Use 'user' or 'group'."]})
    try:
        with transaction.atomic():
            grant = Grant.objects.create(team=team, securable=".".join(parts), catalog=parts[0], privilege=privilege,
                                         user=user, group=group, granted_by=actor)
            access_changed(grant=grant, action="grant", actor=actor, actor_name=operator)
    except IntegrityError:
        raise Conflict(f"{privilege} on {'.'.join(parts)} is already granted to {principal_type} "
                       f"'{principal}'.") from None
    return grant


def grant_delete(*, grant: Grant, actor: User | None, operator: str | None = None) -> None:
    """Revoke one grant (team admins, MANAGE on its securable, or the shell's `operator` with no user)."""
    may_manage(team=grant.team, actor=actor, securable=securable_parts(grant.securable), operator=operator)
    with transaction.atomic():
        access_changed(grant=grant, action="revoke", actor=actor, actor_name=operator)
        grant.delete()


def grant_find(*, team: Team, securable: str, privilege: str, principal_type: str, principal: str) -> Grant:
    """The grant a REVOKE statement names (NotFound when there is none)."""
    try:
        parts = securable_parts(securable)
    except ValueError as exc:
        raise InvalidInput.of({"securable": [str(exc)]}) from None
    qs = Grant.objects.filter(team=team, securable=".".join(parts), privilege=privilege.upper())
    qs = qs.filter(group__name=principal) if principal_type == "group" else qs.filter(user__username=principal)
    grant = qs.select_related("team", "group", "user").first()
    if grant is None:
        raise NotFound(f"{privilege.upper()} on {'.'.join(parts)} is not granted to {principal_type} '{principal}'.")
    return grant


def access_statement_run(*, team: Team, username: str, op: str, privileges: list[str], securable: str | None,
                         principal_type: str | None, principal: str | None) -> list[dict[str, str]]:
    """GRANT (`op` "grant"), REVOKE ("revoke") or SHOW GRANTS ("grants") as SQL, run by the member `username`: the
    same rules as the API (MANAGE or team admin to grant/revoke; any member lists). Returns SHOW GRANTS's rows."""
    actor = Membership.objects.filter(team=team, user__username=username).select_related("user").first()
    if actor is None or not username:
        raise Forbidden("GRANT, REVOKE and SHOW GRANTS need a signed-in member of the team.")
    if op == "grants":
        try:
            grants = grants_visible(team=team, user=actor.user, securable=securable)
        except ValueError as exc:
            raise InvalidInput.of({"securable": [str(exc)]}) from None
        return [{"securable": g.securable, "privilege": g.privilege,
                 "principal_type": "group" if g.group_id else "user",
                 "principal": g.group.name if g.group is not None else (g.user.username if g.user else ""),
                 "granted_by": g.granted_by.username if g.granted_by else ""} for g in grants]
    if not securable or not principal:
        raise InvalidInput("Name the securable and the member or group.")
    kind = principal_type or ("group" if Group.objects.filter(team=team, name=principal).exists() else "user")
    with transaction.atomic():
        for privilege in privileges:
            if op == "grant":
                grant_create(team=team, actor=actor.user, securable=securable, privilege=privilege,
                             principal_type=kind, principal=principal)
            else:
                grant_delete(grant=grant_find(team=team, securable=securable, privilege=privilege,
                                              principal_type=kind, principal=principal), actor=actor.user)
    return []
