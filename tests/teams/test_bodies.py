"""The CSRF, session and issued-token bodies are what the OpenAPI schema says, key for key: they are written by the
serializers the schema is generated from, so a view going back to a hand-built dict that adds, drops or renames a
key fails here."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from teams.models import Role
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.support.schema import conforms, response_schema

pytestmark = pytest.mark.django_db


def _body(schema: dict[str, Any], response: Any, url: str, method: str = "get", status: int = 200) -> dict[str, Any]:
    """The body, checked against the schema of the operation at `url` for `status`."""
    assert response.status_code == status, response.content
    body: dict[str, Any] = response.json()
    assert conforms(body, response_schema(schema, url, method, status), schema) == [], (url, body)
    return body


def test_csrf_and_session_bodies_follow_the_schema(schema: dict[str, Any]) -> None:
    browser = Client()
    csrf = _body(schema, browser.get("/api/v1/auth/csrf/"), "/api/v1/auth/csrf/")
    assert list(csrf) == ["csrf_token"] and csrf["csrf_token"] and browser.cookies["csrftoken"].value

    assert _body(schema, browser.get("/api/v1/auth/session/"), "/api/v1/auth/session/") == {
        "authenticated": False, "user": None,
    }
    user = UserFactory(username="ada")
    MembershipFactory(team=TeamFactory(name="web"), user=user, role=Role.DEVELOPER)
    browser.force_login(user)
    me = browser.get("/api/v1/me/").json()
    assert _body(schema, browser.get("/api/v1/auth/session/"), "/api/v1/auth/session/") == {
        "authenticated": True, "user": me,
    }
    assert me == {"username": "ada", "is_platform_admin": False, "teams": [{"name": "web", "role": "developer"}]}


def test_issued_token_body_follows_the_schema_and_is_the_token_plus_its_value(schema: dict[str, Any]) -> None:
    client = APIClient()
    client.force_login(UserFactory(username="integrator"))
    created = _body(schema, client.post("/api/v1/tokens/", {"name": "ci", "expires_in_days": 30}, format="json"),
                    "/api/v1/tokens/", "post", 201)
    raw = created.pop("token")
    assert raw.startswith(created["prefix"]) and len(raw) > len(created["prefix"])
    assert created == client.get(f"/api/v1/tokens/{created['id']}/").json()  # the stored token's own body
    assert created["name"] == "ci" and created["active"] is True and created["expires_at"]
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert bearer.get("/api/v1/me/").json()["username"] == "integrator"
