"""The OpenAPI contract, derived systematically for every view (including ones added later):

- operation ids `<resource>_<verb>` and one tag per resource, from the URL (`catalogs_list`, `catalogs_put`,
  `runs_cancel`); a view's own `@extend_schema(operation_id=…, tags=…)` wins, and `OPERATIONS` renames the few
  whose URL does not say what an integrator calls them (`runs_submit`);
- every error an operation can answer, with the shared envelope (core/api/errors.py) and `Retry-After` on
  429/503; `ETag` on the responses of operations that take `If-Match`;
- request bodies in JSON only, except where a view's parsers say otherwise (`apply` also takes YAML, declared
  as a binary body so client generators can send it);
- examples on the main bodies (`EXAMPLES`, by component name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework.permissions import AllowAny
from rest_framework.serializers import Serializer

from core.api.errors import ERROR_CODES, ApiErrorSerializer

JsonObject = dict[str, Any]

_API_PREFIX = re.compile(r"^/api/v\d+/")
_TEAM_PREFIX = ("teams", "{team}")
_ITEM_VERBS = {"GET": "get", "PUT": "put", "PATCH": "patch", "DELETE": "delete", "POST": "create"}
_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")
_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}

# (method, path after /api/v1/ and teams/{team}/) → (operation id, tag), where the URL alone names it badly.
OPERATIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("POST", "jobs/{job_id}/runs/"): ("runs_submit", "runs"),
    ("GET", "jobs/{job_id}/runs/"): ("jobs_runs_list", "runs"),
    ("POST", "apply/"): ("catalogs_apply", "catalogs"),
    ("POST", "catalogs/test-connection/"): ("catalogs_test_config", "catalogs"),
    ("GET", "catalogs/{name}/databases/{database}/tables/"): ("tables_list", "catalogs"),
    ("GET", "catalogs/{name}/databases/{database}/tables/{table}/"): ("tables_get", "catalogs"),
    ("GET", "catalogs/{name}/databases/"): ("databases_list", "catalogs"),
    ("GET", "catalog-types/"): ("catalog_types_list", "catalogs"),
    ("DELETE", "tokens/{token_id}/"): ("tokens_revoke", "tokens"),
    ("GET", "me/"): ("me_get", "auth"),
}

# Errors that rules on method, parameters and permissions cannot see, by operation id.
EXTRA_ERRORS: dict[str, set[int]] = {
    "runs_result_get": {409},  # the run has not finished
    "databases_list": {502, 504},  # the catalog's system failed or timed out
    "tables_list": {502, 504},
    "tables_get": {502, 504},
    "sql_validate": {504},
    "sql_preview": {504},
    "auth_login": {429},  # repeated wrong passwords lock the sign-in for a while
    "tables_sample": {502, 504},  # the stream's broker failed or timed out
    "streams_get": {409},  # the job is a batch job
    "streams_start": {400},  # a statement that cannot start (streams/services/statement.py)
    "streams_restart": {400},
    "streams_metrics": {409},
    "streams_audit": {409},
}

_REASONS = {
    304: "Not modified: the `If-None-Match` ETag is current.",
    400: "Invalid input: `details` maps each field (or header, or query parameter) to its messages.",
    401: "No credentials, or a token that is unknown, expired or revoked.",
    403: "The caller's role in the team is too small (or a browser session sent no CSRF token).",
    404: "No such object, or it belongs to a team the caller is not in (never a 403, so names do not leak).",
    409: "The request clashes with the current state (a taken name, a run that is not queued or running).",
    412: "`If-Match` names a version that is no longer current: read the object again and retry.",
    413: "The request body is larger than the server accepts (LAKEPORT_MAX_BODY_BYTES, 1 MiB by default).",
    415: "The body is not JSON (`Content-Type: application/json`); form and multipart bodies are refused.",
    429: "Too many requests: wait `Retry-After` seconds.",
    502: "The catalog's system answered with an error.",
    503: "A backing service (database, workers, engine) is unavailable: retry after `Retry-After` seconds.",
    504: "The catalog's system (or the team's engine) did not answer in time.",
}

RETRY_AFTER_HEADER: JsonObject = {
    "schema": {"type": "integer", "minimum": 0},
    "description": "Seconds to wait before retrying.",
}
ETAG_HEADER: JsonObject = {
    "schema": {"type": "string"},
    "description": 'The object\'s version as a strong ETag (`"3"`); send it back in `If-Match`.',
}


@dataclass(frozen=True)
class OperationName:
    """What an operation is called in the contract."""

    operation_id: str
    tag: str


def _segments(path: str) -> list[str]:
    segments = [s for s in _API_PREFIX.sub("", path).strip("/").split("/") if s]
    if len(segments) > 2 and tuple(segments[:2]) == _TEAM_PREFIX:
        return segments[2:]
    return segments


def _word(segment: str) -> str:
    return segment.replace("-", "_")


def operation_name(path: str, method: str, *, list_view: bool) -> OperationName:
    """`<resource>_<verb>` and the resource's tag, from the URL: `catalogs/` GET → `catalogs_list`,
    `catalogs/{name}/` PUT → `catalogs_put`, `runs/{run_id}/cancel/` POST → `runs_cancel`."""
    segments = _segments(path)
    key = (method, "/".join(segments) + "/")
    if key in OPERATIONS:
        return OperationName(*OPERATIONS[key])
    literals = [s for s in segments if not s.startswith("{")]
    tag = _word(literals[0]) if literals else "api"
    last = segments[-1] if segments else "api"
    if last.startswith("{"):  # an item: catalogs/{name}/
        resource = _word(segments[-2])
        return OperationName(f"{resource}_{_ITEM_VERBS.get(method, method.lower())}", tag)
    if len(segments) == 1:  # a collection: catalogs/
        verb = {"GET": "list" if list_view else "get", "POST": "create"}.get(method, method.lower())
        return OperationName(f"{_word(last)}_{verb}", tag)
    # an action or sub-resource of what precedes it: runs/{run_id}/cancel/, auth/login/, sql/preview/
    parent = segments[-3] if segments[-2].startswith("{") and len(segments) >= 3 else segments[-2]
    base = f"{_word(parent)}_{_word(last)}"
    if method == "POST":
        return OperationName(base, tag)
    if method == "GET":
        return OperationName(f"{base}_{'list' if list_view else 'get'}", tag)
    return OperationName(f"{base}_{method.lower()}", tag)


def error_response(status: int, ref: JsonObject) -> JsonObject:
    """One documented error: the reason, the envelope, its codes, and `Retry-After` where a retry helps."""
    codes = ", ".join(f"`{c}`" for c in ERROR_CODES.get(status, ()))
    response: JsonObject = {
        "description": _REASONS.get(status, "Error.") + (f" `error.code`: {codes}." if codes else ""),
        "content": {"application/json": {"schema": ref}},
    }
    if status in (429, 503):
        response["headers"] = {"Retry-After": RETRY_AFTER_HEADER}
    return response


class LakeportAutoSchema(AutoSchema):
    """Names operations and documents errors, headers and body types the same way for every view."""

    def _name(self) -> OperationName:
        return operation_name(self.path, self.method, list_view=self._is_list_view())

    def get_operation_id(self) -> str:
        return self._name().operation_id

    def get_tags(self) -> list[str]:
        return [self._name().tag]

    def get_serializer_name(self, serializer: Serializer[Any], direction: str) -> str:
        """Nested serializers are named after their view (`TokenListApi.InputSerializer` → `TokenListApiInput`),
        so the views' conventional `InputSerializer`/`OutputSerializer` classes never collide in components."""
        cls = serializer.__class__
        name = cls.__qualname__.replace(".", "") if "." in cls.__qualname__ else cls.__name__
        return name.removesuffix("Serializer") if name.endswith("Serializer") and len(name) > 10 else name

    def get_operation(self, path: str, path_regex: str, path_prefix: str, method: str,
                      registry: ComponentRegistry) -> JsonObject | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        self._declare_body_types(operation)
        self._declare_errors(operation)
        self._declare_etags(operation)
        return operation

    # ---- request bodies ----------------------------------------------------------------------------------
    def _declare_body_types(self, operation: JsonObject) -> None:
        content = operation.get("requestBody", {}).get("content")
        if not content:
            return
        yaml = [t for t in _YAML_TYPES if t in content]
        for media_type in yaml:
            del content[media_type]
        if yaml:  # accepted as is (aliases too); generators send it as a file
            content["application/yaml"] = {"schema": {
                "type": "string", "format": "binary",
                "description": "The same document as YAML text (also accepted as application/x-yaml, text/yaml).",
            }}

    # ---- errors ------------------------------------------------------------------------------------------
    def _error_statuses(self, operation: JsonObject) -> set[int]:
        parameters = operation.get("parameters", [])
        names = {(p["in"], p["name"]) for p in parameters}
        public = AllowAny in getattr(self.view, "permission_classes", [])
        has_body = "requestBody" in operation
        statuses = {401, 503}  # a bad token is refused even where no login is needed; the database may be down
        if not public or self.method in _UNSAFE:
            statuses.add(403)
        if any(where in ("path", "query") for where, _ in names):  # an object in the path, or a page past the end
            statuses.add(404)
        if has_body or any(where in ("query", "header") for where, _ in names):
            statuses.add(400)
        if has_body:
            statuses |= {413, 415}
        if self.method in _UNSAFE and not public:
            statuses.add(409)
        if ("header", "If-Match") in names:
            statuses.add(412)
        if getattr(self.view, "throttle_classes", None):
            statuses.add(429)
        return statuses | EXTRA_ERRORS.get(operation["operationId"], set())

    def _declare_errors(self, operation: JsonObject) -> None:
        ref = self.resolve_serializer(ApiErrorSerializer, "response").ref
        responses = operation["responses"]
        for status in sorted(self._error_statuses(operation)):
            responses.setdefault(str(status), error_response(status, ref))

    # ---- headers ---------------------------------------------------------------------------------------------
    def _declare_etags(self, operation: JsonObject) -> None:
        names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        if not names & {"If-Match", "If-None-Match"} and operation["operationId"] != "catalogs_create":
            return
        for status, response in operation["responses"].items():
            if status in ("200", "201", "304"):
                response.setdefault("headers", {})["ETag"] = ETAG_HEADER


# ---- examples on the main bodies -----------------------------------------------------------------------------
_JDBC_CONFIGURATION = {
    "type": "postgresql", "base-url": "jdbc:postgresql://db.example.com:5432/", "default-database": "sales",
    "username": "reporting",
}
EXAMPLES: dict[str, Any] = {
    "CatalogInputRequest": {
        "catalog_name": "sales_pg", "catalog_type": "jdbc", "description": "Orders database",
        "configuration": {**_JDBC_CONFIGURATION, "password": "write-only; never returned"},
    },
    "CatalogOutput": {
        "catalog_name": "sales_pg", "catalog_type": "jdbc", "description": "Orders database",
        "configuration": _JDBC_CONFIGURATION, "secrets_set": ["password"], "version": 3,
        "create_time": "2026-01-31T12:00:00Z", "update_time": "2026-02-01T09:30:00Z",
        "created_by": "ann", "updated_by": "bob",
    },
    "ApplyInputRequest": {
        "catalogs": [
            {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": "s3a://acme/lake"}},
            {"catalog_name": "sales_pg", "catalog_type": "jdbc",
             "configuration": {**_JDBC_CONFIGURATION, "password": "write-only"}},
        ],
        "prune": False, "dry_run": True,
    },
    "ApplyResult": {"created": ["lake"], "updated": ["sales_pg"], "deleted": [], "unchanged": []},
    "JobInputRequest": {
        "name": "daily orders", "sql": "SELECT customer, sum(amount) AS total FROM sales_pg.public.orders GROUP BY 1",
        "default_catalog": "sales_pg", "engine": "default", "max_retries": 1, "spark_conf": {},
    },
    "RunResultOutput": {
        "columns": [{"name": "customer", "type": "string"}, {"name": "total", "type": "decimal(20,2)"}],
        "rows": [["ann", "10.50"], ["bob", "20.00"]], "truncated": False,
    },
    "ApiError": {"error": {"code": "invalid", "message": "Invalid input: catalog_name.",
                        "details": {"catalog_name": ["This field is required."]}}},
}


def add_examples(result: JsonObject, generator: SchemaGenerator, request: Any, public: bool) -> JsonObject:
    """drf-spectacular postprocessing hook: examples on the main bodies, by component name."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, example in EXAMPLES.items():
        if name in schemas:
            schemas[name]["example"] = example
    return result


class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # drf-spectacular
    """Documents `Authorization: Bearer <token>` for REST integrations."""

    target_class = "teams.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "http", "scheme": "bearer", "description": "An API token from /api/v1/tokens/."}
