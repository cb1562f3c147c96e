"""The OpenAPI schema the server serves, and whether a body has exactly the keys it names (tests/*/test_bodies.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client


def served_schema() -> dict[str, Any]:
    """The OpenAPI document /api/schema/ serves (database access must be allowed)."""
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def conforms(body: Any, spec: dict[str, Any], schema: dict[str, Any], where: str = "$") -> list[str]:
    """Where `body` holds a key its schema does not name, or lacks one it requires (refs and nullables followed)."""
    if "$ref" in spec:
        spec = schema["components"]["schemas"][spec["$ref"].rsplit("/", 1)[1]]
    if body is None:
        typed = "type" in spec or "oneOf" in spec or "allOf" in spec  # `{}` (any JSON value) takes null
        return [f"{where}: null"] if typed and not spec.get("nullable") else []
    for key in ("allOf", "oneOf"):
        if key in spec:
            return conforms(body, spec[key][0], schema, where)
    if spec.get("type") == "array":
        return [m for i, item in enumerate(body) for m in conforms(item, spec["items"], schema, f"{where}[{i}]")]
    if spec.get("type") == "object" and "properties" in spec:
        props = spec["properties"]
        problems = [f"{where}.{k}: not in the schema" for k in body if k not in props]
        problems += [f"{where}.{k}: missing" for k in spec.get("required", []) if k not in body]
        return problems + [m for k, v in body.items() if k in props
                           for m in conforms(v, props[k], schema, f"{where}.{k}")]
    return []


def response_schema(schema: dict[str, Any], url: str, method: str = "get", status: int = 200) -> dict[str, Any]:
    """The `status` body schema of the `method` operation whose path template matches `url`.

    Literal segments win over parameters, as the router resolves them: `/schedules/preview/` is not
    `/schedules/{schedule_id}/`, `/catalogs/test-connection/` is not `/catalogs/{name}/`.
    """
    parts = url.split("?")[0].strip("/").split("/")
    matches = []
    for path, item in schema["paths"].items():
        template = path.strip("/").split("/")
        if method in item and len(template) == len(parts) and \
                all(t.startswith("{") or t == p for t, p in zip(template, parts, strict=True)):
            matches.append((sum(not t.startswith("{") for t in template), item))
    if not matches:
        raise AssertionError(f"no {method} operation for {url}")
    item = max(matches, key=lambda match: match[0])[1]
    return item[method]["responses"][str(status)]["content"]["application/json"]["schema"]


@pytest.fixture(scope="module")
def schema(django_db_setup: Any, django_db_blocker: Any) -> dict[str, Any]:
    """The served OpenAPI document, once per test module (tests/*/test_bodies.py)."""
    with django_db_blocker.unblock():
        return served_schema()
