"""Finding (issue 28, low; issue 31): `make run` served Django's debug 404 page, listing every URL pattern, for an
unknown `/api/` path. Every unknown `/api/` path now answers the JSON envelope (404 `not_found`) in every settings
module — test, local (`make run`, DEBUG on) and production — for every method, signed in or not, with no debug
page, no URL pattern list and no CSRF failure page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.support.worker import REPO

UNKNOWN = ["/api/", "/api", "/api/v2/teams/", "/api/v1/nothing-here/", "/api/v1/teams/acme/no-such-thing/",
           "/api/v1/teams/acme/runs/abc/", "/api/v1/teams/acme/catalogs/x/y/z/w/v/", "/api/docs/extra/"]
METHODS = ("get", "post", "put", "patch", "delete")
DEBUG_PAGE_MARKERS = (b"URLconf", b"Using the URLconf", b"DEBUG = True", b"<html", b"Page not found")


def assert_envelope(status: int, content_type: str, body: bytes, where: str) -> None:
    assert status == 404, (where, status, body[:300])
    assert content_type.startswith("application/json"), (where, content_type)
    assert not any(marker in body for marker in DEBUG_PAGE_MARKERS), (where, body[:300])
    data = json.loads(body)
    assert data["error"]["code"] == "not_found", (where, data)
    assert set(data["error"]) == {"code", "message", "details"}, (where, data)


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True], ids=["test-settings", "debug-on"])
def test_unknown_api_paths_answer_the_json_envelope(debug: bool, developer_client: APIClient) -> None:
    with override_settings(DEBUG=debug):
        for client, who in ((Client(enforce_csrf_checks=True), "anonymous"), (developer_client, "developer")):
            for path in UNKNOWN:
                for method in METHODS:
                    resp = getattr(client, method)(path)
                    assert_envelope(resp.status_code, resp["Content-Type"], resp.content, f"{who} {method} {path}")


@pytest.mark.django_db
def test_a_missing_trailing_slash_is_named_not_redirected(developer_client: APIClient) -> None:
    resp = developer_client.get("/api/v1/teams")
    assert_envelope(resp.status_code, resp["Content-Type"], resp.content, "no slash")
    assert "/api/v1/teams/" in resp.json()["error"]["message"]


PROBE = """
import json, django
django.setup()
from django.test import Client
out = []
for path in %r:
    for method in ("get", "post", "delete"):
        r = getattr(Client(enforce_csrf_checks=True), method)(path, secure=True)
        out.append([method + " " + path, r.status_code, r["Content-Type"], r.content.decode("utf-8", "replace")])
print("PROBE" + json.dumps(out))
"""


@pytest.mark.parametrize("module", ["config.settings.local", "config.settings.production"])
def test_every_settings_module_answers_the_envelope(module: str, tmp_path: Any) -> None:
    """Each settings module as its own process (DEBUG as that module sets it: on for `make run`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))}
    env.update({"DJANGO_SETTINGS_MODULE": module, "LAKEPORT_DATA_DIR": str(tmp_path),
                "DJANGO_SECRET_KEY": "probe-only-signing-key-for-the-not-found-test",
                "DJANGO_ALLOWED_HOSTS": "testserver", "LAKEPORT_SECRET_KEYS": "o1cQ3W2-OM0oTzqY1xs8nLzZ3a1ayTz0H5m2G0cOqdk="})
    if module.endswith("local"):
        env.pop("DJANGO_SECRET_KEY")
    done = subprocess.run([sys.executable, "-c", PROBE % (UNKNOWN,)], cwd=REPO, env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("PROBE"))
    if module.endswith("local"):
        debug = subprocess.run([sys.executable, "-c", "import django; django.setup(); from django.conf import "
                                "settings; print(settings.DEBUG)"], cwd=REPO, env=env, capture_output=True, text=True)
        assert debug.stdout.strip().endswith("True")  # the case of the finding: `make run` has DEBUG on
    for where, status, content_type, body in json.loads(line[len("PROBE"):]):
        assert_envelope(status, content_type, body.encode(), f"{module}: {where}")
