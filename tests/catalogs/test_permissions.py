"""The role matrix: admin / developer / viewer × own / other team × every catalog endpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import seal_configuration
from lakeport_engine.catalog_types.hive import HiveConfig
from teams.models import Role, Team
from tests.catalogs.conftest import hive_body

pytestmark = pytest.mark.django_db

ROLES = [Role.ADMIN, Role.DEVELOPER, Role.VIEWER]


def _seed(team: Team) -> None:
    config = HiveConfig.model_validate({"metastore-uris": "thrift://127.0.0.1:9083"})
    Catalog.objects.create(team=team, catalog_type="hive", catalog_name="hive_wh",
                           configuration=seal_configuration(config))


def _requests(team: str) -> list[tuple[str, str, Any, bool]]:
    """(method, url, body, is_write) for every catalog endpoint."""
    base = f"/api/v1/teams/{team}"
    return [
        ("get", f"{base}/catalog-types/", None, False),
        ("get", f"{base}/catalogs/", None, False),
        ("get", f"{base}/catalogs/hive_wh/", None, False),
        ("get", f"{base}/catalogs/hive_wh/history/", None, False),
        ("post", f"{base}/catalogs/", hive_body(name="new_one"), True),
        ("put", f"{base}/catalogs/put_one/", hive_body(name="put_one"), True),
        ("patch", f"{base}/catalogs/hive_wh/", {"description": "changed"}, True),
        ("post", f"{base}/apply/", {"catalogs": [hive_body(name="applied")]}, True),
        ("delete", f"{base}/catalogs/hive_wh/", None, True),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_own_team_every_role_reads_only_admins_write(client_for: Any, team: Team, role: str) -> None:
    _seed(team)
    client: APIClient = client_for(role)
    for method, url, body, is_write in _requests("acme"):
        resp = getattr(client, method)(url, body, format="json")
        expected = (200, 201, 204) if (not is_write or role == Role.ADMIN) else (403,)
        assert resp.status_code in expected, (role, method, url, resp.content)
        if resp.status_code == 403:
            assert resp.json()["error"]["code"] == "permission_denied"
    if role == Role.ADMIN:
        assert set(Catalog.objects.values_list("catalog_name", flat=True)) == {"new_one", "put_one", "applied"}
    else:
        assert list(Catalog.objects.values_list("catalog_name", "description")) == [("hive_wh", "")]
        assert not CatalogChange.objects.exists()


@pytest.mark.parametrize("role", ROLES)
def test_other_team_is_404_for_every_role_and_endpoint(client_for: Any, team: Team, other_team: Team,
                                                       role: str) -> None:
    _seed(other_team)
    client: APIClient = client_for(role)  # a member of acme, not of globex
    for method, url, body, _ in _requests("globex"):
        resp = getattr(client, method)(url, body, format="json")
        assert resp.status_code == 404, (role, method, url, resp.content)
        assert resp.json()["error"]["code"] == "not_found"
    stored = Catalog.objects.get(team=other_team)
    assert (stored.catalog_name, stored.version, stored.description) == ("hive_wh", 1, "")
    assert set(Catalog.objects.values_list("catalog_name", flat=True)) == {"hive_wh"}


def test_reads_show_no_secrets_to_any_role(client_for: Any, team: Team, pg_source: Any) -> None:
    from tests.catalogs.conftest import PG_PASSWORD, pg_body

    client_for(Role.ADMIN).post("/api/v1/teams/acme/catalogs/", pg_body(pg_source), format="json")
    for role in ROLES:
        client = client_for(role)
        for url in ("/api/v1/teams/acme/catalogs/", "/api/v1/teams/acme/catalogs/pg_main/",
                    "/api/v1/teams/acme/catalogs/pg_main/history/"):
            resp = client.get(url)
            assert resp.status_code == 200 and PG_PASSWORD not in json.dumps(resp.json())
        assert client.get("/api/v1/teams/acme/catalogs/pg_main/").json()["secrets_set"] == ["password"]


def test_anonymous_is_401() -> None:
    resp = APIClient().get("/api/v1/teams/acme/catalogs/")
    assert resp.status_code == 401
