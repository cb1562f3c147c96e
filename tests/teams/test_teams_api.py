"""Teams, members and the role matrix over the real API with bearer tokens."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from teams.models import Membership, Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_platform_admin_creates_team_and_it_appears_in_listing(platform_admin_client: APIClient) -> None:
    resp = platform_admin_client.post("/api/v1/teams/", {"name": "data-eng"}, format="json")
    assert resp.status_code == 201, resp.content
    assert resp.json()["name"] == "data-eng"
    names = [t["name"] for t in platform_admin_client.get("/api/v1/teams/").json()["results"]]
    assert "data-eng" in names


def test_duplicate_team_is_409(platform_admin_client: APIClient) -> None:
    platform_admin_client.post("/api/v1/teams/", {"name": "dup"}, format="json")
    resp = platform_admin_client.post("/api/v1/teams/", {"name": "dup"}, format="json")
    assert resp.status_code == 409
    assert resp.json()["error"]["code"] == "conflict"


@pytest.mark.parametrize("bad", ["", "Upper", "1starts-with-digit", "has space", "x" * 64, "semi;colon"])
def test_bad_team_name_is_400_naming_the_field(platform_admin_client: APIClient, bad: str) -> None:
    resp = platform_admin_client.post("/api/v1/teams/", {"name": bad}, format="json")
    assert resp.status_code == 400
    assert "name" in resp.json()["error"]["details"]


def test_team_member_cannot_create_team(admin_client: APIClient) -> None:
    resp = admin_client.post("/api/v1/teams/", {"name": "sneaky"}, format="json")
    assert resp.status_code == 403


def test_team_list_shows_only_own_teams_with_role(client_for, team, other_team) -> None:  # type: ignore[no-untyped-def]
    client = client_for(Role.DEVELOPER)
    teams = client.get("/api/v1/teams/").json()["results"]
    assert [(t["name"], t["role"]) for t in teams] == [("acme", "developer")]


ROLES = [Role.ADMIN, Role.DEVELOPER, Role.VIEWER]


@pytest.mark.parametrize("role", ROLES)
def test_role_matrix_own_team(client_for, team, role: str) -> None:  # type: ignore[no-untyped-def]
    """Every role reads its team and members; only admins manage members."""
    client = client_for(role)
    newcomer = UserFactory(username=f"new-{role}")
    assert client.get("/api/v1/teams/acme/").status_code == 200
    assert client.get("/api/v1/teams/acme/members/").status_code == 200
    add = client.post("/api/v1/teams/acme/members/", {"username": newcomer.username, "role": "viewer"}, format="json")
    assert add.status_code == (201 if role == Role.ADMIN else 403)
    if role == Role.ADMIN:
        patch = client.patch(f"/api/v1/teams/acme/members/{newcomer.username}/", {"role": "developer"}, format="json")
        assert patch.status_code == 200 and patch.json()["role"] == "developer"
        assert client.delete(f"/api/v1/teams/acme/members/{newcomer.username}/").status_code == 204
        assert not Membership.objects.filter(user=newcomer).exists()
    else:
        assert add.json()["error"]["code"] == "permission_denied"
        assert not Membership.objects.filter(user=newcomer).exists()


@pytest.mark.parametrize("role", ROLES)
def test_role_matrix_other_team_is_404(client_for, other_team, role: str) -> None:  # type: ignore[no-untyped-def]
    client = client_for(role)
    for method, url in [
        ("get", "/api/v1/teams/globex/"),
        ("get", "/api/v1/teams/globex/members/"),
        ("post", "/api/v1/teams/globex/members/"),
        ("delete", "/api/v1/teams/globex/members/anyone/"),
    ]:
        resp = getattr(client, method)(url, {"username": "x", "role": "viewer"}, format="json")
        assert resp.status_code == 404, (method, url)
        assert resp.json()["error"]["code"] == "not_found"


def test_unknown_team_is_404(admin_client: APIClient) -> None:
    assert admin_client.get("/api/v1/teams/no-such-team/members/").status_code == 404


def test_platform_admin_acts_in_every_team(platform_admin_client: APIClient, other_team) -> None:  # type: ignore[no-untyped-def]
    user = UserFactory(username="joiner")
    resp = platform_admin_client.post("/api/v1/teams/globex/members/", {"username": user.username, "role": "admin"}, format="json")
    assert resp.status_code == 201


def test_last_admin_cannot_be_removed_or_demoted(client_for, team) -> None:  # type: ignore[no-untyped-def]
    client = client_for(Role.ADMIN)
    admin_name = Membership.objects.get(team=team, role=Role.ADMIN).user.username
    assert client.delete(f"/api/v1/teams/acme/members/{admin_name}/").status_code == 409
    assert client.patch(f"/api/v1/teams/acme/members/{admin_name}/", {"role": "viewer"}, format="json").status_code == 409
    assert Membership.objects.get(team=team, user__username=admin_name).role == Role.ADMIN


def test_add_unknown_user_is_400(admin_client: APIClient) -> None:
    resp = admin_client.post("/api/v1/teams/acme/members/", {"username": "ghost", "role": "viewer"}, format="json")
    assert resp.status_code == 400
    assert "username" in resp.json()["error"]["details"]


def test_bad_role_is_400(admin_client: APIClient) -> None:
    UserFactory(username="someone")
    resp = admin_client.post("/api/v1/teams/acme/members/", {"username": "someone", "role": "owner"}, format="json")
    assert resp.status_code == 400
    assert "role" in resp.json()["error"]["details"]
