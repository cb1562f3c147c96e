"""Finding (issue 28, low): `/healthz` named the workers' hosts (and the broker transport) to anyone. Anonymous
callers, bad tokens and members of any role get the status only; a platform admin (token or session) gets the
checks."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from jobs.models import WorkerHeartbeat
from teams.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker_host(db: Any) -> str:
    """A live worker heartbeat naming a host, as a running worker writes it."""
    from django.utils import timezone

    host = "worker-7@prod-db-host.internal.example"
    WorkerHeartbeat.objects.create(hostname=host, pid=4242, started_at=timezone.now(), last_seen=timezone.now())
    return host


def test_anonymous_and_members_get_the_status_only(worker_host: str, client_for: Any, redis_url: str) -> None:
    callers: dict[str, Any] = {"anonymous": Client(), "bad token": Client(HTTP_AUTHORIZATION="Bearer not-a-token"),
                               "malformed header": Client(HTTP_AUTHORIZATION="Bearer a b")}
    for role in (Role.VIEWER, Role.DEVELOPER, Role.ADMIN):
        callers[role] = client_for(role)
    for who, client in callers.items():
        resp = client.get("/healthz")
        assert resp.status_code in (200, 503), (who, resp.status_code)
        assert resp.json() == {"status": "ok" if resp.status_code == 200 else "unavailable"}, who
        assert worker_host.encode() not in resp.content and b"redis" not in resp.content, who


def test_a_platform_admin_gets_the_checks(worker_host: str, platform_admin_client: APIClient, redis_url: str) -> None:
    body = platform_admin_client.get("/healthz").json()
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert [w["hostname"] for w in body["checks"]["worker"]["workers"]] == [worker_host]
    session = Client()
    session.force_login(UserFactory(is_superuser=True))
    assert session.get("/healthz").json()["checks"]["worker"]["workers"][0]["hostname"] == worker_host
