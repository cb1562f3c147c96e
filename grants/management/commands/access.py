"""`manage.py access --team T <action> …`: a team's groups and grants from a shell (docs/access.md), through the same
services as the API — the same rules (groups: team admins; grant and revoke: team admins and MANAGE holders) and the
same audit (each grant and revoke in the catalog history, by `--as USER` or `cli:<OS user>`).

    access --team T groups
    access --team T group-create NAME [--description D] [--member U ...]
    access --team T group-add NAME USERNAME | group-remove NAME USERNAME | group-delete NAME
    access --team T grants [--securable S]
    access --team T grant PRIVILEGE SECURABLE (--group G | --user U)
    access --team T revoke PRIVILEGE SECURABLE (--group G | --user U)
    access --team T policies [--table CAT.DB.T]      (row filters and column masks)
    access --team T filter-set CAT.DB.T EXPRESSION [--description D] | filter-drop CAT.DB.T
    access --team T mask-set CAT.DB.T COLUMN EXPRESSION [--description D] | mask-drop CAT.DB.T COLUMN

Filters and masks are written through the API's services too (MANAGE on the table, Spark's parser checks the
expression, each change in the catalog history); `-set` attaches one or changes the one there.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from grants.models import ColumnMask, Group, Privilege, RowFilter
from grants.row_policies import (
    column_mask_create,
    column_mask_delete,
    column_mask_update,
    policy_column,
    policy_table,
    row_filter_create,
    row_filter_delete,
    row_filter_update,
)
from grants.selectors import (
    access_policy,
    column_mask_list,
    expression_visible,
    grant_list,
    grants_visible,
    group_list,
    row_filter_list,
)
from grants.services import (
    grant_create,
    grant_delete,
    grant_find,
    group_create,
    group_delete,
    group_member_add,
    group_member_remove,
)
from lakeport_engine.access import securable_parts
from teams.management.actor import CliActor, add_as_argument, cli_actor
from teams.models import Role, Team

# the API's role rule per action (the services check MANAGE on top of it for grant and revoke)
ROLES = {"groups": Role.VIEWER, "grants": Role.VIEWER, "grant": Role.DEVELOPER, "revoke": Role.DEVELOPER,
         "group-create": Role.ADMIN, "group-add": Role.ADMIN, "group-remove": Role.ADMIN, "group-delete": Role.ADMIN,
         "policies": Role.VIEWER, "filter-set": Role.DEVELOPER, "filter-drop": Role.DEVELOPER,
         "mask-set": Role.DEVELOPER, "mask-drop": Role.DEVELOPER}


def _principal(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("privilege", type=str.upper, choices=Privilege.values)
    parser.add_argument("securable", help="cat, cat.*, cat.schema, cat.schema.* or cat.schema.table")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--group")
    who.add_argument("--user")


class Command(BaseCommand):
    help = "List and change a team's groups and grants (the same services, rules and audit as the API)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--team", required=True, help="Team name.")
        add_as_argument(parser)
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("groups", help="The team's groups and their members.")
        create = actions.add_parser("group-create", help="A new group.")
        create.add_argument("name")
        create.add_argument("--description", default="")
        create.add_argument("--member", action="append", default=[], help="A member's username (repeatable).")
        for name in ("group-add", "group-remove"):
            change = actions.add_parser(name, help=f"{'Add a member to' if name == 'group-add' else 'Remove a member from'} a group.")
            change.add_argument("name")
            change.add_argument("username")
        actions.add_parser("group-delete", help="Delete a group and revoke its grants.").add_argument("name")
        listing = actions.add_parser("grants", help="The team's grants (with --securable: those that hold on it).")
        listing.add_argument("--securable")
        _principal(actions.add_parser("grant", help="Grant a privilege to a group or a member."))
        _principal(actions.add_parser("revoke", help="Revoke a grant."))
        policies = actions.add_parser("policies", help="The team's row filters and column masks (--table: one table's).")
        policies.add_argument("--table")
        for name, what in (("filter-set", "Attach a row filter to a table, or change its filter."),
                           ("mask-set", "Attach a mask to a column, or change its mask.")):
            setter = actions.add_parser(name, help=what)
            setter.add_argument("table")
            if name == "mask-set":
                setter.add_argument("column")
            setter.add_argument("expression")
            setter.add_argument("--description")
        actions.add_parser("filter-drop", help="Remove a table's row filter.").add_argument("table")
        dropper = actions.add_parser("mask-drop", help="Remove a column's mask.")
        dropper.add_argument("table")
        dropper.add_argument("column")

    def handle(self, *args: Any, **opts: Any) -> None:
        team = Team.objects.filter(name=opts["team"]).first()
        if team is None:
            raise CommandError(f"No team named '{opts['team']}'.")
        action = opts["action"]
        actor = cli_actor(username=opts["as_user"], team=team, required=ROLES[action], doing=f"access {action}")
        try:
            self._run(team, actor, action, opts)
        except DomainError as exc:  # a bad name, a missing MANAGE, a duplicate: the API's message
            raise CommandError(exc.summary()) from exc

    def _group(self, team: Team, name: str) -> Group:
        group = Group.objects.filter(team=team, name=name).first()
        if group is None:
            raise CommandError(f"Team '{team.name}' has no group '{name}'.")
        return group

    def _run(self, team: Team, actor: CliActor, action: str, opts: dict[str, Any]) -> None:
        operator = None if actor.user else actor.name
        if action == "groups":
            for group in group_list(team=team):
                members = ", ".join(sorted(u.username for u in group.members.all())) or "-"
                self.stdout.write(f"{group.name}: {members}")
        elif action == "group-create":
            group = group_create(team=team, name=opts["name"], description=opts["description"], members=opts["member"])
            self.stdout.write(f"created group {group.name}")
        elif action == "group-add":
            group_member_add(group=self._group(team, opts["name"]), username=opts["username"])
            self.stdout.write(f"{opts['username']} is in group {opts['name']}")
        elif action == "group-remove":
            group_member_remove(group=self._group(team, opts["name"]), username=opts["username"])
            self.stdout.write(f"{opts['username']} is no longer in group {opts['name']}")
        elif action == "group-delete":
            group_delete(group=self._group(team, opts["name"]), actor=actor.user, operator=operator)
            self.stdout.write(f"deleted group {opts['name']}")
        elif action == "grants":
            try:
                # without --as the operator sees every grant; with it, what that member may browse
                grants = (grants_visible(team=team, user=actor.user, securable=opts["securable"]) if actor.user
                          else list(grant_list(team=team, securable=opts["securable"])))
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            for g in grants:
                kind, name = ("group", g.group.name) if g.group else ("user", g.user.username if g.user else "")
                self.stdout.write(f"{g.privilege} ON {g.securable} TO {kind.upper()} {name}")
        elif action == "policies":
            self._policies(team, actor, opts["table"])
        elif action in ("filter-set", "filter-drop", "mask-set", "mask-drop"):
            self._write_policy(team, actor, action, opts)
        else:
            kind, principal = ("group", opts["group"]) if opts["group"] else ("user", opts["user"])
            if action == "grant":
                grant_create(team=team, actor=actor.user, securable=opts["securable"], privilege=opts["privilege"],
                             principal_type=kind, principal=principal, operator=operator)
                self.stdout.write(f"granted {opts['privilege']} ON {opts['securable']} TO {kind.upper()} {principal}")
            else:
                grant = grant_find(team=team, securable=opts["securable"], privilege=opts["privilege"],
                                   principal_type=kind, principal=principal)
                grant_delete(grant=grant, actor=actor.user, operator=operator)
                self.stdout.write(f"revoked {opts['privilege']} ON {opts['securable']} FROM {kind.upper()} {principal}")

    def _policies(self, team: Team, actor: CliActor, table: str | None) -> None:
        """One line per filter and mask; with --as, the API's visibility (listed if BROWSE, expression if MANAGE)."""
        try:
            if actor.user:
                filters = row_filter_list(team=team, user=actor.user, table=table)
                masks = column_mask_list(team=team, user=actor.user, table=table)
            else:  # the shell's operator sees every filter and mask, expressions included
                filters = list(RowFilter.objects.filter(team=team).order_by("table"))
                masks = list(ColumnMask.objects.filter(team=team).order_by("table", "column"))
                if table:
                    name = ".".join(securable_parts(table))
                    filters, masks = [f for f in filters if f.table == name], [m for m in masks if m.table == name]
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        policy = access_policy(team=team, user=actor.user) if actor.user else None

        def shown(item: RowFilter | ColumnMask) -> str:
            visible = policy is None or expression_visible(table=item.table, policy=policy)
            return item.expression if visible else "(expression hidden: needs MANAGE on the table)"

        for f in filters:
            self.stdout.write(f"ROW FILTER ON {f.table}: {shown(f)}")
        for m in masks:
            self.stdout.write(f"COLUMN MASK ON {m.table}.{m.column}: {shown(m)}")

    def _write_policy(self, team: Team, actor: CliActor, action: str, opts: dict[str, Any]) -> None:
        """Attach, change or remove a filter or mask (the services check MANAGE and the expression)."""
        operator = None if actor.user else actor.name
        table = ".".join(policy_table(opts["table"]))
        column = policy_column(opts["column"]) if action.startswith("mask") else None
        where = f"{table}.{column}" if column else table
        kind = "COLUMN MASK" if column else "ROW FILTER"
        found = (ColumnMask.objects.filter(team=team, table=table, column=column).first() if column
                 else RowFilter.objects.filter(team=team, table=table).first())
        if action.endswith("-drop"):
            if found is None:
                raise CommandError(f"No {kind.lower()} on {where}.")
            if isinstance(found, ColumnMask):
                column_mask_delete(mask=found, actor=actor.user, operator=operator)
            else:
                row_filter_delete(row_filter=found, actor=actor.user, operator=operator)
            self.stdout.write(f"removed {kind} ON {where}")
            return
        expression, description = opts["expression"], opts["description"]
        if isinstance(found, ColumnMask):
            column_mask_update(mask=found, actor=actor.user, expression=expression, description=description,
                               operator=operator)
        elif isinstance(found, RowFilter):
            row_filter_update(row_filter=found, actor=actor.user, expression=expression, description=description,
                              operator=operator)
        elif column:
            column_mask_create(team=team, actor=actor.user, table=table, column=column, expression=expression,
                               description=description or "", operator=operator)
        else:
            row_filter_create(team=team, actor=actor.user, table=table, expression=expression,
                              description=description or "", operator=operator)
        self.stdout.write(f"set {kind} ON {where}")
