"""Bearer tokens, browser sessions with CSRF, and the error body for bad requests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from teams.models import ApiToken, Role
from tests.factories import MembershipFactory, TeamFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_missing_token_is_401_with_error_body() -> None:
    resp = APIClient().get("/api/v1/teams/")
    assert resp.status_code == 401
    assert resp.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize("header", ["Bearer nope", "Bearer", "Bearer a b", "Bearer lpt_" + "x" * 43])
def test_bad_token_is_401(header: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    assert client.get("/api/v1/teams/").status_code == 401


def test_token_lifecycle_create_use_revoke() -> None:
    user = UserFactory(username="integrator")
    client = APIClient()
    client.force_login(user)  # a browser session issues the token
    created = client.post("/api/v1/tokens/", {"name": "ci", "expires_in_days": 30}, format="json")
    assert created.status_code == 201
    raw = created.json()["token"]
    stored = ApiToken.objects.get(pk=created.json()["id"])
    assert raw not in (stored.digest, stored.prefix) and stored.digest != raw  # only a hash is stored

    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert bearer.get("/api/v1/me/").json()["username"] == "integrator"
    listed = client.get("/api/v1/tokens/").json()["results"]
    assert "token" not in listed[0] and listed[0]["active"] is True

    assert client.delete(f"/api/v1/tokens/{stored.pk}/").status_code == 204
    resp = bearer.get("/api/v1/me/")
    assert resp.status_code == 401 and "revoked" in resp.json()["error"]["message"]


def test_expired_token_is_401() -> None:
    user = UserFactory()
    from teams.services import api_token_create

    issued = api_token_create(user=user, name="old", expires_in_days=1)
    ApiToken.objects.filter(pk=issued.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.raw}")
    resp = client.get("/api/v1/me/")
    assert resp.status_code == 401 and "expired" in resp.json()["error"]["message"]


def test_cannot_see_or_revoke_someone_elses_token() -> None:
    from teams.services import api_token_create

    owner, intruder = UserFactory(), UserFactory()
    issued = api_token_create(user=owner, name="mine")
    client = APIClient()
    client.force_login(intruder)
    assert client.delete(f"/api/v1/tokens/{issued.token.pk}/").status_code == 404
    assert ApiToken.objects.get(pk=issued.token.pk).revoked_at is None


def test_session_login_requires_csrf_for_writes() -> None:
    team = TeamFactory(name="web")
    user = UserFactory(username="alice")
    MembershipFactory(team=team, user=user, role=Role.ADMIN)
    browser = Client(enforce_csrf_checks=True)
    csrf = browser.get("/api/v1/auth/csrf/").json()["csrf_token"]
    bad = browser.post("/api/v1/auth/login/", {"username": "alice", "password": "wrong"},
                       content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert bad.status_code in (401, 403)
    ok = browser.post("/api/v1/auth/login/", {"username": "alice", "password": "pw-for-tests-only"},
                      content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert ok.status_code == 200 and ok.json()["teams"] == [{"name": "web", "role": "admin"}]
    # A write without the CSRF header is refused even though the session is valid.
    UserFactory(username="bob")
    no_csrf = browser.post("/api/v1/teams/web/members/", {"username": "bob", "role": "viewer"}, content_type="application/json")
    assert no_csrf.status_code == 403
    csrf = browser.cookies["csrftoken"].value
    with_csrf = browser.post("/api/v1/teams/web/members/", {"username": "bob", "role": "viewer"},
                             content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert with_csrf.status_code == 201
    assert browser.post("/api/v1/auth/logout/", content_type="application/json", HTTP_X_CSRFTOKEN=csrf).status_code == 204
    assert browser.get("/api/v1/me/").status_code in (401, 403)


def test_malformed_json_is_400_with_error_body(admin_client: APIClient) -> None:
    resp = admin_client.generic("POST", "/api/v1/teams/acme/members/", "{not json", content_type="application/json")
    assert resp.status_code == 400
    body = resp.json()
    assert body["error"]["code"] == "parse_error" and body["error"]["message"]


def test_json_array_body_is_400_not_500(admin_client: APIClient) -> None:
    resp = admin_client.post("/api/v1/teams/acme/members/", [1, 2], format="json")
    assert resp.status_code == 400


def test_oversized_body_is_413(admin_client: APIClient) -> None:
    resp = admin_client.generic("POST", "/api/v1/teams/acme/members/", "x" * (1024 * 1024 + 10), content_type="application/json")
    assert resp.status_code == 413
    assert resp.json()["error"]["code"] == "payload_too_large"


def test_unknown_api_path_is_json_404(admin_client: APIClient) -> None:
    resp = admin_client.get("/api/v1/nothing-here/")
    assert resp.status_code == 404
    assert resp.json()["error"]["code"] == "not_found"


def test_openapi_schema_and_docs_are_served() -> None:
    client = APIClient()
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/teams/{team}/members/" in paths and "/api/v1/tokens/" in paths
    assert client.get("/api/docs/").status_code == 200


def test_management_commands(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("createteam", "ops")
    UserFactory(username="carol")
    call_command("addmember", "--team", "ops", "--user", "carol", "--role", "developer")
    capsys.readouterr()
    call_command("create_api_token", "--user", "carol")
    token = capsys.readouterr().out.strip()
    assert token.startswith("lpt_") and "\n" not in token
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/api/v1/teams/ops/").json()["role"] == "developer"


def test_management_commands_refuse_with_the_domain_message() -> None:
    with pytest.raises(CommandError, match="lowercase letters"):
        call_command("createteam", "Bad Name")
    call_command("createteam", "ops")
    with pytest.raises(CommandError, match="A team named 'ops' already exists"):
        call_command("createteam", "ops")
    UserFactory(username="dana")
    call_command("addmember", "--team", "ops", "--user", "dana", "--role", "admin")
    with pytest.raises(CommandError, match="at least one admin"):
        call_command("addmember", "--team", "ops", "--user", "dana", "--role", "viewer")
