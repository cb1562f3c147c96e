"""The OpenAPI contract as an integrator reads it: named operations, documented errors, JSON bodies, and no
breaking change against the released schema (docs/api/openapi-<version>.json) that the changelog does not announce.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from django.test import Client
from drf_spectacular.validation import validate_schema

from core.api.compat import API_DOCS, breaking_changes, latest_release, unannounced_breaking_changes

OPERATION_ID = re.compile(r"^[a-z]+(_[a-z]+)+$")
METHODS = ("get", "put", "post", "patch", "delete")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    """The schema as /api/schema/ serves it."""
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m.upper(), p, op) for p, item in schema["paths"].items() for m, op in item.items() if m in METHODS]


def test_the_schema_is_valid_openapi(schema: dict[str, Any]) -> None:
    validate_schema(schema)


def test_operations_are_named_for_integrators_and_tagged_by_resource(schema: dict[str, Any]) -> None:
    ids = {f"{m} {p}": op["operationId"] for m, p, op in operations(schema)}
    assert len(set(ids.values())) == len(ids), "operation ids must be unique"
    assert [i for i in ids.values() if not OPERATION_ID.match(i)] == []
    assert all(len(op.get("tags", [])) == 1 for _, _, op in operations(schema))
    expected = {
        "GET /api/v1/teams/{team}/catalogs/": "catalogs_list",
        "POST /api/v1/teams/{team}/catalogs/": "catalogs_create",
        "PUT /api/v1/teams/{team}/catalogs/{name}/": "catalogs_put",
        "POST /api/v1/teams/{team}/apply/": "catalogs_apply",
        "POST /api/v1/teams/{team}/jobs/": "jobs_create",
        "POST /api/v1/teams/{team}/jobs/{job_id}/runs/": "runs_submit",
        "POST /api/v1/teams/{team}/runs/{run_id}/cancel/": "runs_cancel",
        "GET /api/v1/teams/{team}/runs/{run_id}/result/": "runs_result_get",
        "DELETE /api/v1/tokens/{token_id}/": "tokens_revoke",
    }
    assert {k: ids.get(k) for k in expected} == expected


def test_every_error_is_documented_with_the_envelope(schema: dict[str, Any]) -> None:
    envelope = schema["components"]["schemas"]["ApiError"]
    assert envelope["required"] == ["error"]
    assert set(schema["components"]["schemas"]["ApiErrorDetail"]["required"]) == {"code", "message", "details"}
    for method, path, op in operations(schema):
        responses = op["responses"]
        params = {(p["in"], p["name"]) for p in op.get("parameters", [])}
        expected = {"401", "503"}
        if "requestBody" in op:
            expected |= {"400", "413", "415"}
        if ("header", "If-Match") in params:
            expected.add("412")
        if any(where == "path" for where, _ in params):
            expected.add("404")
        assert expected <= set(responses), f"{method} {path} lacks {sorted(expected - set(responses))}"
        for status, response in responses.items():
            if int(status) >= 400:
                assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ApiError"}
        for status in ("429", "503"):
            if status in responses:
                assert "Retry-After" in responses[status]["headers"]
    ops = {op["operationId"]: op for _, _, op in operations(schema)}
    assert {"409"} <= set(ops["runs_cancel"]["responses"]) and "409" in ops["runs_result_get"]["responses"]
    assert "ETag" in ops["catalogs_get"]["responses"]["200"]["headers"]
    assert {"Idempotency-Key"} <= {p["name"] for p in ops["runs_submit"]["parameters"]}
    assert {"page", "page_size"} <= {p["name"] for p in ops["catalogs_list"]["parameters"]}


def test_request_bodies_are_json_and_apply_also_takes_yaml(schema: dict[str, Any]) -> None:
    types = {op["operationId"]: sorted(op["requestBody"]["content"]) for _, _, op in operations(schema)
             if "requestBody" in op}
    assert types.pop("catalogs_apply") == ["application/json", "application/yaml"]
    assert {k: v for k, v in types.items() if v != ["application/json"]} == {}


def test_main_bodies_carry_examples(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    for name in ("CatalogInputRequest", "CatalogOutput", "ApplyInputRequest", "JobInputRequest", "ApiError"):
        assert "example" in components[name], name


def test_no_unannounced_breaking_change_against_the_released_schema(schema: dict[str, Any]) -> None:
    version, released = latest_release()
    changelog = (API_DOCS / "CHANGELOG.md").read_text()
    assert f"## {version}" in changelog
    assert unannounced_breaking_changes(released, schema, changelog) == []


def test_the_diff_reports_each_kind_of_breaking_change_and_not_additions(schema: dict[str, Any]) -> None:
    _, released = latest_release()
    assert breaking_changes(released, released) == []
    added = copy.deepcopy(released)
    added["paths"]["/api/v1/teams/{team}/new-thing/"] = {"get": {"operationId": "new_thing_list", "responses": {}}}
    added["components"]["schemas"]["CatalogOutput"]["properties"]["owner"] = {"type": "string"}
    assert breaking_changes(released, added) == []

    def broken(change: Any) -> list[str]:
        changed = copy.deepcopy(released)
        change(changed)
        return breaking_changes(released, changed)

    catalogs = "/api/v1/teams/{team}/catalogs/"
    schemas = "components", "schemas"
    assert broken(lambda s: s["paths"].pop("/api/v1/teams/{team}/apply/")) == ["/api/v1/teams/{team}/apply/: path removed"]
    assert broken(lambda s: s["paths"][catalogs].pop("post")) == [f"POST {catalogs}: operation removed"]
    assert "operation id" in broken(lambda s: s["paths"][catalogs]["get"].update(operationId="catalog_list_api_get"))[0]
    removed = broken(lambda s: s[schemas[0]][schemas[1]]["CatalogOutput"]["properties"].pop("version"))
    assert f"GET {catalogs} 200.results[].version: response field removed" in removed
    retyped = broken(lambda s: s[schemas[0]][schemas[1]]["CatalogOutput"]["properties"]["version"].update(type="string"))
    assert any("version: response type changed integer → string" in c for c in retyped)
    required = broken(lambda s: s[schemas[0]][schemas[1]]["JobInputRequest"]["required"].append("max_retries"))
    assert any(c.endswith("body.max_retries: new required request field") for c in required)
    narrowed = broken(lambda s: s[schemas[0]][schemas[1]]["CatalogTypeEnum"].update(enum=["jdbc", "hive"]))
    assert any("no longer accepted: [" in c and "'delta'" in c and "'hive'" not in c for c in narrowed)
    yaml = broken(lambda s: s["paths"]["/api/v1/teams/{team}/apply/"]["post"]["requestBody"]["content"].pop("application/yaml"))
    assert any("content types removed" in c for c in yaml)


def test_a_breaking_change_needs_a_new_major_version_announced_in_the_changelog() -> None:
    _, released = latest_release()
    changed = copy.deepcopy(released)
    changed["paths"].pop("/api/v1/teams/{team}/apply/")
    assert unannounced_breaking_changes(released, changed, "") != []
    changed["info"]["version"] = "2.0.0"
    problems = unannounced_breaking_changes(released, changed, "")
    assert problems[0] == "info.version 2.0.0 has no `## 2.0.0` section in docs/api/CHANGELOG.md"
    assert unannounced_breaking_changes(released, changed, "## 2.0.0\n\n- apply removed\n") == []
    changed["info"]["version"] = "1.1.0"  # a minor version cannot carry it, even announced
    assert unannounced_breaking_changes(released, changed, "## 1.1.0\n") != []
