"""Sign-in throttling through the public API: failed logins are limited per user and per client address with a
429 in the error envelope and `Retry-After`; API tokens keep working for a locked user."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from tests.factories import UserFactory

LOGIN = "/api/v1/auth/login/"
PASSWORD = "right-Password-1"


def _login(username: str, password: str, address: str = "203.0.113.7") -> Any:
    return APIClient().post(LOGIN, {"username": username, "password": password}, format="json",
                            REMOTE_ADDR=address)


@pytest.fixture
def ada(db: Any) -> Any:
    return UserFactory(username="ada", password=PASSWORD)


def test_wrong_passwords_lock_the_user_with_a_429_and_retry_after(ada: Any, client_for: Any) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login("ada", "wrong").status_code == 401
    locked = _login("ada", "wrong")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    assert locked.json()["error"]["code"] == "throttled"
    assert "Too many failed sign-ins" in locked.json()["error"]["message"]
    # the right password does not get in while locked, from another address either (per user)
    assert _login("ada", PASSWORD, address="198.51.100.9").status_code == 429
    # a REST integration's token is not a sign-in: unaffected
    from teams.services import api_token_create

    token = api_token_create(user=ada, name="ci").raw
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/api/v1/me/").status_code == 200


def test_one_address_guessing_many_users_is_locked(db: Any) -> None:
    UserFactory(username="bob", password=PASSWORD)
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(f"nobody{i}", "guess", address="192.0.2.50")
    assert _login("bob", PASSWORD, address="192.0.2.50").status_code == 429  # per address
    assert _login("bob", PASSWORD, address="192.0.2.51").status_code == 200  # another address: fine


def test_a_success_resets_the_count(ada: Any) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login("ada", "wrong")
    assert _login("ada", PASSWORD).status_code == 200
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login("ada", "wrong").status_code == 401
