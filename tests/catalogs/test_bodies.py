"""The catalog-type list and a paged catalog list are what the OpenAPI schema says, key for key: the types are
written by CatalogTypeOutputSerializer and both envelopes by StandardPagination, as every other list's, so a view
going back to a hand-built dict that adds, drops or renames a key fails here (and the type list pages by the
parameters its schema lists)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalogs.types import CATALOG_TYPES
from tests.catalogs.conftest import API, delta_body
from tests.support.schema import conforms, response_schema

pytestmark = pytest.mark.django_db


def _body(schema: dict[str, Any], response: Any, url: str) -> dict[str, Any]:
    """The 200 body, checked against the schema of the GET operation at `url`."""
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    assert conforms(body, response_schema(schema, url), schema) == [], (url, body)
    return body


def test_catalog_types_body_follows_the_schema(schema: dict[str, Any], client_for: Any) -> None:
    url = f"{API}/catalog-types/"
    body = _body(schema, client_for("viewer").get(url), url)
    assert list(body) == ["count", "next", "previous", "results"]
    assert (body["count"], body["next"], body["previous"]) == (len(CATALOG_TYPES), None, None)
    assert [t["key"] for t in body["results"]] == list(CATALOG_TYPES)
    assert all(list(t) == ["key", "display_name", "schema"] and t["schema"]["type"] == "object"
               for t in body["results"])
    paged = _body(schema, client_for("viewer").get(f"{url}?page_size=2&page=2"), url)  # the documented parameters
    assert [t["key"] for t in paged["results"]] == list(CATALOG_TYPES)[2:4] and paged["count"] == len(CATALOG_TYPES)
    assert paged["previous"] == f"http://testserver{url}?page_size=2" and paged["next"]
    assert client_for("viewer").get(f"{url}?page=99").status_code == 404


def test_catalog_pages_follow_the_schema(schema: dict[str, Any], admin: APIClient, warehouse: Path) -> None:
    for name in ("lake_a", "lake_b", "lake_c"):
        assert admin.post(f"{API}/catalogs/", delta_body(warehouse, name=name), format="json").status_code == 201
    url = f"{API}/catalogs/"

    first = _body(schema, admin.get(f"{url}?page_size=1"), url)
    assert list(first) == ["count", "next", "previous", "results"]
    assert (first["count"], first["previous"]) == (3, None)
    assert first["next"] == f"http://testserver{url}?page=2&page_size=1"
    middle = _body(schema, admin.get(first["next"]), url)
    assert [c["catalog_name"] for c in middle["results"]] == ["lake_b"]
    assert middle["previous"] == f"http://testserver{url}?page_size=1"  # page 1 drops the parameter, as in DRF
    assert middle["next"] == f"http://testserver{url}?page=3&page_size=1"
    last = _body(schema, admin.get(middle["next"]), url)
    assert last["next"] is None and last["previous"] == f"http://testserver{url}?page=2&page_size=1"
    assert admin.get(f"{url}?page=4&page_size=1").status_code == 404
    empty_team_page = _body(schema, admin.get(f"{url}?search=nothing"), url)
    assert empty_team_page == {"count": 0, "next": None, "previous": None, "results": []}
