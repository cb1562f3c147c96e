"""The audit trail: who changed what and when, secrets shown only as changed, surviving deletion."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from catalogs.models import CatalogChange
from teams.models import Role
from tests.catalogs.conftest import API, NEW_PASSWORD, pg_body
from tests.conftest import PgDatabase

pytestmark = pytest.mark.django_db

HISTORY = f"{API}/catalogs/pg_main/history/"


def _actor(client: APIClient) -> str:
    return client.get("/api/v1/me/").json()["username"]


def test_history_records_each_change_with_actor_version_and_diff(
    client_for: Any, pg_source: PgDatabase
) -> None:
    alice, bob, viewer = client_for(Role.ADMIN), client_for(Role.ADMIN), client_for(Role.VIEWER)
    alice.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    body = pg_body(pg_source, password=NEW_PASSWORD)
    body["configuration"]["username"] = "etl"
    body["description"] = "Orders (etl user)"
    bob.put(f"{API}/catalogs/pg_main/", body, format="json")
    bob.put(f"{API}/catalogs/pg_main/", body, format="json")  # no change: no entry

    resp = viewer.get(HISTORY)
    assert resp.status_code == 200
    entries = resp.json()["results"]
    assert [(e["action"], e["version"], e["actor"]) for e in entries] == [
        ("update", 2, _actor(bob)),
        ("create", 1, _actor(alice)),
    ]
    assert entries[0]["changes"] == {
        "configuration.username": {"from": "postgres", "to": "etl"},
        "configuration.password": "changed",
        "description": {"from": "Orders in PostgreSQL", "to": "Orders (etl user)"},
    }
    created = entries[1]["changes"]
    assert created["configuration.password"] == "set" and created["catalog_type"] == {"from": None, "to": "jdbc"}
    assert created["configuration.default-database"] == {"from": None, "to": pg_source.name}
    assert entries[0]["time"] >= entries[1]["time"]


def test_history_survives_deletion_and_recreation(admin: APIClient, pg_source: PgDatabase) -> None:
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    admin.patch(f"{API}/catalogs/pg_main/", {"description": "v2"}, format="json")
    assert admin.delete(f"{API}/catalogs/pg_main/").status_code == 204
    after_delete = admin.get(HISTORY)
    assert after_delete.status_code == 200
    assert [(e["action"], e["version"]) for e in after_delete.json()["results"]] == [
        ("delete", 2), ("update", 2), ("create", 1)]
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    actions = [e["action"] for e in admin.get(HISTORY).json()["results"]]
    assert actions == ["create", "delete", "update", "create"]


def test_history_survives_the_actor_being_deleted(client_for: Any, pg_source: PgDatabase) -> None:
    admin, reader = client_for(Role.ADMIN), client_for(Role.VIEWER)
    name = _actor(admin)
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    get_user_model().objects.filter(username=name).delete()
    entry = reader.get(HISTORY).json()["results"][0]
    assert entry["actor"] == name
    assert reader.get(f"{API}/catalogs/pg_main/").json()["created_by"] is None


def test_history_is_paginated_and_scoped_to_the_team(admin: APIClient, client_for: Any, other_team: Any,
                                                     pg_source: PgDatabase) -> None:
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    for i in range(4):
        admin.patch(f"{API}/catalogs/pg_main/", {"description": f"d{i}"}, format="json")
    page = admin.get(f"{HISTORY}?page_size=2").json()
    assert page["count"] == 5 and [e["version"] for e in page["results"]] == [5, 4]
    globex = client_for(Role.ADMIN, in_team=other_team)
    assert globex.get("/api/v1/teams/globex/catalogs/pg_main/history/").status_code == 404
    assert CatalogChange.objects.filter(team=other_team).count() == 0
