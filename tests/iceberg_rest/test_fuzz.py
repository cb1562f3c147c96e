"""Schemathesis fuzzes the Iceberg REST endpoint from the vendored spec itself (docs/iceberg-rest/), through the WSGI
app, as a developer and an admin of the catalog's team: no request may produce a 5xx, and every response must
match the schema the spec documents for it. Only the operations the endpoint serves (its `/v1/config`
`endpoints`) are generated; the spec's `{prefix}` is dropped (the catalog is named by the base path)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from pyiceberg import types as it
from pyiceberg.schema import Schema
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import response_schema_conformance

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from iceberg_rest.services import SERVED_ENDPOINTS
from lakeport_engine.catalog_types.iceberg import IcebergConfig
from lakeport_engine.iceberg.catalog import open_catalog
from teams.models import Role
from teams.services import api_token_create
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.iceberg_rest.spec import document

pytestmark = pytest.mark.django_db
BASE = "/api/iceberg/acme/ice"
MAX_EXAMPLES = 10


@lru_cache(maxsize=1)
def served_spec() -> dict[str, Any]:
    """The spec with only the served operations, their paths under the catalog's base, no `prefix` parameter."""
    doc = dict(document())
    served = {tuple(e.split(" ", 1)) for e in SERVED_ENDPOINTS}
    paths: dict[str, Any] = {}
    for template, item in doc["paths"].items():
        operations = {m: op for m, op in item.items() if (m.upper(), template) in served}
        if not operations:
            continue
        shared = [p for p in item.get("parameters", []) if p.get("$ref") != "#/components/parameters/prefix"]
        paths[BASE + template.replace("/{prefix}", "")] = {**operations, "parameters": shared}
    doc["paths"] = paths
    doc["servers"] = [{"url": "/"}]
    return doc


# The metrics report's body is a recursive union (Iceberg's `Expression`): the coverage phase, which enumerates every
# case a schema defines whatever `max_examples` says, sent tens of thousands of them (past 20 minutes in CI). Its
# generated examples (the fuzzing phase) and every other operation's coverage cases still run.
METRICS_WITHOUT_COVERAGE = {"include-path-regex": "/metrics$", "phases": {"coverage": {"enabled": False}}}
schema = schemathesis.openapi.from_dict(
    served_spec(), config=SchemathesisConfig.from_dict({"operations": [METRICS_WITHOUT_COVERAGE]}))
schema.app = WSGIHandler()


@pytest.fixture(autouse=True)
def wsgi_in_test_transaction() -> Iterator[None]:
    """Serve requests inside the test's transaction (Django closes connections at request start/end otherwise)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def callers(tmp_path: Path) -> dict[str, str]:
    """acme's iceberg catalog `ice` with namespace `ns` and table `ns.t`; tokens of a developer and an admin."""
    team = TeamFactory(name="acme")
    tokens = {}
    for role in (Role.DEVELOPER, Role.ADMIN):
        user = UserFactory()
        MembershipFactory(team=team, user=user, role=role)
        tokens[str(role)] = api_token_create(user=user, name="fuzz").raw
    catalog = open_catalog(str(tmp_path))
    catalog.create_namespace("ns")
    catalog.create_table("ns.t", schema=Schema(it.NestedField(1, "id", it.LongType())),
                         location=(tmp_path / "ns" / "t").as_uri())
    Catalog.objects.create(team=team, catalog_type="iceberg", catalog_name="ice", configuration=seal_configuration(
        IcebergConfig.model_validate({"warehouse": str(tmp_path)})))
    return tokens


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_no_5xx_and_every_response_matches_the_spec(case: Any, callers: dict[str, str]) -> None:
    params = case.path_parameters or {}
    # in half the examples aim at the namespace and table that exist, so the deep paths run too
    if len(repr(sorted(params.items()))) % 2 == 0:
        params.update({k: v for k, v in {"namespace": "ns", "table": "t"}.items() if k in params})
    for role, token in callers.items():
        response = case.call(headers={"Authorization": f"Bearer {token}"})
        try:
            case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])
        except Exception as exc:
            exc.add_note(f"as {role}: {case.method} {case.formatted_path} -> {response.status_code}")
            raise
