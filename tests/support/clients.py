"""API clients that authenticate like a REST integration: a real bearer token issued for the user."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from teams.services import api_token_create


def token_client(user: Any, client_class: type[APIClient] = APIClient) -> APIClient:
    """A `client_class` client sending a freshly issued bearer token of `user`."""
    client = client_class()
    issued = api_token_create(user=user, name="test")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.raw}")
    return client
