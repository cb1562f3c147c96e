"""Validation of the endpoint's answers against the vendored Iceberg REST OpenAPI document (docs/iceberg-rest/).

Each recorded response is matched to the spec's operation (the catalog's base path stands for the spec's server
base path, the prefix is empty), its status must be one the operation declares (or its `default`), and its JSON
body must validate against the declared schema (JSON Schema 2020-12, as OpenAPI 3.1 defines it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

SPEC = Path(__file__).resolve().parents[2] / "docs" / "iceberg-rest" / "rest-catalog-open-api.yaml"
BASE = re.compile(r"^/api/iceberg/[^/]+/[^/]+(?P<rest>/.*)$")


@dataclass(frozen=True)
class Served:
    """One response the endpoint served."""

    method: str
    path: str
    status: int
    body: bytes


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    return yaml.safe_load(SPEC.read_text())


@lru_cache(maxsize=1)
def operations() -> list[tuple[re.Pattern[str], str, dict[str, Any]]]:
    found = []
    for template, item in document()["paths"].items():
        path = template.replace("/{prefix}", "")
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
        for method, operation in item.items():
            if method in ("get", "post", "put", "delete", "head"):
                found.append((pattern, method, operation))
    return found


def _deref(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        pointer = node["$ref"].removeprefix("#/").split("/")
        target: Any = document()
        for part in pointer:
            target = target[part]
        node = target
    return node


def problems(served: Served) -> list[str]:
    """What is wrong with one response, per the spec ([] when it conforms)."""
    match = BASE.match(served.path.split("?")[0])
    if match is None:
        return [f"{served.path}: not under a catalog's base path"]
    rest = match.group("rest")
    operation = next((op for pattern, method, op in operations()
                      if method == served.method.lower() and pattern.match(rest)), None)
    if operation is None:
        return [f"{served.method} {rest}: no such operation in the spec"]
    responses = {str(k): v for k, v in operation["responses"].items()}  # YAML reads `200:` as an int
    declared = responses.get(str(served.status)) or responses.get("default")
    if declared is None and served.status == 404 and b'"NotFoundException"' in served.body:
        # the one deliberate deviation: createNamespace declares no 404, but a catalog base the caller cannot see
        # (another team's, a missing or non-iceberg catalog) answers 404 on every route, like the rest of the API
        declared = {"$ref": "#/components/responses/IcebergErrorResponse"}
    if declared is None:
        return [f"{served.method} {rest}: status {served.status} is not declared ({sorted(responses)})"]
    declared = _deref(declared)
    content = declared.get("content")
    if served.method == "HEAD":  # the server drops a HEAD answer's body (HTTP), whatever the spec's schema
        return []
    if not content:
        return [] if not served.body.strip() else [f"{served.method} {rest} {served.status}: body where none is declared"]
    schema = next(iter(content.values()))["schema"]
    try:
        body = json.loads(served.body)
    except ValueError:
        return [f"{served.method} {rest} {served.status}: body is not JSON"]
    validator = Draft202012Validator({"components": document()["components"], **schema})
    return [f"{served.method} {rest} {served.status}: {e.json_path}: {e.message[:300]}"
            for e in validator.iter_errors(body)]
