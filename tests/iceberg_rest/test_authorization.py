"""The Iceberg REST endpoint's authorization matrix: every operation × every role × own team, another team's
catalog, a team that does not exist, a catalog of another type, no or a bad token — each one real request with a
bearer token, and each answer checked against the Iceberg REST OpenAPI document.

- own team, role at or above the operation's (viewer reads, developer writes, admin drops) → 2xx;
- below it → 403 ForbiddenException, and nothing changed;
- another team's catalog → 404 exactly as for a team that does not exist (names do not leak); a platform admin
  is admin everywhere; a non-iceberg catalog → 404; no token or a bad one → 401.
(These routes use the spec's error model, not the platform's, so they have this matrix instead of a line in
tests/security/test_team_matrix.py's POLICY, which covers `/api/v1/teams/<team>/…`.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, get_resolver
from pyiceberg import types as it
from pyiceberg.schema import Schema

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from iceberg_rest import urls as rest_urls
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.catalog_types.iceberg import IcebergConfig
from lakeport_engine.iceberg.catalog import open_catalog
from teams.models import Role
from teams.services import api_token_create
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.iceberg_rest.spec import Served, problems

pytestmark = pytest.mark.django_db

CALLERS = ("viewer", "developer", "admin", "platform_admin")
RANK = {"viewer": 1, "developer": 2, "admin": 3, "platform_admin": 3}
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}


@dataclass(frozen=True)
class Op:
    method: str
    path: str  # below the catalog's base
    role: str
    body: dict[str, Any] | None = None

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


OPERATIONS = (
    Op("GET", "v1/config", Role.VIEWER),
    Op("GET", "v1/namespaces", Role.VIEWER),
    Op("POST", "v1/namespaces", Role.DEVELOPER, {"namespace": ["fresh"], "properties": {}}),
    Op("GET", "v1/namespaces/ns", Role.VIEWER),
    Op("HEAD", "v1/namespaces/ns", Role.VIEWER),
    Op("DELETE", "v1/namespaces/empty", Role.ADMIN),
    Op("POST", "v1/namespaces/ns/properties", Role.DEVELOPER, {"updates": {"k": "v"}, "removals": []}),
    Op("GET", "v1/namespaces/ns/tables", Role.VIEWER),
    Op("POST", "v1/namespaces/ns/tables", Role.DEVELOPER, {"name": "t2", "schema": SCHEMA}),
    Op("GET", "v1/namespaces/ns/tables/t", Role.VIEWER),
    Op("HEAD", "v1/namespaces/ns/tables/t", Role.VIEWER),
    Op("POST", "v1/namespaces/ns/tables/t", Role.DEVELOPER,
       {"requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}),
    Op("DELETE", "v1/namespaces/ns/tables/t", Role.ADMIN),
    Op("POST", "v1/namespaces/ns/tables/t/metrics", Role.VIEWER,
       {"report-type": "commit-report", "table-name": "ns.t", "snapshot-id": 1, "sequence-number": 1,
        "operation": "append", "metrics": {}}),
    Op("POST", "v1/tables/rename", Role.DEVELOPER,
       {"source": {"namespace": ["ns"], "name": "t"}, "destination": {"namespace": ["ns"], "name": "t3"}}),
)


@dataclass
class Matrix:
    tokens: dict[str, str]
    outsider: str
    warehouses: dict[str, Path]

    def call(self, op: Op, token: str | None, *, team: str = "acme", catalog: str = "ice") -> Served:
        path = f"/api/iceberg/{team}/{catalog}/{op.path}"
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
        client = Client()
        if op.body is not None:
            resp = client.generic(op.method, path, data=json.dumps(op.body),
                                  content_type="application/json", **headers)
        else:
            resp = client.generic(op.method, path, **headers)
        served = Served(op.method, path, resp.status_code, resp.content)
        assert not problems(served), problems(served)
        return served

    def state(self, team: str = "acme") -> tuple[Any, ...]:
        """What a refused write must leave unchanged: namespaces, their properties, tables, t's metadata file."""
        catalog = open_catalog(str(self.warehouses[team]))
        return (sorted(catalog.list_namespaces()), catalog.load_namespace_properties("ns"),
                sorted(catalog.list_tables("ns")), catalog.load_table("ns.t").metadata_location)


@pytest.fixture
def matrix(tmp_path: Path) -> Matrix:
    acme, globex = TeamFactory(name="acme"), TeamFactory(name="globex")
    tokens = {}
    for role in ("viewer", "developer", "admin"):
        user = UserFactory()
        MembershipFactory(team=acme, user=user, role=role)
        tokens[role] = api_token_create(user=user, name="m").raw
    tokens["platform_admin"] = api_token_create(user=UserFactory(is_superuser=True), name="m").raw
    outsider = UserFactory()
    MembershipFactory(team=globex, user=outsider, role=Role.ADMIN)
    warehouses = {}
    for team in (acme, globex):
        root = tmp_path / team.name
        root.mkdir()
        catalog = open_catalog(str(root))
        for ns in ("ns", "empty"):
            catalog.create_namespace(ns)
        catalog.create_table("ns.t", schema=Schema(it.NestedField(1, "id", it.LongType())),
                             location=(root / "ns" / "t").as_uri())
        Catalog.objects.create(team=team, catalog_type="iceberg", catalog_name="ice",
                               configuration=seal_configuration(IcebergConfig.model_validate({"warehouse": str(root)})))
        warehouses[team.name] = root
    (tmp_path / "lake").mkdir()
    Catalog.objects.create(team=acme, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(
        DeltaConfig.model_validate({"warehouse": str(tmp_path / "lake")})))
    return Matrix(tokens=tokens, outsider=api_token_create(user=outsider, name="m").raw, warehouses=warehouses)


def test_the_matrix_covers_every_route_and_method() -> None:
    from iceberg_rest.views import IcebergApi

    routes = {str(p.pattern) for p in rest_urls.urlpatterns if isinstance(p, URLPattern)}
    served = set()
    for p in rest_urls.urlpatterns:
        view = getattr(p.callback, "view_class", None)
        if view is not None and issubclass(view, IcebergApi):
            served |= {(str(p.pattern), m.upper()) for m in view.roles}
    covered = {(_route(op.path), op.method) for op in OPERATIONS}
    assert served == covered, (served ^ covered, routes)
    assert any("api/iceberg/" in str(p.pattern) for p in get_resolver().url_patterns)


def _route(path: str) -> str:
    parts = path.split("/")
    names = {2: "<str:namespace>", 4: "<str:table>"} if parts[1] == "namespaces" else {}  # v1/namespaces/<ns>/…
    return "/".join(names.get(i, part) for i, part in enumerate(parts))


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("op", OPERATIONS, ids=str)
def test_own_team(matrix: Matrix, op: Op, caller: str) -> None:
    before = matrix.state()
    served = matrix.call(op, matrix.tokens[caller])
    if RANK[caller] >= RANK[op.role]:
        assert 200 <= served.status < 300, (served.status, served.body[:300])
    else:
        assert served.status == 403, (served.status, served.body[:300])
        assert b"ForbiddenException" in served.body
        assert matrix.state() == before  # a refused write changed nothing


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("op", OPERATIONS, ids=str)
def test_another_teams_catalog(matrix: Matrix, op: Op, caller: str) -> None:
    before = matrix.state("globex")
    served = matrix.call(op, matrix.tokens[caller], team="globex")
    if caller == "platform_admin":
        assert 200 <= served.status < 300, (served.status, served.body[:300])
        return
    assert served.status == 404, (served.status, served.body[:300])
    assert matrix.state("globex") == before
    # indistinguishable from a team that does not exist, and from a missing catalog of one's own team
    missing = matrix.call(op, matrix.tokens[caller], team="no-such-team")
    assert (missing.status, missing.body) == (served.status, served.body)


@pytest.mark.parametrize("op", OPERATIONS, ids=str)
def test_outsiders_non_iceberg_catalogs_and_missing_tokens(matrix: Matrix, op: Op) -> None:
    before = matrix.state()
    assert matrix.call(op, matrix.outsider).status == 404
    assert matrix.call(op, matrix.tokens["admin"], catalog="lake").status == 404  # a Delta catalog
    assert matrix.call(op, matrix.tokens["admin"], catalog="none").status == 404
    for token in (None, "lpt_not-a-token", "lpi_forged"):
        served = matrix.call(op, token)
        assert served.status == 401, served
        assert op.method == "HEAD" or b"NotAuthorizedException" in served.body, served
    assert matrix.state() == before
