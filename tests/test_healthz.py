"""/healthz reports database, broker and worker; 200 only when all are up."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.test import Client

from tests.support.worker import start_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_is_503_without_a_worker_and_200_with_one(tmp_path: Path, redis_url: str,
                                                          platform_admin_client: Client) -> None:
    client = platform_admin_client  # the checks' detail is for platform admins (tests/security/test_healthz_detail.py)
    body = client.get("/healthz").json()
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert client.get("/healthz").status_code == 503
    assert body["checks"]["worker"]["ok"] is False

    worker = start_worker(tmp_path / "worker.log")
    try:
        deadline = time.monotonic() + 90
        status = 503
        while time.monotonic() < deadline and status != 200:
            time.sleep(0.5)
            resp = client.get("/healthz")
            status = resp.status_code
        assert status == 200, (tmp_path / "worker.log").read_text()[-3000:]
        assert resp.json()["status"] == "ok"
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def test_healthz_is_503_when_broker_is_down(settings, redis_url: str,  # type: ignore[no-untyped-def]
                                            platform_admin_client) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    resp = platform_admin_client.get("/healthz")
    assert resp.status_code == 503
    assert resp.json()["checks"]["broker"]["ok"] is False
