"""Declarative apply of a team's groups, grants, row filters and column masks (docs/access.md), beside catalogs and
jobs in one document:

    groups: [{name, description, members (usernames of the team's members)}]
    grants: [{securable, privileges (a list, or `privilege`: one), group | user}]
    row_filters: [{table, expression, description}]            (the API's fields; one per table)
    column_masks: [{table, column, expression, description}]    (one per column)

Groups are applied before grants, so a grant may name a group of the same document. A grant entry has no name:
it is what it says, one grant per privilege (`SELECT ON lake.sales.orders TO GROUP analysts` is how results name
it); a grant that already exists is unchanged, there is nothing to update. Every write goes through the grants
services, so the rules and the audit are the API's: a bad securable, privilege or principal is a 400 naming the
entry and field, and each grant and revoke is in the catalog history (by the caller, or `cli:<OS user>` from the
shell). `prune` deletes only within the sections present: groups not listed (with their grants, each recorded as a
revoke) and grants not listed. Row filters and column masks come after grants, through `grants/row_policies.py`
(Spark's parser checks each expression; each change is in the history, without the expression); a filter is named
by its table, a mask `table.column`; an omitted description is empty, as in the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib.auth.models import User

from catalogs.services import SectionResult
from core.errors import InvalidInput
from grants.models import ColumnMask, Grant, Group, Privilege, RowFilter
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
from grants.services import grant_create, grant_delete, group_create, group_delete, group_update
from lakeport_engine.access import securable_parts
from teams.models import Team

GROUP_FIELDS = {"name", "description", "members"}
GRANT_FIELDS = {"securable", "privileges", "privilege", "group", "user"}
ROW_FILTER_FIELDS = {"table", "expression", "description"}
COLUMN_MASK_FIELDS = {"table", "column", "expression", "description"}

Fail = Callable[[str, "str | None", Exception], InvalidInput]
P = TypeVar("P", RowFilter, ColumnMask)  # a row policy: its expression and description compare alike
GrantKey = tuple[str, str, str, str]  # securable, privilege, principal type, principal


def grant_label(key: GrantKey) -> str:
    """`SELECT ON lake.sales.orders TO GROUP analysts`: how a result names one grant."""
    securable, privilege, kind, principal = key
    return f"{privilege} ON {securable} TO {kind.upper()} {principal}"


def _members(entry: dict[str, Any]) -> list[str] | None:
    members = entry.get("members")
    if members is None:
        return None
    if not isinstance(members, list) or not all(isinstance(m, str) and m for m in members):
        raise InvalidInput.of({"members": ["Expected a list of usernames."]})
    return sorted(set(members))


def apply_groups(team: Team, entries: list[dict[str, Any]], prune: bool, result: SectionResult,
                 actor: User | None, operator: str | None, fail: Fail) -> None:
    """Make the team's groups match `entries`: create, change description or members, and (prune) delete."""
    existing = {g.name: g for g in Group.objects.select_for_update().filter(team=team).prefetch_related("members")}
    for index, entry in enumerate(entries):
        name = entry["name"]
        try:
            members = _members(entry)
            description = entry.get("description", "")
            if not isinstance(description, str):
                raise InvalidInput.of({"description": ["Expected text."]})
            group = existing.get(name)
            if group is None:
                group_create(team=team, name=name, description=description, members=members or [])
                result.created.append(name)
                continue
            current = sorted(u.username for u in group.members.all())
            changed = group.description != description or (members is not None and members != current)
            if changed:
                group_update(group=group, description=description, members=members)
                result.updated.append(name)
            else:
                result.unchanged.append(name)
        except (InvalidInput, TypeError, ValueError) as exc:
            raise fail(f"groups[{index}]", name, exc) from None
    if prune:
        for name in sorted(set(existing) - {e["name"] for e in entries}):
            group_delete(group=existing[name], actor=actor, operator=operator)
            result.deleted.append(name)


def _grant_keys(entry: Any) -> list[GrantKey]:
    """The grants one entry declares (validated: securable, privileges, exactly one of group and user)."""
    if not isinstance(entry, dict):
        raise InvalidInput.of({"securable": ["Expected an object with securable, privileges and group or user."]})
    unknown = sorted(set(entry) - GRANT_FIELDS)
    if unknown:
        raise InvalidInput.of({k: ["Unknown field."] for k in unknown})
    try:
        securable = ".".join(securable_parts(str(entry.get("securable") or "")))
    except ValueError as exc:
        raise InvalidInput.of({"securable": [str(exc)]}) from None
    if ("privileges" in entry) == ("privilege" in entry):
        raise InvalidInput.of({"privileges": ["Give `privileges` (a list) or `privilege` (one)."]})
    privileges = entry["privileges"] if "privileges" in entry else [entry["privilege"]]
    if not isinstance(privileges, list) or not privileges:
        raise InvalidInput.of({"privileges": ["Expected a list of privileges."]})
    wrong = [str(p) for p in privileges if str(p).upper() not in Privilege.values]
    if wrong:
        raise InvalidInput.of({"privileges": [f"Unknown privilege '{w}'; use one of {', '.join(Privilege.values)}."
                                              for w in wrong]})
    if ("group" in entry) == ("user" in entry):
        raise InvalidInput.of({"group": ["Name exactly one principal: `group` or `user`."]})
    kind = "group" if "group" in entry else "user"
    principal = entry[kind]
    if not isinstance(principal, str) or not principal:
        raise InvalidInput.of({kind: ["Expected a name."]})
    return [(securable, str(p).upper(), kind, principal) for p in privileges]


def _key(grant: Grant) -> GrantKey:
    if grant.group is not None:
        return grant.securable, grant.privilege, "group", grant.group.name
    return grant.securable, grant.privilege, "user", grant.user.username if grant.user else ""


def apply_grants(team: Team, section: Any, prune: bool, result: SectionResult, actor: User | None,
                 operator: str | None, fail: Fail) -> None:
    """Make the team's grants match the `grants` section: grant what is missing and (prune) revoke the rest."""
    if not isinstance(section, list):
        raise InvalidInput("'grants' must be a list.", {"grants": ["Expected a list."]})
    existing = {_key(g): g for g in Grant.objects.select_for_update(of=("self",)).filter(team=team)
                .select_related("team", "user", "group")}
    wanted: dict[GrantKey, int] = {}
    for index, entry in enumerate(section):
        try:
            keys = _grant_keys(entry)
        except InvalidInput as exc:
            raise fail(f"grants[{index}]", None, exc) from None
        for key in keys:
            if key in wanted:
                raise fail(f"grants[{index}]", grant_label(key), InvalidInput.of(
                    {"privileges": ["This grant appears more than once in the document."]}))
            wanted[key] = index
    for key, index in wanted.items():
        if key in existing:
            result.unchanged.append(grant_label(key))
            continue
        securable, privilege, kind, principal = key
        try:
            grant_create(team=team, actor=actor, securable=securable, privilege=privilege, principal_type=kind,
                         principal=principal, operator=operator)
        except InvalidInput as exc:
            raise fail(f"grants[{index}]", grant_label(key), exc) from None
        result.created.append(grant_label(key))
    if prune:
        for key in sorted(set(existing) - set(wanted)):
            grant_delete(grant=existing[key], actor=actor, operator=operator)
            result.deleted.append(grant_label(key))


def _policy_entry(entry: Any, fields: set[str], mask: bool) -> tuple[str, str, str]:
    """(name, expression, description) of a filter or mask entry: `lake.sales.orders` or `lake.sales.orders.email`,
    shape checked (the expression's own check is the service's)."""
    if not isinstance(entry, dict):
        raise InvalidInput.of({"table": ["Expected an object with table, expression and description."]})
    unknown = sorted(set(entry) - fields)
    if unknown:
        raise InvalidInput.of({k: ["Unknown field."] for k in unknown})
    missing = [k for k in ("table", "column", "expression") if k in fields and not isinstance(entry.get(k), str)]
    if missing:
        raise InvalidInput.of({k: ["This field is required (text)."] for k in missing})
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise InvalidInput.of({"description": ["Expected text."]})
    name = ".".join(policy_table(entry["table"]))
    if mask:
        name = f"{name}.{policy_column(entry['column'])}"
    return name, entry["expression"].strip(), description


def _policy_wanted(section: Any, label: str, fields: set[str], mask: bool,
                   fail: Fail) -> dict[str, tuple[int, str, str]]:
    """name → (index, expression, description) of a row_filters / column_masks section (a 400 naming the entry)."""
    if not isinstance(section, list):
        raise InvalidInput(f"'{label}' must be a list.", {label: ["Expected a list."]})
    wanted: dict[str, tuple[int, str, str]] = {}
    for index, entry in enumerate(section):
        try:
            name, expression, description = _policy_entry(entry, fields, mask)
        except InvalidInput as exc:
            raise fail(f"{label}[{index}]", None, exc) from None
        if name in wanted:
            raise fail(f"{label}[{index}]", name, InvalidInput.of(
                {"column" if mask else "table": [f"'{name}' appears more than once in the document."]}))
        wanted[name] = (index, expression, description)
    return wanted


def _apply_policies(section_name: str, wanted: dict[str, tuple[int, str, str]], existing: dict[str, P],
                    prune: bool, result: SectionResult, fail: Fail, *, create: Callable[[str, str, str], object],
                    update: Callable[[P, str, str], object], delete: Callable[[P], object]) -> None:
    """Attach, change and (prune) remove row policies by name: one loop for filters and masks alike."""
    for name, (index, expression, description) in wanted.items():
        found = existing.get(name)
        try:
            if found is None:
                create(name, expression, description)
                result.created.append(name)
            elif (found.expression, found.description) != (expression, description):
                update(found, expression, description)
                result.updated.append(name)
            else:
                result.unchanged.append(name)
        except InvalidInput as exc:
            raise fail(f"{section_name}[{index}]", name, exc) from None
    if prune:
        for name in sorted(set(existing) - set(wanted)):
            delete(existing[name])
            result.deleted.append(name)


def apply_row_filters(team: Team, section: Any, prune: bool, result: SectionResult, actor: User | None,
                      operator: str | None, fail: Fail) -> None:
    """Make the team's row filters match the `row_filters` section: attach, change and (prune) remove."""
    wanted = _policy_wanted(section, "row_filters", ROW_FILTER_FIELDS, False, fail)
    existing = {f.table: f for f in RowFilter.objects.select_for_update().filter(team=team).select_related("team")}
    _apply_policies(
        "row_filters", wanted, existing, prune, result, fail,
        create=lambda name, expression, description: row_filter_create(
            team=team, actor=actor, table=name, expression=expression, description=description, operator=operator),
        update=lambda found, expression, description: row_filter_update(
            row_filter=found, actor=actor, expression=expression, description=description, operator=operator),
        delete=lambda found: row_filter_delete(row_filter=found, actor=actor, operator=operator))


def apply_column_masks(team: Team, section: Any, prune: bool, result: SectionResult, actor: User | None,
                       operator: str | None, fail: Fail) -> None:
    """Make the team's column masks match the `column_masks` section (named `table.column`)."""
    wanted = _policy_wanted(section, "column_masks", COLUMN_MASK_FIELDS, True, fail)
    existing = {f"{m.table}.{m.column}": m
                for m in ColumnMask.objects.select_for_update().filter(team=team).select_related("team")}
    _apply_policies(
        "column_masks", wanted, existing, prune, result, fail,
        create=lambda name, expression, description: column_mask_create(
            team=team, actor=actor, table=name.rsplit(".", 1)[0], column=name.rsplit(".", 1)[1],
            expression=expression, description=description, operator=operator),
        update=lambda found, expression, description: column_mask_update(
            mask=found, actor=actor, expression=expression, description=description, operator=operator),
        delete=lambda found: column_mask_delete(mask=found, actor=actor, operator=operator))
