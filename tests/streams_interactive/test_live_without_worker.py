"""A live preview that no worker picks up says so instead of "starting" forever."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

API = "/api/v1/teams/acme"


def test_a_live_preview_no_worker_starts_fails_with_a_clear_message(developer_client: APIClient,
                                                                     settings: Any) -> None:
    started = developer_client.post(f"{API}/sql/preview/live/", {"sql": "SELECT * FROM STREAM(events.default.s)"},
                                    format="json")
    assert started.status_code == 202, started.content
    assert started.json()["status"] == "STARTING"
    settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = 0  # as if the wait for a worker were over
    state = developer_client.get(f"{API}/sql/preview/live/{started.json()['id']}/").json()
    assert state["status"] == "FAILED" and "No worker" in state["error"]["message"], state
