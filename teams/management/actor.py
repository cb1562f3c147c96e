"""Who a management command acts as, for the audit trail: `--as USERNAME` (a user allowed to do it in the team, by
the API's role rule), or no user, recorded by name as `cli:<OS user>` so a shell action is still attributable."""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import CommandError, CommandParser

from teams.models import Team
from teams.selectors import role_allows, team_role

ACTOR_NAME_MAX = 150  # the audit tables' actor_name column


@dataclass(frozen=True)
class CliActor:
    """The user a command acts as (None without --as) and the name its audit entries record."""

    user: User | None
    name: str


def add_as_argument(parser: CommandParser, *aliases: str) -> None:
    """The `--as USERNAME` option of a command that writes to a team (`aliases`: older spellings it still takes)."""
    parser.add_argument("--as", *aliases, dest="as_user", metavar="USERNAME",
                        help="Act as this user (a member of the team with the role the API asks for this action), "
                             "recorded in the audit log; default: no user, recorded as 'cli:<OS user>'.")


def os_user() -> str:
    """The OS account running the command (its uid when the account has no name)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no LOGNAME/USER and no passwd entry (a bare container)
        return f"uid {os.getuid()}"


def cli_actor(*, username: str | None, team: Team, required: str, doing: str) -> CliActor:
    """The actor of a command in `team`: `username` must be an active user whose role there is at least `required`
    (CommandError naming what is missing otherwise, before anything is done); None is `cli:<OS user>`.

    `doing` names the action for the refusal: "stream stop"."""
    if username is None:
        return CliActor(user=None, name=f"cli:{os_user()}"[:ACTOR_NAME_MAX])
    user = get_user_model().objects.filter(username=username).first()
    if user is None or not user.is_active:
        raise CommandError(f"--as: no active user named '{username}'.")
    role = team_role(user=user, team=team)
    if role is None:
        raise CommandError(f"--as: user '{username}' is not a member of team '{team.name}'.")
    if not role_allows(role=role, required=required):
        raise CommandError(f"--as: user '{username}' is '{role}' in team '{team.name}'; {doing} needs the "
                           f"'{required}' role.")
    return CliActor(user=user, name=user.get_username())
