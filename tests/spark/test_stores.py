"""Catalog stores: the platform table (sealed secrets, one team), a JSON file, memory; and the pure parts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from catalogs.services.crud import catalog_create, catalog_update
from catalogs.services.rotation import catalog_secrets_rotate
from jobs.engines.store import DjangoCatalogStore
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from lakeport_engine.store import (
    CatalogEntry,
    CatalogStoreError,
    DatabaseCatalogStore,
    FileCatalogStore,
    InMemoryCatalogStore,
    dsn_has_password,
    open_store,
    redact_dsn,
)
from lakeport_kernel.redaction import redact
from tests.factories import TeamFactory


def test_dsn_password_detection_and_redaction() -> None:
    assert dsn_has_password("postgresql://u:pw@h:5432/db")
    assert dsn_has_password("host=h user=u password=pw dbname=db")
    assert not dsn_has_password("postgresql://u@h:5432/db")
    assert redact_dsn("postgresql://u:pw@h:5432/db") == "postgresql://u@h:5432/db"


def test_open_store_specs(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("[]")
    assert isinstance(open_store(f"file:{path}", "acme"), FileCatalogStore)
    assert isinstance(open_store("postgresql://u@127.0.0.1:5432/x", "acme"), DatabaseCatalogStore)
    assert isinstance(open_store("memory:", "acme"), InMemoryCatalogStore)
    with pytest.raises(ValueError, match="store must be"):
        open_store("mysql://x", "acme")


def test_file_store_reads_api_shaped_bodies_and_sees_edits(tmp_path: Path) -> None:
    path = tmp_path / "catalogs.json"
    body = {"catalog_name": "pg", "catalog_type": "jdbc",
            "configuration": {"type": "postgresql", "base-url": "jdbc:postgresql://h:5432/", "default-database": "d",
                              "username": "u", "password": "file-pw-123"}}
    path.write_text(json.dumps([body]))
    store = FileCatalogStore(path, team="acme")
    entry = store.get_catalog("pg")
    assert entry is not None and entry.type == "jdbc" and entry.configuration["password"] == "file-pw-123"
    assert store.list_catalogs() == ["pg"] and store.contains("PG") and store.get_catalog("nope") is None
    assert redact("login with file-pw-123 failed") == "login with *** failed"  # registered for redaction

    body["configuration"]["default-database"] = "d2"
    path.write_text(json.dumps([body, {**body, "catalog_name": "pg2"}]))
    os.utime(path, ns=(1, 2_000_000_000))  # a different mtime even on a coarse clock
    changed = store.get_catalog("pg")
    assert changed is not None and changed.configuration["default-database"] == "d2"
    assert changed.fingerprint != entry.fingerprint
    assert store.list_catalogs() == ["pg", "pg2"]


def test_file_store_errors_name_the_file_not_the_content(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"catalog_name": "x", "catalog_type": "jdbc", "configuration": {"password": "leak-me-789"')
    with pytest.raises(CatalogStoreError) as err:
        FileCatalogStore(path)
    assert str(path) in str(err.value) and "leak-me-789" not in str(err.value)
    path.write_text('[{"catalog_name": "x", "catalog_type": "oracle", "configuration": {}}]')
    with pytest.raises(CatalogStoreError, match="catalog_type 'oracle'"):
        FileCatalogStore(path)
    with pytest.raises(CatalogStoreError, match="cannot be read"):
        FileCatalogStore(tmp_path / "missing.json")


def test_memory_store_bumps_the_version_of_a_changed_catalog() -> None:
    store = InMemoryCatalogStore([CatalogEntry("a", "hive", {"metastore-uris": "thrift://h:1"})])
    store.put(CatalogEntry("a", "hive", {"metastore-uris": "thrift://h:2"}))
    entry = store.get_catalog("a")
    assert entry is not None and entry.version == 2
    store.remove("a")
    assert not store.contains("a")


@pytest.fixture
def db_store_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # the driver decrypts with keys from its environment, never from argv
    monkeypatch.setenv("LAKEPORT_SECRET_KEYS", ",".join(settings.LAKEPORT_SECRET_KEYS))


def _dsn() -> str:
    from django.db import connection

    return f"postgresql://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_database_store_reads_sealed_rows_of_one_team(db_store_env: None) -> None:
    acme, globex = TeamFactory(name="acme"), TeamFactory(name="globex")
    jdbc = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://db:5432/",
                                      "default-database": "sales", "username": "u", "password": "db-pw-4567"})
    delta = DeltaConfig.model_validate({"warehouse": "/tmp/lp-wh", "storage-options": {"AWS_SECRET_ACCESS_KEY": "s3-key-999"}})
    Catalog.objects.create(team=acme, catalog_type="jdbc", catalog_name="pg_sales", configuration=seal_configuration(jdbc))
    Catalog.objects.create(team=acme, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(delta))
    Catalog.objects.create(team=globex, catalog_type="jdbc", catalog_name="globex_only",
                           configuration=seal_configuration(jdbc))
    stored = Catalog.objects.get(catalog_name="pg_sales").configuration
    assert "db-pw-4567" not in stored  # sealed at rest

    store = DatabaseCatalogStore(_dsn(), "acme")
    try:
        assert store.list_catalogs() == ["lake", "pg_sales"]
        entry = store.get_catalog("pg_sales")
        assert entry is not None and entry.type == "jdbc" and entry.version == 1
        assert entry.configuration["password"] == "db-pw-4567"
        assert store.get_catalog("lake").configuration["storage-options"] == {"AWS_SECRET_ACCESS_KEY": "s3-key-999"}
        # another team's catalog does not exist for this team
        assert store.get_catalog("globex_only") is None and not store.contains("globex_only")

        # a change (new version) is seen on the next lookup
        Catalog.objects.filter(catalog_name="pg_sales").update(version=2)
        changed = store.get_catalog("pg_sales")
        assert changed is not None and changed.version == 2 and changed.fingerprint != entry.fingerprint
    finally:
        store.close()
    assert redact("db-pw-4567 and s3-key-999") == "*** and ***"


@pytest.mark.django_db(transaction=True)
def test_every_store_sees_a_catalog_change_the_same_way(db_store_env: None) -> None:
    """The standalone runner's store and the worker's ORM store agree on when a catalog changed (and so re-bind)."""
    team = TeamFactory(name="acme")
    catalog_create(team=team, actor=None, data={
        "catalog_name": "pg", "catalog_type": "jdbc",
        "configuration": {"type": "postgresql", "base-url": "jdbc:postgresql://db:5432/", "default-database": "a",
                          "username": "u", "password": "fp-pw-2468"}})
    runner_store, worker_store = DatabaseCatalogStore(_dsn(), "acme"), DjangoCatalogStore("acme")

    def fingerprints() -> tuple[str, str]:
        runner, worker = runner_store.get_catalog("pg"), worker_store.get_catalog("pg")
        assert runner is not None and worker is not None
        return runner.fingerprint, worker.fingerprint

    try:
        first = fingerprints()
        assert first[0] == first[1]
        # re-sealing under the newest key changes the stored text, not the catalog: nothing to re-bind
        assert catalog_secrets_rotate().catalogs == 1
        assert fingerprints() == first
        catalog_update(team=team, name="pg", actor=None, data={"configuration": {"default-database": "b"}},
                       partial=True)
        changed = fingerprints()
        assert changed[0] == changed[1] != first[0]
    finally:
        runner_store.close()


def test_database_store_unreachable_is_a_clear_error() -> None:
    from tests.support.net import free_port

    store = DatabaseCatalogStore(f"postgresql://u:pw-in-dsn@127.0.0.1:{free_port()}/x", "acme", connect_timeout=2)
    with pytest.raises(CatalogStoreError) as err:
        store.get_catalog("x")
    assert "is unreachable" in str(err.value) and "pw-in-dsn" not in str(err.value)


def test_catalog_entry_is_hashable_data(tmp_path: Any) -> None:
    a = CatalogEntry("x", "hive", {"metastore-uris": "thrift://h:1"})
    b = CatalogEntry("x", "hive", {"metastore-uris": "thrift://h:1"})
    assert a.fingerprint == b.fingerprint
