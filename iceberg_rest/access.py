"""Grants and row policies on the Iceberg REST catalog: the same rules as Lakeport's own API (docs/access.md).

The caller's privileges come from the grants app once per request (`access_policy`), as for a run or an editor call:
in a governed catalog a namespace or table the caller may not BROWSE is not found (404, as the rest of the API
answers), and a privilege the action needs and the caller lacks is a 403 naming both. A table with a row filter or
column mask is never loaded or committed through this endpoint: its metadata names its data files, and a client
reading those directly would read every row and every unmasked value (Unity Catalog withholds such tables from
outside engines for the same reason).
"""

from __future__ import annotations

from rest_framework import exceptions

from grants.selectors import table_protected
from iceberg_rest.errors import NoSuchCatalog, NoSuchNamespace, NoSuchTable
from lakeport_engine.access import BROWSE, AccessPolicy, describe
from teams.models import Team

POLICY_RULE = "row-policy"


def authorize(policy: AccessPolicy, privilege: str, securable: tuple[str, ...]) -> None:
    """Raise unless `policy` holds `privilege` on `securable` (`(catalog, namespace[, table])`): 404 when the caller
    may not even see it exists, 403 naming the privilege otherwise."""
    if policy.allows(privilege, securable):
        return
    if not policy.allows(BROWSE, securable):
        name = ".".join(securable[1:])
        if len(securable) == 1:
            raise NoSuchCatalog(f"No Iceberg catalog named '{securable[0]}'.")
        if len(securable) >= 3:
            raise NoSuchTable(f"Table does not exist: {name}")
        raise NoSuchNamespace(f"Namespace does not exist: {name}")
    raise exceptions.PermissionDenied(f"This needs {privilege} on {describe(securable)}.")


def refuse_protected(*, team: Team, securable: tuple[str, str, str]) -> None:
    """403 when the table has a row filter or column mask (its files would bypass them)."""
    has_filter, has_mask = table_protected(team=team, table=securable)
    if has_filter or has_mask:
        raise exceptions.PermissionDenied(
            f"Table {'.'.join(securable)} has a row filter or column mask: it is read only through Lakeport's SQL, "
            f"where they apply; this endpoint does not hand out its files (rule {POLICY_RULE}).")
