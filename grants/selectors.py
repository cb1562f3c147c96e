"""Reads of groups and grants, and the caller's effective privileges (computed once per run or editor call)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from grants.models import ColumnMask, Grant, Group, RowFilter
from lakeport_engine.access import BROWSE, MANAGE, AccessPolicy, securable_parts
from lakeport_engine.protocol import AccessDocument, AccessGrant, RowPolicyEntry
from lakeport_engine.row_policy import ExpressionError, bind_caller
from teams.models import Role, Team
from teams.selectors import team_role


def group_list(*, team: Team) -> QuerySet[Group]:
    """The team's groups with their members, by name."""
    return Group.objects.filter(team=team).prefetch_related("members").order_by("name")


def grant_list(*, team: Team, securable: str | None = None) -> QuerySet[Grant]:
    """The team's grants; with `securable`, those that hold on it (on it or on a level above it)."""
    qs = Grant.objects.filter(team=team).select_related("user", "group", "granted_by")
    if securable:
        parts = securable_parts(securable)
        names = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        names |= {".".join([*parts[:i], "*"]) for i in range(1, len(parts))}
        qs = qs.filter(securable__in=names)
    return qs.order_by("securable", "privilege", "id")


def grant_visible(grant: Grant, policy: AccessPolicy) -> bool:
    """True when the caller may see that a grant exists: they may BROWSE its securable (`cat.*` → the catalog)."""
    parts = tuple(p for p in securable_parts(grant.securable) if p != "*")
    return policy.allows(BROWSE, parts)


def grants_visible(*, team: Team, user: User | AnonymousUser | None, securable: str | None = None) -> list[Grant]:
    """`grant_list` without the grants on securables the caller may not browse (they would name hidden tables)."""
    policy = access_policy(team=team, user=user)
    grants = grant_list(team=team, securable=securable)
    if policy.unrestricted:
        return list(grants)
    return [g for g in grants if grant_visible(g, policy)]


def access_document(*, team: Team, user: User | AnonymousUser | None, rows: bool = True) -> AccessDocument:
    """The caller's effective privileges in `team`, as the engine protocol carries them (docs/access.md).

    Team admins (and platform admins) hold everything; `governed` is every catalog a grant of the team names; the
    grants listed are the caller's own and their groups'. Two queries, once per run or editor call; with `rows`,
    two more for the team's row filters and column masks (bound for the caller).
    """
    username = str(getattr(user, "username", "") or "")
    role = team_role(user=user, team=team) if user is not None and user.is_authenticated else None
    admin = role == Role.ADMIN
    governed = sorted(set(Grant.objects.filter(team=team).values_list("catalog", flat=True)))
    grants: list[AccessGrant] = []
    if governed and not admin and user is not None and user.is_authenticated:
        mine = Grant.objects.filter(team=team).filter(Q(user_id=user.pk) | Q(group__members__id=user.pk))
        grants = [{"securable": s, "privilege": p}  # type: ignore[typeddict-item]
                  for s, p in sorted(set(mine.values_list("securable", "privilege")))]
    doc: AccessDocument = {"user": username, "admin": admin, "governed": governed, "grants": grants}
    policies = _row_policies(team=team, user=user, doc=doc) if rows else []
    if policies:
        doc["rows"] = policies
    return doc


def _row_policies(*, team: Team, user: User | AnonymousUser | None, doc: AccessDocument) -> list[RowPolicyEntry]:
    """Every row filter and column mask of the team, bound for the caller (their name and groups as literals); an
    expression that no longer binds keeps every row out (filter FALSE) or every value (mask NULL)."""
    filters = list(RowFilter.objects.filter(team=team).values_list("table", "expression"))
    masks = list(ColumnMask.objects.filter(team=team).values_list("table", "column", "expression"))
    if not filters and not masks:
        return []
    groups: list[str] = []
    if user is not None and user.is_authenticated:
        groups = list(Group.objects.filter(team=team, members__id=user.pk).values_list("name", flat=True))

    def bound(text: str, fallback: str) -> str:
        try:
            return bind_caller(text, user=doc["user"], groups=groups)
        except ExpressionError:
            return fallback

    policy = AccessPolicy.from_document(doc)
    assert policy is not None
    tables: dict[str, RowPolicyEntry] = {}
    for table in sorted({t for t, _ in filters} | {t for t, _, _ in masks}):
        tables[table] = {"table": table, "filter": None, "masks": {},
                         "visible": expression_visible(table=table, policy=policy)}
    for table, text in filters:
        tables[table]["filter"] = bound(text, "FALSE")
    for table, column, text in masks:
        tables[table]["masks"][column] = bound(text, "NULL")
    return list(tables.values())


def row_filter_list(*, team: Team, user: User | AnonymousUser | None, table: str | None = None) -> list[RowFilter]:
    """The team's row filters on tables the caller may BROWSE (`table`: that table's only)."""
    qs = RowFilter.objects.filter(team=team).select_related("created_by", "updated_by").order_by("table", "id")
    if table:
        qs = qs.filter(table=".".join(securable_parts(table)))
    policy = access_policy(team=team, user=user)
    return [f for f in qs if policy.allows(BROWSE, securable_parts(f.table))]


def column_mask_list(*, team: Team, user: User | AnonymousUser | None, table: str | None = None) -> list[ColumnMask]:
    """The team's column masks on tables the caller may BROWSE (`table`: that table's only)."""
    qs = ColumnMask.objects.filter(team=team).select_related("created_by", "updated_by").order_by("table", "column")
    if table:
        qs = qs.filter(table=".".join(securable_parts(table)))
    policy = access_policy(team=team, user=user)
    return [m for m in qs if policy.allows(BROWSE, securable_parts(m.table))]


def expression_visible(*, table: str, policy: AccessPolicy) -> bool:
    """True when the caller may read a filter's or mask's expression: a team admin, or MANAGE on its table."""
    parts = securable_parts(table)
    return policy.admin or (policy.is_governed(parts[0]) and policy.allows(MANAGE, parts))


def access_policy(*, team: Team, user: User | AnonymousUser | None) -> AccessPolicy:
    """`access_document` as the policy that answers "may the caller …" (the metadata browser's filter)."""
    # the policy answers privileges only: the row filters and masks are not read for it
    policy = AccessPolicy.from_document(access_document(team=team, user=user, rows=False))
    assert policy is not None
    return policy


def table_protected(*, team: Team, table: tuple[str, str, str]) -> tuple[bool, bool]:
    """(has a row filter, has a column mask) for `table` of the team."""
    name = ".".join(p.lower() for p in table)
    return (RowFilter.objects.filter(team=team, table=name).exists(),
            ColumnMask.objects.filter(team=team, table=name).exists())
