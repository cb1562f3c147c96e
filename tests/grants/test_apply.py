"""`apply -f` / POST …/apply/ with `groups`, `grants`, `row_filters` and `column_masks` (docs/access.md): created, unchanged on a second apply,
members replaced, all or nothing with the entry and field named, prune within the section (a pruned group takes its
grants with it), the same rules as the API (a developer may not apply), every grant and revoke in the catalog
history — by the user through the API, by `cli:<OS user>` from the shell — and what apply grants is what the
guard's policy then enforces (the access document a run would carry)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import seal_configuration
from grants.models import ColumnMask, Grant, Group, RowFilter
from grants.selectors import access_document
from jobs.models import SqlJob
from lakeport_engine.access import SELECT, AccessPolicy
from lakeport_engine.catalog_types.delta import DeltaConfig
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

API = "/api/v1/teams/acme"


@pytest.fixture
def world(team: Team, tmp_path: Path) -> dict[str, Any]:
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path / "lake")})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    users = {}
    for username, role in (("alice", Role.DEVELOPER), ("bob", Role.DEVELOPER), ("carol", Role.VIEWER)):
        users[username] = UserFactory(username=username)
        MembershipFactory(team=team, user=users[username], role=role)
    return users


def document(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "groups": [{"name": "analysts", "description": "read sales", "members": ["alice", "bob"]},
                   {"name": "auditors", "members": ["carol"]}],
        "grants": [{"securable": "lake.sales.orders", "privileges": ["SELECT", "MODIFY"], "group": "analysts"},
                   {"securable": "lake.sales", "privilege": "BROWSE", "group": "auditors"},
                   {"securable": "lake.scratch.*", "privilege": "select", "user": "bob"}],
    }
    doc.update(changes)
    return doc


def apply(client: APIClient, doc: dict[str, Any], **query: str) -> Any:
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    return client.post(f"{API}/apply/{suffix}", yaml.safe_dump(doc), content_type="application/yaml")


def history(team: Team) -> list[tuple[str, str, str, str]]:
    return [(c.action, c.actor_name, c.changes["privilege"], c.changes["securable"])
            for c in CatalogChange.objects.filter(team=team, catalog_name="lake").order_by("id")]


CREATED = ["BROWSE ON lake.sales TO GROUP auditors", "MODIFY ON lake.sales.orders TO GROUP analysts",
           "SELECT ON lake.sales.orders TO GROUP analysts", "SELECT ON lake.scratch.* TO USER bob"]


def test_apply_creates_groups_and_grants_then_reports_them_unchanged(admin_client: APIClient, team: Team,
                                                                     world: dict[str, Any]) -> None:
    resp = apply(admin_client, document())
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["groups"] == {"created": ["analysts", "auditors"], "updated": [], "deleted": [], "unchanged": []}
    assert body["grants"]["created"] == CREATED
    assert "created" not in body or body["created"] == []  # the catalogs section was absent: left alone
    assert sorted(Group.objects.get(team=team, name="analysts").members.values_list("username", flat=True)) == [
        "alice", "bob"]
    assert [a for a, *_ in history(team)] == ["grant"] * 4
    admins = {m.user.username for m in team.memberships.filter(role=Role.ADMIN)}
    assert {name for _, name, *_ in history(team)} <= admins and len(history(team)) == 4  # the API's caller

    again = apply(admin_client, document()).json()
    assert again["groups"]["unchanged"] == ["analysts", "auditors"] and again["grants"]["unchanged"] == CREATED
    assert len(history(team)) == 4  # nothing re-recorded

    # what apply granted is what the guard's policy holds: alice reads orders, not customers; bob reads scratch
    alice = AccessPolicy.from_document(access_document(team=team, user=world["alice"]))
    bob = AccessPolicy.from_document(access_document(team=team, user=world["bob"]))
    assert alice is not None and bob is not None
    assert alice.allows(SELECT, ("lake", "sales", "orders")) and not alice.allows(SELECT, ("lake", "sales", "customers"))
    assert bob.allows(SELECT, ("lake", "scratch", "t")) and not alice.allows(SELECT, ("lake", "scratch", "t"))


def test_members_replaced_prune_within_the_section_and_dry_run(admin_client: APIClient, team: Team,
                                                               world: dict[str, Any]) -> None:
    assert apply(admin_client, document()).status_code == 200
    smaller = document(groups=[{"name": "analysts", "description": "read sales", "members": ["alice"]}],
                       grants=[{"securable": "lake.sales.orders", "privilege": "SELECT", "group": "analysts"}])
    dry = apply(admin_client, smaller, prune="true", dry_run="true").json()
    assert dry["dry_run"] is True and dry["groups"]["deleted"] == ["auditors"]
    assert Grant.objects.filter(team=team).count() == 4 and Group.objects.filter(team=team).count() == 2

    body = apply(admin_client, smaller, prune="true").json()
    assert body["groups"] == {"created": [], "updated": ["analysts"], "deleted": ["auditors"], "unchanged": []}
    # auditors' BROWSE went with the group; the grants section prunes the rest it does not list
    assert body["grants"]["deleted"] == ["MODIFY ON lake.sales.orders TO GROUP analysts",
                                         "SELECT ON lake.scratch.* TO USER bob"]
    assert body["grants"]["unchanged"] == ["SELECT ON lake.sales.orders TO GROUP analysts"]
    assert list(Grant.objects.filter(team=team).values_list("securable", "privilege")) == [
        ("lake.sales.orders", "SELECT")]
    assert list(Group.objects.get(team=team, name="analysts").members.values_list("username", flat=True)) == ["alice"]
    assert [a for a, *_ in history(team)].count("revoke") == 3  # each revoke recorded, the group's too

    # a document without the sections leaves groups and grants alone, even with prune
    assert apply(admin_client, {"jobs": []}, prune="true").status_code == 200
    assert Grant.objects.filter(team=team).count() == 1 and Group.objects.filter(team=team).count() == 1


@pytest.mark.parametrize(("change", "where", "field"), [
    ({"grants": [{"securable": "lake.sales.*.x", "privilege": "SELECT", "group": "analysts"}]}, "grants[0]",
     "securable"),
    ({"grants": [{"securable": "lake", "privilege": "OWN", "group": "analysts"}]}, "grants[0]", "privileges"),
    ({"grants": [{"securable": "lake", "privilege": "SELECT", "group": "nobody"}]}, "grants[0]", "principal"),
    ({"grants": [{"securable": "lake", "privilege": "SELECT", "user": "mallory"}]}, "grants[0]", "principal"),
    ({"grants": [{"securable": "lake", "privilege": "SELECT", "user": "bob", "group": "analysts"}]}, "grants[0]",
     "group"),
    ({"grants": [{"securable": "lake", "privilege": "SELECT", "user": "bob"},
                 {"securable": "lake", "privileges": ["SELECT"], "user": "bob"}]}, "grants[1]", "privileges"),
    ({"groups": [{"name": "analysts", "members": ["mallory"]}]}, "groups[0]", "principal"),
    ({"groups": [{"name": "Bad Name"}]}, "groups[0]", "name"),
])
def test_a_bad_entry_names_itself_and_nothing_is_applied(admin_client: APIClient, team: Team, world: dict[str, Any],
                                                         change: dict[str, Any], where: str, field: str) -> None:
    doc = document(jobs=[{"name": "nightly", "sql": "SELECT 1"}], **change)
    resp = apply(admin_client, doc)
    assert resp.status_code == 400, resp.content
    error = resp.json()["error"]
    assert where in error["message"] and "Nothing was applied" in error["message"], error
    assert field in error["details"][where], error
    assert not Grant.objects.exists() and not Group.objects.exists() and not CatalogChange.objects.exists()
    assert not SqlJob.objects.filter(team=team).exists()  # the document's other sections: not applied either


def test_a_developer_may_not_apply_groups_or_grants(client_for: Any, team: Team, world: dict[str, Any]) -> None:
    developer = client_for(Role.DEVELOPER)
    assert apply(developer, document()).status_code == 403
    assert not Grant.objects.exists() and not Group.objects.exists()


def _cli(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("apply", "-f", str(path), "--team", "acme", *args, stdout=out)
    return out.getvalue()


def test_cli_apply_records_the_shell_operator_and_honours_as(team: Team, world: dict[str, Any],
                                                            tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    path.write_text(yaml.safe_dump(document()))
    out = _cli(path)
    assert "groups: created analysts, auditors" in out and "grants: created BROWSE ON lake.sales" in out
    actors = {name for _, name, *_ in history(team)}
    assert len(actors) == 1 and next(iter(actors)).startswith("cli:")
    MembershipFactory(team=team, user=UserFactory(username="admin-cli"), role=Role.ADMIN)
    path.write_text(yaml.safe_dump(document(grants=[])))
    out = _cli(path, "--prune", "--as", "admin-cli")
    assert "grants: created -; updated -; deleted BROWSE ON lake.sales TO GROUP auditors, MODIFY ON" in out
    assert not Grant.objects.filter(team=team).exists()
    assert [a for a, name, *_ in history(team) if name == "admin-cli"] == ["revoke"] * 4
    with pytest.raises(CommandError, match="developer"):
        _cli(path, "--as", "alice")


FILTER = "region = 'EU' OR is_member('analysts')"
MASK = "CASE WHEN is_member('analysts') THEN email ELSE '***' END"


def policies(**changes: Any) -> dict[str, Any]:
    doc = document(row_filters=[{"table": "lake.sales.orders", "expression": FILTER, "description": "EU only"}],
                   column_masks=[{"table": "lake.sales.orders", "column": "email", "expression": MASK},
                                 {"table": "lake.sales.customers", "column": "phone", "expression": "'hidden'"}])
    doc.update(changes)
    return doc


def policy_history(team: Team) -> list[tuple[str, str, dict[str, str]]]:
    return [(c.action, c.actor_name, c.changes) for c in CatalogChange.objects.filter(
        team=team, catalog_name="lake", action__in=["row_filter", "column_mask"]).order_by("id")]


def test_apply_row_filters_and_column_masks_then_change_prune_and_dry_run(admin_client: APIClient, team: Team,
                                                                         world: dict[str, Any]) -> None:
    body = apply(admin_client, policies()).json()
    assert body["row_filters"] == {"created": ["lake.sales.orders"], "updated": [], "deleted": [], "unchanged": []}
    assert body["column_masks"]["created"] == ["lake.sales.customers.phone", "lake.sales.orders.email"]
    assert body["grants"]["created"] == CREATED  # the grants of the same document, applied before them
    found = RowFilter.objects.get(team=team)
    assert (found.table, found.expression, found.description) == ("lake.sales.orders", FILTER, "EU only")
    history = policy_history(team)
    assert [(a, c["table"], c.get("column"), c["change"]) for a, _, c in history] == [
        ("row_filter", "lake.sales.orders", None, "added"),
        ("column_mask", "lake.sales.orders", "email", "added"),  # in the document's order
        ("column_mask", "lake.sales.customers", "phone", "added")]
    assert all("expression" not in c and "EU" not in str(c) for _, _, c in history)  # the history hides it
    # what apply attached is what a run carries: carol (not in analysts, no MANAGE) gets it bound, unseen
    rows = access_document(team=team, user=world["carol"])["rows"]
    assert [(r["table"], r["filter"], r["visible"]) for r in rows] == [
        ("lake.sales.customers", None, False), ("lake.sales.orders", "region = 'EU' OR FALSE", False)]

    again = apply(admin_client, policies()).json()
    assert again["row_filters"]["unchanged"] == ["lake.sales.orders"] and len(policy_history(team)) == 3

    changed = policies(row_filters=[{"table": "lake.sales.orders", "expression": "region = 'US'"}],
                       column_masks=[{"table": "lake.sales.orders", "column": "email", "expression": MASK}])
    dry = apply(admin_client, changed, prune="true", dry_run="true").json()
    assert dry["row_filters"]["updated"] == ["lake.sales.orders"]
    assert dry["column_masks"]["deleted"] == ["lake.sales.customers.phone"]
    assert RowFilter.objects.get(team=team).expression == FILTER and ColumnMask.objects.count() == 2
    assert len(policy_history(team)) == 3  # the dry run wrote nothing

    body = apply(admin_client, changed, prune="true").json()
    assert body["row_filters"]["updated"] == ["lake.sales.orders"]
    assert body["column_masks"] == {"created": [], "updated": [], "deleted": ["lake.sales.customers.phone"],
                                    "unchanged": ["lake.sales.orders.email"]}
    found = RowFilter.objects.get(team=team)
    assert (found.expression, found.description) == ("region = 'US'", "")  # an omitted description is empty
    assert [c["change"] for _, _, c in policy_history(team)][3:] == ["changed", "removed"]

    assert apply(admin_client, {"row_filters": []}, prune="true").json()["row_filters"]["deleted"] == [
        "lake.sales.orders"]
    assert not RowFilter.objects.exists() and ColumnMask.objects.count() == 1  # the masks section was absent


@pytest.mark.parametrize(("change", "where", "field"), [
    ({"row_filters": [{"table": "lake.sales.orders", "expression": "region = 'EU' AND"}]}, "row_filters[0]",
     "expression"),
    ({"row_filters": [{"table": "lake.sales.orders", "expression": "id IN (SELECT 1)"}]}, "row_filters[0]",
     "expression"),
    ({"row_filters": [{"table": "lake.sales", "expression": "TRUE"}]}, "row_filters[0]", "table"),
    ({"row_filters": [{"table": "lake.sales.orders", "expression": "TRUE", "column": "x"}]}, "row_filters[0]",
     "column"),
    ({"column_masks": [{"table": "lake.sales.orders", "expression": "'x'"}]}, "column_masks[0]", "column"),
    ({"column_masks": [{"table": "lake.sales.orders", "column": "a", "expression": "'x'"},
                       {"table": "lake.sales.orders", "column": "A", "expression": "'y'"}]}, "column_masks[1]",
     "column"),
])
def test_a_bad_filter_or_mask_names_itself_and_nothing_is_applied(admin_client: APIClient, team: Team,
                                                                  world: dict[str, Any], change: dict[str, Any],
                                                                  where: str, field: str) -> None:
    resp = apply(admin_client, policies(**change))
    assert resp.status_code == 400, resp.content
    error = resp.json()["error"]
    assert where in error["message"] and "Nothing was applied" in error["message"], error
    assert field in error["details"][where], error
    assert not RowFilter.objects.exists() and not ColumnMask.objects.exists()
    assert not Grant.objects.exists() and not CatalogChange.objects.exists()  # the grants before them: undone too


def test_cli_apply_of_policies_records_the_shell_operator(team: Team, world: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "policies.yaml"
    path.write_text(yaml.safe_dump(policies()))
    out = _cli(path)
    assert "row_filters: created lake.sales.orders;" in out
    assert "column_masks: created lake.sales.customers.phone, lake.sales.orders.email;" in out
    actors = {name for _, name, _ in policy_history(team)}
    assert len(actors) == 1 and next(iter(actors)).startswith("cli:")
