"""Leak scan: drive every catalog endpoint (success and error paths) with known secret values, capture every
log record at DEBUG and every response, and assert no secret value appears anywhere — nor in the audit trail
or the CLI's output. (The autouse guard in conftest.py applies the same scan to every test in this folder.)"""

from __future__ import annotations

import json
import logging
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.db import connections
from rest_framework.test import APIClient

from catalogs.models import CatalogChange
from tests.catalogs.conftest import (
    API,
    DELTA_SECRET_KEY,
    ENV_PASSWORD,
    MYSQL_PASSWORD,
    NEW_PASSWORD,
    PG_PASSWORD,
    SECRET_VALUES,
    delta_body,
    hive_body,
    leaked,
    mysql_body,
    pg_body,
)
from tests.conftest import MariaDatabase, PgDatabase
from tests.support.net import free_port

pytestmark = pytest.mark.django_db


def test_no_secret_in_any_response_log_record_audit_entry_or_cli_output(
    admin: APIClient, client_for: Any, pg_source: PgDatabase, mariadb_user: MariaDatabase, warehouse: Path,
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    viewer = client_for("viewer")
    responses: list[Any] = []

    def call(client: APIClient, method: str, url: str, body: Any = None, **extra: Any) -> Any:
        resp = getattr(client, method)(url, body, format="json", **extra)
        responses.append(resp)
        return resp

    # Happy paths for every type and endpoint.
    call(admin, "post", f"{API}/catalogs/", pg_body(pg_source))
    call(admin, "post", f"{API}/catalogs/", mysql_body(mariadb_user))
    call(admin, "post", f"{API}/catalogs/", delta_body(warehouse))
    call(admin, "put", f"{API}/catalogs/pg_main/", pg_body(pg_source, password=NEW_PASSWORD))
    call(admin, "patch", f"{API}/catalogs/lake/", {"configuration": {"storage-options": {"AWS_SESSION_TOKEN": ENV_PASSWORD}}})
    for client in (admin, viewer):
        call(client, "get", f"{API}/catalogs/")
        call(client, "get", f"{API}/catalogs/?page_size=1000&search=o")
        for name in ("pg_main", "my_shop", "lake"):
            call(client, "get", f"{API}/catalogs/{name}/")
            call(client, "get", f"{API}/catalogs/{name}/history/")
    call(admin, "post", f"{API}/apply/", {"catalogs": [pg_body(pg_source, password=PG_PASSWORD), hive_body()],
                                          "dry_run": True})
    call(admin, "post", f"{API}/apply/", [pg_body(pg_source, password=PG_PASSWORD), hive_body()])

    # Error paths whose bodies carry secrets: nothing may be echoed back.
    bad = pg_body(pg_source, name="pg_bad", password=PG_PASSWORD)
    bad["configuration"]["base-url"] = "jdbc:postgresql://db/?socketFactory=x"
    call(admin, "post", f"{API}/catalogs/", bad)
    call(admin, "post", f"{API}/catalogs/", pg_body(pg_source, name="pg_long", password=PG_PASSWORD * 100))
    call(admin, "post", f"{API}/catalogs/", delta_body(warehouse, name="lake2",
                                                         options={"AWS_SECRET_ACCESS_KEY": [DELTA_SECRET_KEY]}))
    call(admin, "post", f"{API}/catalogs/", {**pg_body(pg_source), "catalog_name": "Bad Name"})
    call(admin, "post", f"{API}/catalogs/", pg_body(pg_source))  # 409 duplicate
    call(viewer, "put", f"{API}/catalogs/pg_main/", pg_body(pg_source, password=MYSQL_PASSWORD))  # 403
    call(admin, "put", f"{API}/catalogs/pg_main/", pg_body(pg_source, password=MYSQL_PASSWORD), HTTP_IF_MATCH='"99"')
    call(admin, "post", f"{API}/apply/", [bad, delta_body(warehouse)])
    call(admin, "post", f"{API}/apply/", [pg_body(pg_source, password="${LP_LEAK_SCAN}")])
    truncated = json.dumps(pg_body(pg_source, password=PG_PASSWORD))[:-20]
    responses.append(admin.generic("POST", f"{API}/catalogs/", truncated, content_type="application/json"))
    responses.append(admin.generic("POST", f"{API}/apply/", f"- catalog_name: x\n  password: [{PG_PASSWORD}",
                                   content_type="application/yaml"))

    statuses = sorted({r.status_code for r in responses})
    assert statuses == [200, 201, 400, 403, 409, 412], statuses  # every path above was really taken
    for resp in responses:
        text = resp.content.decode() + " ".join(f"{k}: {v}" for k, v in resp.items())
        assert not leaked(text), (resp.status_code, resp.wsgi_request.path)

    # The CLI: success and failure output.
    monkeypatch.setenv("LP_LEAK_SCAN", ENV_PASSWORD)
    path = tmp_path / "catalogs.yaml"
    path.write_text(yaml.safe_dump([pg_body(pg_source, password="${LP_LEAK_SCAN}")]))
    out = StringIO()
    call_command("apply", "-f", str(path), "--team", "acme", stdout=out, stderr=out)
    path.write_text(yaml.safe_dump([{**pg_body(pg_source, password="${LP_LEAK_SCAN}"), "description": 5}]))
    with pytest.raises(CommandError) as excinfo:
        call_command("apply", "-f", str(path), "--team", "acme", stdout=out, stderr=out)
    call_command("rotate_catalog_secrets", stdout=out)
    assert not leaked(out.getvalue() + str(excinfo.value))

    # The audit trail and every log record.
    trail = json.dumps(list(CatalogChange.objects.values("catalog_name", "action", "changes", "actor_name")))
    assert '"configuration.password": "changed"' in trail and not leaked(trail)
    assert caplog.records, "nothing was logged: the scan would prove nothing"
    for record in caplog.records:
        text = " ".join([record.getMessage(), str(record.exc_text or ""), repr(record.__dict__)])
        assert not leaked(text), record.name
    assert len(SECRET_VALUES) == 6


@pytest.mark.django_db(transaction=True)
def test_database_down_is_503_with_the_error_body(admin: APIClient, team: Any) -> None:
    forced = APIClient()
    forced.force_authenticate(user=team.memberships.get().user)  # skip the token lookup: fail deeper in
    connection = connections["default"]
    original = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = free_port()  # nothing listens there: PostgreSQL is "down"
    try:
        for client in (admin, forced):
            for method, url, body in [
                ("get", f"{API}/catalogs/", None),
                ("get", f"{API}/catalogs/pg_main/", None),
                ("post", f"{API}/catalogs/", hive_body()),
                ("put", f"{API}/catalogs/hive_wh/", hive_body()),
                ("post", f"{API}/apply/", [hive_body()]),
            ]:
                resp = getattr(client, method)(url, body, format="json")
                assert resp.status_code == 503, (method, url, resp.content)
                assert resp.json()["error"]["code"] == "service_unavailable"
    finally:
        connection.close()
        connection.settings_dict["PORT"] = original
