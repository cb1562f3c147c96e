"""Connection-test and metadata-browsing bodies are what the OpenAPI schema says, key for key, on a real Delta
warehouse: they are written by the serializers the schema is generated from, so a view going back to a hand-built
dict that adds, drops or renames a key fails here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalogs.models import Catalog
from teams.models import Role
from tests.support.schema import conforms, response_schema

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"


def _body(schema: dict[str, Any], response: Any, url: str, method: str) -> dict[str, Any]:
    """The 200 body, checked against the schema of the operation at `url`."""
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    spec = response_schema(schema, url, method)
    assert conforms(body, spec, schema) == [], (url, body)
    return body


def test_connection_and_browsing_bodies_follow_the_schema(
    schema: dict[str, Any], make_catalog: Callable[..., Catalog], client_for: Callable[..., APIClient],
    delta_warehouse: Path,
) -> None:
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    admin = client_for(Role.ADMIN)

    saved = _body(schema, admin.post(f"{BASE}/lake/test-connection/"), f"{BASE}/lake/test-connection/", "post")
    unsaved = _body(schema, admin.post(f"{BASE}/test-connection/", {
        "catalog_type": "delta", "configuration": {"warehouse": str(delta_warehouse / "missing")},
    }, format="json"), f"{BASE}/test-connection/", "post")
    assert saved["ok"] is True and unsaved["ok"] is False and isinstance(unsaved["elapsed_ms"], int)

    url = f"{BASE}/lake/databases/"
    assert _body(schema, admin.get(url), url, "get") == {"catalog": "lake", "databases": ["sales", "staging"]}

    url = f"{BASE}/lake/databases/sales/tables/"
    assert _body(schema, admin.get(url), url, "get") == {
        "catalog": "lake", "database": "sales",
        "tables": [{"name": "customers", "kind": "delta"}, {"name": "orders", "kind": "delta"}],
    }

    url = f"{BASE}/lake/databases/sales/tables/orders/"
    detail = _body(schema, admin.get(url), url, "get")
    assert (detail["catalog"], detail["database"], detail["name"], detail["kind"]) == ("lake", "sales", "orders",
                                                                                       "delta")
    assert detail["partition_columns"] == ["day"] and detail["version"] == 1 and detail["row_count"] == 5
    assert detail["columns"][0] == {"name": "id", "type": "long", "nullable": True, "comment": None}
