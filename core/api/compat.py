"""Breaking changes between two OpenAPI documents of this API, and the release rule that gates them.

A focused diff (oasdiff is a Go binary; no maintained Python equivalent): what breaks an integrator's code or a
generated client is reported — a removed path or operation, a renamed operation id, a removed success status,
a removed or retyped response field, a new required request field or parameter, a retyped request field, a
narrowed enum, a dropped request content type. Adding endpoints, optional fields or error responses is not.
A breaking change is allowed only with a new major `info.version` that docs/api/CHANGELOG.md announces.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

JsonObject = dict[str, Any]

REPO = Path(__file__).resolve().parents[2]
API_DOCS = REPO / "docs" / "api"
METHODS = ("get", "put", "post", "patch", "delete")
_MAX_DEPTH = 8


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def released_schemas() -> dict[str, Path]:
    """Committed snapshots `docs/api/openapi-<version>.json`, by version."""
    return {p.stem.removeprefix("openapi-"): p for p in API_DOCS.glob("openapi-*.json")}


def latest_release() -> tuple[str, JsonObject]:
    """The newest released schema and its version."""
    releases = released_schemas()
    version = max(releases, key=_version_key)
    return version, json.loads(releases[version].read_text())


class _Resolver:
    def __init__(self, document: JsonObject) -> None:
        self.schemas = document.get("components", {}).get("schemas", {})

    def __call__(self, schema: Any) -> JsonObject:
        """The schema with `$ref`s and single-item `allOf` wrappers followed."""
        seen = 0
        while isinstance(schema, dict) and seen < 20:
            if "$ref" in schema:
                schema = self.schemas.get(schema["$ref"].rsplit("/", 1)[-1], {})
            elif len(schema.get("allOf", [])) == 1 and "properties" not in schema:
                schema = {**{k: v for k, v in schema.items() if k != "allOf"}, **schema["allOf"][0]}
            else:
                break
            seen += 1
        return schema if isinstance(schema, dict) else {}


def _type(schema: JsonObject) -> str:
    kind = schema.get("type", "any")
    if "oneOf" in schema or "anyOf" in schema:
        kind = "union"
    return f"{kind}/{schema['format']}" if "format" in schema else str(kind)


def _json_schema(body: JsonObject | None) -> Any:
    content = (body or {}).get("content", {})
    return content.get("application/json", {}).get("schema")


class _Diff:
    def __init__(self, old: JsonObject, new: JsonObject) -> None:
        self.old, self.new = _Resolver(old), _Resolver(new)
        self.found: list[str] = []

    def response(self, where: str, old: Any, new: Any, depth: int = 0) -> None:
        """What a client reads: every field it could rely on must still be there, with its type."""
        a, b = self.old(old), self.new(new)
        if not a or depth > _MAX_DEPTH:
            return
        if _type(a) != _type(b) and "any" not in (_type(a), _type(b)):
            self.found.append(f"{where}: response type changed {_type(a)} → {_type(b)}")
            return
        if b.get("nullable") and not a.get("nullable"):
            self.found.append(f"{where}: response field may now be null")
        for name, schema in a.get("properties", {}).items():
            if name not in b.get("properties", {}):
                self.found.append(f"{where}.{name}: response field removed")
            else:
                self.response(f"{where}.{name}", schema, b["properties"][name], depth + 1)
        if "items" in a:
            self.response(f"{where}[]", a["items"], b.get("items", {}), depth + 1)

    def request(self, where: str, old: Any, new: Any, depth: int = 0) -> None:
        """What a client sends: it must stay acceptable (no new required field, no retyped or narrowed one)."""
        a, b = self.old(old), self.new(new)
        if not b or depth > _MAX_DEPTH:
            return
        if a and _type(a) != _type(b) and "any" not in (_type(a), _type(b)):
            self.found.append(f"{where}: request type changed {_type(a)} → {_type(b)}")
            return
        if "enum" in a and "enum" in b and set(a["enum"]) - set(b["enum"]):
            self.found.append(f"{where}: request values no longer accepted: {sorted(set(a['enum']) - set(b['enum']))}")
        for name in set(b.get("required", [])) - set(a.get("required", [])):
            self.found.append(f"{where}.{name}: new required request field")
        for name, schema in b.get("properties", {}).items():
            if name in a.get("properties", {}):
                self.request(f"{where}.{name}", a["properties"][name], schema, depth + 1)
        if "items" in a and "items" in b:
            self.request(f"{where}[]", a["items"], b["items"], depth + 1)

    def operation(self, where: str, a: JsonObject, b: JsonObject) -> None:
        if a.get("operationId") != b.get("operationId"):
            self.found.append(f"{where}: operation id {a.get('operationId')} → {b.get('operationId')} "
                              "(generated clients call it by name)")
        old_params = {(p["in"], p["name"]): p for p in a.get("parameters", [])}
        for key, param in {(p["in"], p["name"]): p for p in b.get("parameters", [])}.items():
            label = f"{where} {key[0]} parameter {key[1]}"
            if param.get("required") and not old_params.get(key, {}).get("required"):
                self.found.append(f"{label}: new required parameter")
            if key in old_params:
                self.request(label, old_params[key].get("schema", {}), param.get("schema", {}))
        old_types = set(a.get("requestBody", {}).get("content", {}))
        new_types = set(b.get("requestBody", {}).get("content", {}))
        if old_types - new_types:
            self.found.append(f"{where}: request content types removed: {sorted(old_types - new_types)}")
        if b.get("requestBody", {}).get("required") and not a.get("requestBody", {}).get("required"):
            self.found.append(f"{where}: request body now required")
        self.request(f"{where} body", _json_schema(a.get("requestBody")), _json_schema(b.get("requestBody")))
        for status, response in a.get("responses", {}).items():
            if not status.startswith("2"):
                continue
            if status not in b.get("responses", {}):
                self.found.append(f"{where}: success status {status} removed")
                continue
            self.response(f"{where} {status}", _json_schema(response), _json_schema(b["responses"][status]))


def breaking_changes(old: JsonObject, new: JsonObject) -> list[str]:
    """Every change from `old` to `new` that can break a client written against `old`."""
    diff = _Diff(old, new)
    for path, old_item in old.get("paths", {}).items():
        new_item = new.get("paths", {}).get(path)
        if new_item is None:
            diff.found.append(f"{path}: path removed")
            continue
        for method in METHODS:
            if method not in old_item:
                continue
            where = f"{method.upper()} {path}"
            if method not in new_item:
                diff.found.append(f"{where}: operation removed")
            else:
                diff.operation(where, old_item[method], new_item[method])
    return diff.found


def unannounced_breaking_changes(released: JsonObject, current: JsonObject, changelog: str) -> list[str]:
    """Breaking changes that the release rule does not allow: any, unless the current `info.version` has a new
    major number and a `## <version>` section in the changelog; also a version bump the changelog lacks."""
    old_version, new_version = released["info"]["version"], current["info"]["version"]
    announced = re.search(rf"^## {re.escape(new_version)}\b", changelog, re.MULTILINE) is not None
    problems: list[str] = []
    if _version_key(new_version) < _version_key(old_version):
        problems.append(f"info.version {new_version} is older than the released {old_version}")
    if new_version != old_version and not announced:
        problems.append(f"info.version {new_version} has no `## {new_version}` section in docs/api/CHANGELOG.md")
    changes = breaking_changes(released, current)
    if changes and not (announced and _version_key(new_version)[0] > _version_key(old_version)[0]):
        problems.extend(f"breaking: {change}" for change in changes)
    return problems
