"""The cross-team matrix: every team-scoped endpoint × every method × every role × own/other team.

Endpoints come from Django's URL resolver, so a new endpoint is in the matrix the day it is added. Each case is
one real request with a bearer token:
- another team's URL → 404 with the standard error body, exactly as for a team that does not exist (team names do
  not leak); a platform admin is admin everywhere;
- the caller's own team URL naming another team's object (job, run, member, catalog) → 404;
- the caller's own team, with a role below what the endpoint declares → 403; at or above it → neither 403 nor 404;
- never a 5xx.
The role each endpoint requires is read from the view (`read_role`/`write_role`); POLICY pins the expected roles
of the endpoints that exist today, so loosening one (say, viewers writing catalogs) fails here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from catalogs.models import Catalog
from teams.models import ROLE_RANK, Role
from tests.security.conftest import ROLES, TeamObjects, World

METHODS = ("get", "post", "put", "patch", "delete")
TEAM_PREFIX = "api/v1/teams/<str:team>/"

# Expected minimum role per (route below /teams/{team}/, method). A route missing here still runs with the
# role its view declares; a route listed here whose view declares another role fails.
POLICY: dict[tuple[str, str], str] = {
    ("", "get"): Role.VIEWER,
    ("members/", "get"): Role.VIEWER, ("members/", "post"): Role.ADMIN,
    ("members/<username>/", "get"): Role.VIEWER, ("members/<username>/", "patch"): Role.ADMIN,
    ("members/<username>/", "delete"): Role.ADMIN,
    ("catalog-types/", "get"): Role.VIEWER,
    ("catalogs/", "get"): Role.VIEWER, ("catalogs/", "post"): Role.ADMIN,
    ("catalogs/<name>/", "get"): Role.VIEWER, ("catalogs/<name>/", "put"): Role.ADMIN,
    ("catalogs/<name>/", "patch"): Role.ADMIN, ("catalogs/<name>/", "delete"): Role.ADMIN,
    ("catalogs/<name>/history/", "get"): Role.VIEWER,
    ("apply/", "post"): Role.ADMIN,
    ("catalogs/test-connection/", "post"): Role.ADMIN,
    ("catalogs/<name>/test-connection/", "post"): Role.DEVELOPER,
    ("catalogs/<name>/databases/", "get"): Role.VIEWER,
    ("catalogs/<name>/databases/<database>/tables/", "get"): Role.VIEWER,
    ("catalogs/<name>/databases/<database>/tables/<table>/", "get"): Role.VIEWER,
    ("jobs/", "get"): Role.VIEWER, ("jobs/", "post"): Role.DEVELOPER,
    ("jobs/<job_id>/", "get"): Role.VIEWER, ("jobs/<job_id>/", "put"): Role.DEVELOPER,
    ("jobs/<job_id>/", "patch"): Role.DEVELOPER, ("jobs/<job_id>/", "delete"): Role.DEVELOPER,
    ("jobs/<job_id>/runs/", "get"): Role.VIEWER, ("jobs/<job_id>/runs/", "post"): Role.DEVELOPER,
    ("runs/", "get"): Role.VIEWER,
    ("runs/<run_id>/", "get"): Role.VIEWER,
    ("runs/<run_id>/log/", "get"): Role.VIEWER,
    ("runs/<run_id>/result/", "get"): Role.VIEWER,
    ("runs/<run_id>/cancel/", "post"): Role.DEVELOPER,
    ("sql/validate/", "post"): Role.DEVELOPER,
    ("sql/preview/", "post"): Role.DEVELOPER,
    ("schedules/", "get"): Role.VIEWER, ("schedules/", "post"): Role.DEVELOPER,
    ("schedules/preview/", "get"): Role.VIEWER,
    ("schedules/<schedule_id>/", "get"): Role.VIEWER, ("schedules/<schedule_id>/", "patch"): Role.DEVELOPER,
    ("schedules/<schedule_id>/", "delete"): Role.DEVELOPER,
    ("schedules/<schedule_id>/pause/", "post"): Role.DEVELOPER,
    ("schedules/<schedule_id>/resume/", "post"): Role.DEVELOPER,
    ("catalogs/<name>/materialized-views/", "get"): Role.VIEWER,
    ("catalogs/<name>/materialized-views/<database>/<view>/", "get"): Role.VIEWER,
    ("catalogs/<name>/materialized-views/<database>/<view>/refresh/", "get"): Role.VIEWER,
    ("catalogs/<name>/materialized-views/<database>/<view>/refresh/", "post"): Role.DEVELOPER,
    ("engine/warm/", "post"): Role.DEVELOPER,
    ("alert-channels/", "get"): Role.VIEWER, ("alert-channels/", "post"): Role.ADMIN,
    ("alert-channels/<channel_id>/", "get"): Role.VIEWER, ("alert-channels/<channel_id>/", "patch"): Role.ADMIN,
    ("alert-channels/<channel_id>/", "delete"): Role.ADMIN,
    ("alert-channels/<channel_id>/test/", "post"): Role.ADMIN,
    ("alert-rules/", "get"): Role.VIEWER, ("alert-rules/", "post"): Role.ADMIN,
    ("alert-rules/<rule_id>/", "get"): Role.VIEWER, ("alert-rules/<rule_id>/", "patch"): Role.ADMIN,
    ("alert-rules/<rule_id>/", "delete"): Role.ADMIN,
    ("catalogs/<name>/databases/<database>/tables/<table>/maintenance/", "get"): Role.VIEWER,
    ("catalogs/<name>/databases/<database>/tables/<table>/maintenance/", "post"): Role.ADMIN,
    ("groups/", "get"): Role.VIEWER, ("groups/", "post"): Role.ADMIN,
    ("groups/<group>/", "get"): Role.VIEWER, ("groups/<group>/", "patch"): Role.ADMIN,
    ("groups/<group>/", "delete"): Role.ADMIN,
    ("groups/<group>/members/", "post"): Role.ADMIN,
    ("groups/<group>/members/<username>/", "delete"): Role.ADMIN,
    # granting and revoking: developers reach the service, which requires MANAGE on the securable (or admin)
    ("grants/", "get"): Role.VIEWER, ("grants/", "post"): Role.DEVELOPER,
    ("grants/<grant_id>/", "get"): Role.VIEWER, ("grants/<grant_id>/", "delete"): Role.DEVELOPER,
    # row filters and column masks: developers reach the service, which requires MANAGE on the table (or admin)
    ("row-filters/", "get"): Role.VIEWER, ("row-filters/", "post"): Role.DEVELOPER,
    ("row-filters/<filter_id>/", "get"): Role.VIEWER, ("row-filters/<filter_id>/", "patch"): Role.DEVELOPER,
    ("row-filters/<filter_id>/", "delete"): Role.DEVELOPER,
    ("column-masks/", "get"): Role.VIEWER, ("column-masks/", "post"): Role.DEVELOPER,
    ("column-masks/<mask_id>/", "get"): Role.VIEWER, ("column-masks/<mask_id>/", "patch"): Role.DEVELOPER,
    ("column-masks/<mask_id>/", "delete"): Role.DEVELOPER,
}


@dataclass(frozen=True)
class Endpoint:
    route: str  # below /api/v1/teams/<team>/, converters stripped: "catalogs/<name>/"
    method: str
    view: Any

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.route or '.'}"

    @property
    def params(self) -> list[str]:
        return re.findall(r"<([^>]+)>", self.route)

    def required_role(self) -> str:
        attr = "read_role" if self.method == "get" else "write_role"
        return str(getattr(self.view, attr, Role.VIEWER if self.method == "get" else Role.ADMIN))


def _walk(patterns: list[Any], prefix: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for p in patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            found.extend(_walk(p.url_patterns, route))
        elif isinstance(p, URLPattern) and hasattr(p.callback, "view_class"):
            found.append((route, p.callback.view_class))
    return found


def team_endpoints() -> list[Endpoint]:
    """Every (route, method) under /api/v1/teams/<team>/ that a view implements."""
    endpoints = []
    for route, view in _walk(get_resolver().url_patterns):
        if not route.startswith(TEAM_PREFIX):
            continue
        below = re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", route.removeprefix(TEAM_PREFIX))
        endpoints.extend(Endpoint(below, m, view) for m in METHODS if hasattr(view, m))
    return sorted(set(endpoints), key=str)


ENDPOINTS = team_endpoints()


def url(endpoint: Endpoint, team: str, objects: TeamObjects) -> str:
    values = {"name": objects.catalog, "database": objects.database, "table": objects.table,
              "job_id": objects.job_id, "run_id": objects.run_id, "username": objects.member,
              "schedule_id": objects.schedule_id, "dataset_id": objects.dataset_id, "column": "id",
              "preview_id": objects.preview_id, "view": objects.view, "channel_id": objects.channel_id,
              "rule_id": objects.rule_id, "group": objects.group, "grant_id": objects.grant_id,
              "filter_id": objects.filter_id, "mask_id": objects.mask_id}
    path = endpoint.route
    for param in endpoint.params:
        assert param in values, f"{endpoint}: the matrix does not know how to fill <{param}>; add it to url()"
        path = path.replace(f"<{param}>", str(values[param]))
    return f"/api/v1/teams/{team}/{path}"


def call(client: APIClient, endpoint: Endpoint, path: str) -> Any:
    body = None if endpoint.method in ("get", "delete") else {}
    return getattr(client, endpoint.method)(path, body, format="json")


def client(world: World, role: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {world.members[role].token}")
    return c


def rank(role: str) -> int:
    return ROLE_RANK[Role(role)]


def assert_error_body(resp: Any, code: str) -> None:
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"] == code, body


def test_the_matrix_covers_every_team_endpoint() -> None:
    assert len(ENDPOINTS) >= len(POLICY)
    missing = sorted(k for k in POLICY if k not in {(e.route, e.method) for e in ENDPOINTS})
    assert not missing, f"POLICY lists endpoints the URL resolver no longer has: {missing}"


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_declared_role_matches_the_policy(endpoint: Endpoint) -> None:
    expected = POLICY.get((endpoint.route, endpoint.method))
    if expected is not None:
        assert endpoint.required_role() == expected, f"{endpoint} now requires {endpoint.required_role()}"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_own_team(world: World, endpoint: Endpoint, role: str) -> None:
    resp = call(client(world, role), endpoint, url(endpoint, "acme", world.own))
    assert resp.status_code < 500, (resp.status_code, resp.content[:300])
    effective = Role.ADMIN if role == "platform_admin" else role
    if rank(effective) < rank(endpoint.required_role()):
        assert resp.status_code == 403, (resp.status_code, resp.content[:300])
        assert_error_body(resp, "permission_denied")
    else:
        assert resp.status_code not in (401, 403, 404), (resp.status_code, resp.content[:300])


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_other_team(world: World, endpoint: Endpoint, role: str) -> None:
    resp = call(client(world, role), endpoint, url(endpoint, "globex", world.other))
    assert resp.status_code < 500, (resp.status_code, resp.content[:300])
    if role == "platform_admin":
        assert resp.status_code not in (401, 403, 404), (resp.status_code, resp.content[:300])
        return
    assert resp.status_code == 404, (resp.status_code, resp.content[:300])
    assert_error_body(resp, "not_found")
    # Indistinguishable from a team that does not exist: a member learns nothing about globex.
    missing = call(client(world, role), endpoint, url(endpoint, "no-such-team", world.other))
    assert (missing.status_code, missing.json()) == (resp.status_code, resp.json())


OBJECT_PARAMS = {"name", "job_id", "run_id", "username", "schedule_id", "dataset_id", "preview_id", "view",
                 "channel_id", "rule_id", "group", "grant_id", "filter_id", "mask_id"}
CREATES_BY_NAME = {("catalogs/<name>/", "put")}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if OBJECT_PARAMS & set(e.params)], ids=str)
def test_own_team_url_with_another_teams_object(world: World, endpoint: Endpoint, role: str) -> None:
    """/teams/acme/jobs/<globex's job id>/ and the like: 404 (or 403 first, for a role that may not call it)."""
    resp = call(client(world, role), endpoint, url(endpoint, "acme", world.other))
    assert resp.status_code < 500, (resp.status_code, resp.content[:300])
    effective = Role.ADMIN if role == "platform_admin" else role
    allowed = rank(effective) >= rank(endpoint.required_role())
    if allowed and (endpoint.route, endpoint.method) in CREATES_BY_NAME:
        # PUT is create-or-replace: the name is free in acme, so this is a create (here with an invalid body)
        # and globex's catalog of that name is untouched.
        assert resp.status_code == 400, (resp.status_code, resp.content[:300])
        assert Catalog.objects.get(team=world.other.team, catalog_name=world.other.catalog).version == 1
        return
    assert resp.status_code == (404 if allowed else 403), (resp.status_code, resp.content[:300])


# ---- endpoints outside a team --------------------------------------------------------------------------------
def test_a_token_of_another_user_is_not_found_even_for_a_platform_admin(world: World) -> None:
    viewer = world.members["viewer"]
    for role in ROLES:
        c = client(world, role)
        if role == "viewer":
            assert c.get(f"/api/v1/tokens/{viewer.token_id}/").status_code == 200
            continue
        for method in ("get", "delete"):
            resp = getattr(c, method)(f"/api/v1/tokens/{viewer.token_id}/")
            assert resp.status_code == 404, (role, method, resp.status_code)
    assert client(world, "viewer").get("/api/v1/me/").status_code == 200  # the viewer's token still works


def test_only_a_platform_admin_creates_teams_and_members_see_only_their_teams(world: World) -> None:
    for role in ("viewer", "developer", "admin"):
        resp = client(world, role).post("/api/v1/teams/", {"name": f"new-{role}"}, format="json")
        assert resp.status_code == 403, (role, resp.status_code)
        names = [t["name"] for t in client(world, role).get("/api/v1/teams/").json()["results"]]
        assert names == ["acme"], (role, names)
    root = client(world, "platform_admin")
    assert root.post("/api/v1/teams/", {"name": "initech"}, format="json").status_code == 201
    assert {t["name"] for t in root.get("/api/v1/teams/").json()["results"]} >= {"acme", "globex", "initech"}


def test_without_a_token_every_team_endpoint_is_401(world: World) -> None:
    anonymous = APIClient()
    for endpoint in ENDPOINTS:
        resp = call(anonymous, endpoint, url(endpoint, "acme", world.own))
        assert resp.status_code == 401, (str(endpoint), resp.status_code)
        assert_error_body(resp, "not_authenticated")
