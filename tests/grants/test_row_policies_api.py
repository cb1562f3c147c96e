"""Row filters and column masks through the REST API (docs/access.md, "Row filters and column masks"), as real users
of team acme: who may attach, change and remove them, what a bad expression answers (Spark's own parser, through the
worker's parse server), who sees an expression, the catalog history, and the document the engine gets."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import seal_configuration
from grants.selectors import access_document
from lakeport_engine.catalog_types.delta import DeltaConfig
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory
from tests.support.clients import token_client

pytestmark = [pytest.mark.django_db]

API = "/api/v1/teams/acme"
FILTER = "region = 'EU' OR is_member('finance')"
MASK = "CASE WHEN current_user() = 'ada' THEN email ELSE '***' END"


@pytest.fixture
def clients(team: Team, tmp_path: Any) -> dict[str, APIClient]:
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path), "default-database": "sales"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    out = {}
    for username, role in (("ada", Role.ADMIN), ("mia", Role.DEVELOPER), ("dev", Role.DEVELOPER),
                           ("vic", Role.VIEWER)):
        user = UserFactory(username=username)
        MembershipFactory(team=team, user=user, role=role)
        out[username] = token_client(user)
    ada = out["ada"]
    assert ada.post(f"{API}/groups/", {"name": "finance", "members": ["dev"]}, format="json").status_code == 201
    for securable, privilege, principal in (("lake.sales.orders", "MANAGE", "mia"),
                                            ("lake.sales.orders", "SELECT", "dev")):
        assert ada.post(f"{API}/grants/", {"securable": securable, "privilege": privilege, "principal_type": "user",
                                           "principal": principal}, format="json").status_code == 201
    return out


def test_attach_change_remove_with_history_and_visibility(clients: dict[str, APIClient], team: Team) -> None:
    mia, dev, vic = clients["mia"], clients["dev"], clients["vic"]
    made = mia.post(f"{API}/row-filters/", {"table": "lake.sales.orders", "expression": FILTER}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["table"] == "lake.sales.orders" and body["expression"] == FILTER and body["created_by"] == "mia"
    mask = mia.post(f"{API}/column-masks/", {"table": "lake.sales.orders", "column": "Email", "expression": MASK},
                    format="json")
    assert mask.status_code == 201, mask.content
    assert mask.json()["column"] == "email"

    # a reader learns that the table is protected, never how
    listed = dev.get(f"{API}/row-filters/?table=lake.sales.orders").json()
    assert [(f["table"], f["expression"]) for f in listed["results"]] == [("lake.sales.orders", None)]
    assert dev.get(f"{API}/column-masks/{mask.json()['id']}/").json()["expression"] is None
    assert vic.get(f"{API}/row-filters/").json()["results"] == []  # vic may not browse the table: not listed
    assert vic.get(f"{API}/row-filters/{body['id']}/").status_code == 404

    changed = mia.patch(f"{API}/row-filters/{body['id']}/", {"expression": "region = 'US'"}, format="json")
    assert changed.status_code == 200 and changed.json()["expression"] == "region = 'US'"
    assert mia.delete(f"{API}/column-masks/{mask.json()['id']}/").status_code == 204
    history = list(CatalogChange.objects.filter(team=team, action__in=["row_filter", "column_mask"])
                   .order_by("id").values_list("action", "actor_name", "changes"))
    assert history == [
        ("row_filter", "mia", {"table": "lake.sales.orders", "change": "added"}),
        ("column_mask", "mia", {"table": "lake.sales.orders", "column": "email", "change": "added"}),
        ("row_filter", "mia", {"table": "lake.sales.orders", "change": "changed"}),
        ("column_mask", "mia", {"table": "lake.sales.orders", "column": "email", "change": "removed"}),
    ]
    assert all("region" not in str(c) for _, _, c in history)  # the expression is not in the history
    assert mia.get(f"{API}/catalogs/lake/history/").status_code == 200


def test_only_managers_change_them(clients: dict[str, APIClient]) -> None:
    dev, vic, ada = clients["dev"], clients["vic"], clients["ada"]
    refused = dev.post(f"{API}/row-filters/", {"table": "lake.sales.orders", "expression": "true"}, format="json")
    assert refused.status_code == 403, refused.content
    assert "MANAGE" in refused.json()["error"]["message"]
    assert vic.post(f"{API}/row-filters/", {"table": "lake.sales.orders", "expression": "true"},
                    format="json").status_code == 403
    # an ungoverned catalog: only team admins hold MANAGE there
    assert clients["mia"].post(f"{API}/row-filters/", {"table": "other.db.t", "expression": "true"},
                               format="json").status_code == 403
    made = ada.post(f"{API}/row-filters/", {"table": "other.db.t", "expression": "true"}, format="json")
    assert made.status_code == 201
    again = ada.post(f"{API}/row-filters/", {"table": "other.db.t", "expression": "false"}, format="json")
    assert again.status_code == 409
    assert dev.delete(f"{API}/row-filters/{made.json()['id']}/").status_code in (403, 404)


@pytest.mark.parametrize(("body", "field"), [
    ({"table": "lake.sales", "expression": "true"}, "table"),
    ({"table": "lake.sales.*", "expression": "true"}, "table"),
    ({"table": "lake.sales.orders", "expression": "region = 'EU'; DROP TABLE x"}, "expression"),
    ({"table": "lake.sales.orders", "expression": "id IN (SELECT id FROM lake.hr.salaries)"}, "expression"),
    ({"table": "lake.sales.orders", "expression": "1) OR (1"}, "expression"),
    ({"table": "lake.sales.orders", "expression": "is_member(region)"}, "expression"),
    ({"table": "lake.sales.orders", "expression": "region = = 'EU'"}, "expression"),  # Spark's parser says no
    ({"table": "lake.sales.orders", "expression": "region IN ('EU',"}, "expression"),
])
def test_a_bad_filter_is_a_400_naming_the_field(clients: dict[str, APIClient], body: dict[str, str],
                                                 field: str) -> None:
    resp = clients["mia"].post(f"{API}/row-filters/", body, format="json")
    assert resp.status_code == 400, resp.content
    assert field in resp.json()["error"]["details"], resp.json()
    assert "Traceback" not in resp.content.decode() and "org.apache" not in resp.content.decode()


def test_a_bad_mask_is_a_400_naming_the_field(clients: dict[str, APIClient]) -> None:
    mia = clients["mia"]
    bad_column = mia.post(f"{API}/column-masks/", {"table": "lake.sales.orders", "column": "e-mail",
                                                   "expression": "'x'"}, format="json")
    assert bad_column.status_code == 400 and "column" in bad_column.json()["error"]["details"]
    bad = mia.post(f"{API}/column-masks/", {"table": "lake.sales.orders", "column": "email",
                                            "expression": "concat('a', )"}, format="json")
    assert bad.status_code == 400 and "expression" in bad.json()["error"]["details"], bad.content


def test_the_engine_document_binds_the_caller(clients: dict[str, APIClient], team: Team) -> None:
    mia = clients["mia"]
    assert mia.post(f"{API}/row-filters/", {"table": "lake.sales.orders", "expression": FILTER},
                    format="json").status_code == 201
    assert mia.post(f"{API}/column-masks/", {"table": "lake.sales.orders", "column": "email", "expression": MASK},
                    format="json").status_code == 201
    dev = team.memberships.get(user__username="dev").user
    rows = access_document(team=team, user=dev)["rows"]
    assert rows == [{"table": "lake.sales.orders", "filter": "region = 'EU' OR TRUE",
                     "masks": {"email": "CASE WHEN 'dev' = 'ada' THEN email ELSE '***' END"}, "visible": False}]
    manager = access_document(team=team, user=team.memberships.get(user__username="mia").user)["rows"]
    assert manager[0]["filter"] == "region = 'EU' OR FALSE" and manager[0]["visible"] is True
