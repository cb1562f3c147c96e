"""`manage.py access`: groups, grants, row filters and column masks from a shell through the API's services — the same rules (a developer
without MANAGE may not grant; group changes need a team admin), the same messages, and every grant and revoke in the
catalog history by `--as USER` or `cli:<OS user>`."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import seal_configuration
from grants.models import ColumnMask, Grant, Group, RowFilter
from lakeport_engine.catalog_types.delta import DeltaConfig
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def access(*args: str) -> str:
    out = StringIO()
    call_command("access", "--team", "acme", *args, stdout=out)
    return out.getvalue()


def test_groups_and_grants_from_the_shell(team: Team, tmp_path: Path) -> None:
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path)})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    for username, role in (("ada", Role.ADMIN), ("alice", Role.DEVELOPER), ("bob", Role.DEVELOPER)):
        MembershipFactory(team=team, user=UserFactory(username=username), role=role)

    assert access("group-create", "analysts", "--member", "alice") == "created group analysts\n"
    assert access("group-add", "analysts", "bob") == "bob is in group analysts\n"
    assert access("groups") == "analysts: alice, bob\n"
    access("group-remove", "analysts", "bob")
    assert access("groups") == "analysts: alice\n"

    assert access("grant", "select", "lake.sales.orders", "--group", "analysts").startswith("granted SELECT")
    assert access("--as", "ada", "grant", "MANAGE", "lake.sales", "--user", "bob").startswith("granted MANAGE")
    assert access("grants", "--securable", "lake.sales.orders") == (
        "MANAGE ON lake.sales TO USER bob\nSELECT ON lake.sales.orders TO GROUP analysts\n")
    # bob holds MANAGE on lake.sales: he may grant below it, not on the catalog; alice holds no MANAGE
    access("--as", "bob", "grant", "SELECT", "lake.sales.customers", "--user", "alice")
    with pytest.raises(CommandError, match="on catalog 'lake' needs MANAGE"):
        access("--as", "bob", "grant", "SELECT", "lake", "--user", "alice")
    with pytest.raises(CommandError, match="needs MANAGE"):
        access("--as", "alice", "revoke", "SELECT", "lake.sales.orders", "--group", "analysts")
    with pytest.raises(CommandError, match="'admin' role"):
        access("--as", "bob", "group-create", "mine")
    with pytest.raises(CommandError, match="securable"):
        access("grant", "SELECT", "lake..x", "--user", "alice")
    with pytest.raises(CommandError, match="is not granted"):
        access("revoke", "MODIFY", "lake.sales.orders", "--group", "analysts")

    assert access("revoke", "SELECT", "lake.sales.orders", "--group", "analysts").startswith("revoked SELECT")
    access("group-delete", "analysts")
    assert not Group.objects.filter(team=team).exists()
    assert sorted(Grant.objects.filter(team=team).values_list("securable", "privilege")) == [
        ("lake.sales", "MANAGE"), ("lake.sales.customers", "SELECT")]
    entries = list(CatalogChange.objects.filter(team=team, catalog_name="lake").order_by("id")
                   .values_list("action", "actor_name"))
    assert [a for a, _ in entries] == ["grant", "grant", "grant", "revoke"]
    assert entries[1][1] == "ada" and entries[2][1] == "bob" and entries[0][1].startswith("cli:")


def test_policies_lists_filters_and_masks_with_the_apis_visibility(team: Team, tmp_path: Path) -> None:
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path)})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    for username, role in (("ada", Role.ADMIN), ("alice", Role.DEVELOPER), ("vic", Role.VIEWER)):
        MembershipFactory(team=team, user=UserFactory(username=username), role=role)
    access("grant", "SELECT", "lake.sales.orders", "--user", "alice")  # governs lake: vic may browse nothing in it
    RowFilter.objects.create(team=team, table="lake.sales.orders", catalog="lake", expression="region = 'EU'")
    ColumnMask.objects.create(team=team, table="lake.sales.orders", catalog="lake", column="email", expression="'***'")
    every = "ROW FILTER ON lake.sales.orders: region = 'EU'\nCOLUMN MASK ON lake.sales.orders.email: '***'\n"
    assert access("policies") == every
    assert access("--as", "ada", "policies", "--table", "lake.sales.orders") == every
    assert access("policies", "--table", "lake.sales.customers") == ""
    hidden = access("--as", "alice", "policies")  # she may browse the table, not manage it
    assert hidden == ("ROW FILTER ON lake.sales.orders: (expression hidden: needs MANAGE on the table)\n"
                      "COLUMN MASK ON lake.sales.orders.email: (expression hidden: needs MANAGE on the table)\n")
    assert access("--as", "vic", "policies") == ""


def test_filters_and_masks_are_written_from_the_shell_with_the_apis_rules(team: Team, tmp_path: Path) -> None:
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path)})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    for username, role in (("ada", Role.ADMIN), ("alice", Role.DEVELOPER), ("mia", Role.DEVELOPER)):
        MembershipFactory(team=team, user=UserFactory(username=username), role=role)
    access("grant", "MANAGE", "lake.sales.orders", "--user", "mia")

    assert access("--as", "mia", "filter-set", "lake.sales.orders", "region = 'EU'") == (
        "set ROW FILTER ON lake.sales.orders\n")
    assert access("mask-set", "lake.sales.orders", "Email", "'***'", "--description", "no addresses") == (
        "set COLUMN MASK ON lake.sales.orders.email\n")
    access("filter-set", "lake.sales.orders", "region IN ('EU', 'UK')")  # a second set changes the one there
    assert access("policies") == ("ROW FILTER ON lake.sales.orders: region IN ('EU', 'UK')\n"
                                  "COLUMN MASK ON lake.sales.orders.email: '***'\n")
    assert ColumnMask.objects.get(team=team).description == "no addresses"
    # the API's rules and messages: MANAGE, Spark's parser, table and column names
    with pytest.raises(CommandError, match="needs MANAGE"):
        access("--as", "alice", "filter-set", "lake.sales.orders", "true")
    with pytest.raises(CommandError, match="expression: Spark cannot parse it"):
        access("filter-set", "lake.sales.orders", "region = = 'EU'")
    with pytest.raises(CommandError, match="is not a table"):
        access("mask-set", "lake.sales", "email", "'x'")
    with pytest.raises(CommandError, match="not a column name"):
        access("mask-set", "lake.sales.orders", "e-mail", "'x'")
    assert RowFilter.objects.get(team=team).expression == "region IN ('EU', 'UK')"  # a refused change changed nothing

    assert access("--as", "mia", "mask-drop", "lake.sales.orders", "email") == (
        "removed COLUMN MASK ON lake.sales.orders.email\n")
    assert access("filter-drop", "lake.sales.orders") == "removed ROW FILTER ON lake.sales.orders\n"
    with pytest.raises(CommandError, match="No row filter on lake.sales.orders"):
        access("filter-drop", "lake.sales.orders")
    assert access("policies") == ""
    # every change in the catalog history, by the member or the shell's operator
    entries = list(CatalogChange.objects.filter(team=team, action__in=["row_filter", "column_mask"]).order_by("id")
                   .values_list("action", "actor_name", "changes"))
    assert [(a, c["change"]) for a, _, c in entries] == [
        ("row_filter", "added"), ("column_mask", "added"), ("row_filter", "changed"), ("column_mask", "removed"),
        ("row_filter", "removed")]
    assert entries[0][1] == "mia" and entries[1][1].startswith("cli:")
