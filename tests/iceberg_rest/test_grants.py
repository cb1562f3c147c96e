"""Grants and row policies on the Iceberg REST endpoint (issue 34: "the Iceberg REST endpoint … obey the same
rules"), driven by pyiceberg's RestCatalog as a developer of acme: in a governed catalog what the caller may not
browse is not found, a missing privilege is a 403 and changes nothing, and a table with a row filter or a column
mask is never handed out (its files would bypass them) — not even to a team admin."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyiceberg.exceptions import ForbiddenError, NoSuchNamespaceError, NoSuchTableError

from grants.models import ColumnMask, RowFilter
from grants.services import grant_create
from teams.models import Role, Team
from teams.services import api_token_create
from tests.factories import MembershipFactory, UserFactory
from tests.iceberg_rest.conftest import Rest

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = pa.table({"id": pa.array([1, 2], pa.int64()), "v": pa.array(["a", "b"])})


def test_grants_decide_what_a_developer_sees_loads_and_commits(rest: Rest) -> None:
    admin = rest.catalog(Role.ADMIN)
    for namespace in ("sales", "hr"):
        admin.create_namespace(namespace)
    for name in ("sales.orders", "sales.salaries", "hr.people"):
        admin.create_table(name, schema=ROWS.schema).append(ROWS)
    team = Team.objects.get(name="acme")
    bob = UserFactory(username="bob")
    MembershipFactory(team=team, user=bob, role=Role.DEVELOPER)
    dev = rest.catalog(token=api_token_create(user=bob, name="iceberg").raw)
    assert sorted(dev.list_namespaces()) == [("hr",), ("sales",)]  # no grant names the catalog: role defaults

    owner = team.memberships.get(role=Role.ADMIN).user
    grant_create(team=team, actor=owner, securable="ice.sales.orders", privilege="SELECT", principal_type="user",
                 principal="bob")  # the catalog is governed from now on
    assert dev.list_namespaces() == [("sales",)]
    assert dev.list_tables("sales") == [("sales", "orders")]
    assert dev.load_table("sales.orders").scan().to_arrow().num_rows == 2
    with pytest.raises(NoSuchTableError):
        dev.load_table("sales.salaries")
    with pytest.raises(NoSuchNamespaceError):
        dev.list_tables("hr")
    with pytest.raises(ForbiddenError, match="MODIFY"):
        dev.load_table("sales.orders").append(ROWS)
    with pytest.raises(ForbiddenError, match="CREATE"):
        dev.create_table("sales.loot", schema=ROWS.schema)
    assert admin.load_table("sales.orders").scan().to_arrow().num_rows == 2  # the refused append wrote nothing
    assert not admin.table_exists("sales.loot")

    grant_create(team=team, actor=owner, securable="ice.sales.orders", privilege="MODIFY", principal_type="user",
                 principal="bob")
    dev.load_table("sales.orders").append(ROWS)
    assert admin.load_table("sales.orders").scan().to_arrow().num_rows == 4


@pytest.mark.parametrize("policy", ["row_filter", "column_mask"])
def test_a_table_under_a_row_policy_is_never_handed_out(rest: Rest, policy: str) -> None:
    admin = rest.catalog(Role.ADMIN)
    admin.create_namespace("sales")
    admin.create_table("sales.orders", schema=ROWS.schema).append(ROWS)
    team = Team.objects.get(name="acme")
    if policy == "row_filter":
        RowFilter.objects.create(team=team, table="ice.sales.orders", catalog="ice", expression="id = 1")
    else:
        ColumnMask.objects.create(team=team, table="ice.sales.orders", catalog="ice", column="v", expression="'***'")
    for role in (Role.DEVELOPER, Role.ADMIN):  # the policy holds for team admins too
        with pytest.raises(ForbiddenError, match="row-policy"):
            rest.catalog(role).load_table("sales.orders")
    assert admin.table_exists("sales.orders")  # that it exists is not hidden
    assert admin.list_tables("sales") == [("sales", "orders")]
