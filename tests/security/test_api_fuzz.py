"""Schemathesis against the platform's own OpenAPI schema (/api/schema/), through the WSGI app, as each role:
no request may produce a 5xx, every status must be one the schema documents for the operation, and every
response (errors too: the ApiError envelope) must match what the schema documents for it.

Every operation is fuzzed except the two that run Spark inside the web process (`sql/preview`, `sql/validate`:
a warm SparkContext per fuzz example is out of budget; tests/jobs covers them). Run submission is included: in
a test transaction nothing is enqueued. The team in the path is acme (the member's team) so requests get past
the team check; in half the examples the object in the path is one that exists, so deep code paths run too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.security.conftest import ROLES, World
from tests.support.leakscan import SCAN

MAX_EXAMPLES = 12
SPARK_IN_PROCESS = r"/sql/(preview|validate)/$"
NETWORK_CALLS = ("/test-connection/",)


# Loaded when the module is collected, from the live endpoint of the WSGI app (the schema view needs no database).
schema = schemathesis.openapi.from_wsgi("/api/schema/", WSGIHandler()).exclude(path_regex=SPARK_IN_PROCESS)


@pytest.fixture(autouse=True)
def wsgi_in_test_transaction(settings: Any) -> Iterator[None]:
    """Serve requests inside the test's transaction, as Django's test client does: a request must not close the
    test's database connection (Django closes it at request start/end outside tests)."""
    settings.LAKEPORT_CONNECT_TIMEOUT = 1.0  # fuzzed configurations may name unreachable hosts
    settings.LAKEPORT_ALERT_SEND_TIMEOUT = 1.0  # …and fuzzed alert channels unreachable receivers
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@schemathesis.check
def error_body_shape(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every error the API answers carries the standard body: {"error": {"code", "message", "details"}}."""
    if response.status_code < 400:
        return None
    body = json.loads(response.content or b"null")
    assert isinstance(body, dict) and set(body) == {"error"}, f"not the standard error body: {body!r}"
    error = body["error"]
    assert set(error) == {"code", "message", "details"}, f"error keys: {sorted(error)}"
    assert isinstance(error["code"], str) and error["code"] and isinstance(error["message"], str) and error["message"]
    return None


# status_code_conformance: every status the API answers is documented for that operation (errors included).
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance,
          error_body_shape]


def aim(case: Any, world: World, caller: Any) -> None:
    """Point the generated path at acme, and at existing objects in half the examples."""
    params = case.path_parameters or {}
    if "team" in params:
        params["team"] = "acme"
    existing = {"name": world.own.catalog, "database": world.own.database, "table": world.own.table,
                "job_id": world.own.job_id, "run_id": world.own.run_id, "username": world.own.member,
                "channel_id": world.own.channel_id, "rule_id": world.own.rule_id}
    # A stable coin per example: the generated values decide, so a failing example replays the same way.
    if len(repr(sorted(params.items()))) % 2 == 0:
        for key, value in existing.items():
            if key in params:
                params[key] = value
    if params.get("token_id") == caller.token_id:
        params["token_id"] = caller.token_id + 10_000  # revoking the caller's own token would end the fuzz early
    if any(marker in case.path for marker in NETWORK_CALLS) and case.query:
        case.query.pop("timeout", None)


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_no_5xx_and_every_response_matches_the_schema(case: Any, world: World) -> None:
    """Each generated request is sent as a viewer, a developer, an admin and a platform admin."""
    for role in ROLES:
        caller = world.members[role]
        aim(case, world, caller)
        response = case.call(headers=caller.headers)
        SCAN.record_response(f"{response.status_code} {case.method} {case.formatted_path} (fuzz, {role})",
                             response.text + "\n" + repr(dict(response.headers)))
        try:
            case.validate_response(response, checks=CHECKS)
        except Exception as exc:
            exc.add_note(f"as {role}: {case.method} {case.formatted_path} -> {response.status_code}")
            raise
