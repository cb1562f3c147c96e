"""Secrets: encrypted at rest, write-only in the API, kept when omitted, merged for storage-options, rotated."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import open_configuration, stored_plain
from lakeport_kernel.secretbox import SecretBox, SecretKeyError
from tests.catalogs.conftest import (
    API,
    DELTA_ACCESS_KEY,
    DELTA_SECRET_KEY,
    NEW_PASSWORD,
    PG_PASSWORD,
    delta_body,
    hive_body,
    pg_body,
)
from tests.conftest import PgDatabase

pytestmark = pytest.mark.django_db


def _raw_row(name: str) -> str:
    """The configuration column as the database holds it."""
    with connection.cursor() as cur:
        cur.execute("SELECT configuration FROM t_spark_catalog WHERE catalog_name = %s", [name])
        return cur.fetchone()[0]


def _password(name: str = "pg_main") -> str:
    return open_configuration("jdbc", Catalog.objects.get(catalog_name=name).configuration).password.get_secret_value()


def test_raw_row_holds_no_plaintext_secret(admin: APIClient, pg_source: PgDatabase, warehouse: Path) -> None:
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    admin.post(f"{API}/catalogs/", delta_body(warehouse), format="json")
    pg_raw, delta_raw = _raw_row("pg_main"), _raw_row("lake")
    assert PG_PASSWORD not in pg_raw
    assert DELTA_ACCESS_KEY not in delta_raw and DELTA_SECRET_KEY not in delta_raw
    sealed = json.loads(delta_raw)["storage-options"]
    assert set(sealed) == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    assert all(set(v) == {"$secret"} for v in sealed.values())
    # Only the configured key opens it.
    assert _password() == PG_PASSWORD
    with pytest.raises(SecretKeyError):
        SecretBox([Fernet.generate_key().decode()]).open_config(json.loads(pg_raw))


def test_responses_never_contain_the_secret_and_show_which_are_set(admin: APIClient, pg_source: PgDatabase) -> None:
    for resp in (
        admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json"),
        admin.get(f"{API}/catalogs/pg_main/"),
        admin.get(f"{API}/catalogs/"),
        admin.put(f"{API}/catalogs/pg_main/", pg_body(pg_source, password=NEW_PASSWORD), format="json"),
        admin.get(f"{API}/catalogs/pg_main/history/"),
    ):
        assert resp.status_code in (200, 201)
        assert PG_PASSWORD not in resp.content.decode() and NEW_PASSWORD not in resp.content.decode()
    assert admin.get(f"{API}/catalogs/pg_main/").json()["secrets_set"] == ["password"]


def test_omitting_the_password_keeps_it_and_sending_one_replaces_it(admin: APIClient, pg_source: PgDatabase) -> None:
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    body = pg_body(pg_source, password=None)
    body["configuration"]["username"] = "reporting"
    assert admin.put(f"{API}/catalogs/pg_main/", body, format="json").status_code == 200
    assert _password() == PG_PASSWORD
    assert admin.patch(f"{API}/catalogs/pg_main/", {"configuration": {"password": None}},
                       format="json").status_code == 200
    assert _password() == PG_PASSWORD  # null means "keep": a write-only value cannot be read back to resend
    resp = admin.patch(f"{API}/catalogs/pg_main/", {"configuration": {"password": NEW_PASSWORD}}, format="json")
    assert resp.status_code == 200 and resp.json()["version"] == 3
    assert _password() == NEW_PASSWORD
    changes = list(CatalogChange.objects.filter(action="update").order_by("id").values_list("changes", flat=True))
    assert changes[0] == {"configuration.username": {"from": "postgres", "to": "reporting"}}
    assert changes[1] == {"configuration.password": "changed"}


def test_storage_options_merge_and_null_removes_a_key(admin: APIClient, warehouse: Path) -> None:
    admin.post(f"{API}/catalogs/", delta_body(warehouse), format="json")
    body = delta_body(warehouse, options={"AWS_REGION": "eu-west-1", "AWS_SECRET_ACCESS_KEY": None})
    resp = admin.put(f"{API}/catalogs/lake/", body, format="json")
    assert resp.status_code == 200, resp.content
    assert resp.json()["secrets_set"] == ["storage-options.AWS_ACCESS_KEY_ID", "storage-options.AWS_REGION"]
    options = stored_plain(Catalog.objects.get(catalog_name="lake").configuration)["storage-options"]
    assert options == {"AWS_ACCESS_KEY_ID": DELTA_ACCESS_KEY, "AWS_REGION": "eu-west-1"}
    # Omitting storage-options entirely keeps every stored key.
    no_options = delta_body(warehouse)
    del no_options["configuration"]["storage-options"]
    assert admin.put(f"{API}/catalogs/lake/", no_options, format="json").json()["version"] == 2  # unchanged
    last = CatalogChange.objects.filter(action="update").get()
    assert last.changes == {"configuration.storage-options.AWS_REGION": "set",
                            "configuration.storage-options.AWS_SECRET_ACCESS_KEY": "removed"}


def _keys(*keys: str) -> list[str]:
    return list(keys)


def test_rotation_reencrypts_every_value_under_the_newest_key(
    admin: APIClient, pg_source: PgDatabase, warehouse: Path, settings: Any
) -> None:
    old_key, new_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.LAKEPORT_SECRET_KEYS = _keys(old_key)
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    admin.post(f"{API}/catalogs/", delta_body(warehouse), format="json")
    admin.post(f"{API}/catalogs/", hive_body(), format="json")  # no secrets: untouched
    before = {c.catalog_name: (c.configuration, c.version, c.update_time) for c in Catalog.objects.all()}

    settings.LAKEPORT_SECRET_KEYS = _keys(new_key, old_key)
    out = StringIO()
    call_command("rotate_catalog_secrets", stdout=out)
    assert "re-encrypted 3 secret value(s) in 2 catalog(s)" in out.getvalue()

    # The old key alone decrypts nothing any more: every value was re-encrypted under the new key.
    old_only = SecretBox([old_key])
    for name in ("pg_main", "lake"):
        with pytest.raises(SecretKeyError):
            old_only.open_config(json.loads(_raw_row(name)))
    settings.LAKEPORT_SECRET_KEYS = _keys(new_key)  # the old key is retired
    assert _password() == PG_PASSWORD
    options = stored_plain(_raw_row("lake"))["storage-options"]
    assert options == {"AWS_ACCESS_KEY_ID": DELTA_ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": DELTA_SECRET_KEY}
    after = {c.catalog_name: (c.configuration, c.version, c.update_time) for c in Catalog.objects.all()}
    assert after["hive_wh"] == before["hive_wh"]
    for name in ("pg_main", "lake"):  # content changed, version and update time (the ETag) did not
        assert after[name][0] != before[name][0] and after[name][1:] == before[name][1:]
    rotations = CatalogChange.objects.filter(action="rotate").order_by("catalog_name")
    assert [(c.catalog_name, c.actor_name) for c in rotations] == [("lake", "manage.py rotate_catalog_secrets"),
                                                                   ("pg_main", "manage.py rotate_catalog_secrets")]
    assert rotations[1].changes == {"configuration.password": "re-encrypted"}
    # The API still serves and updates them with the new key only.
    assert admin.get(f"{API}/catalogs/pg_main/").json()["secrets_set"] == ["password"]
    assert admin.patch(f"{API}/catalogs/pg_main/", {"description": "after rotation"}, format="json").status_code == 200


def test_rotation_is_all_or_nothing_when_a_value_cannot_be_decrypted(
    admin: APIClient, pg_source: PgDatabase, settings: Any
) -> None:
    first, lost, new_key = (Fernet.generate_key().decode() for _ in range(3))
    settings.LAKEPORT_SECRET_KEYS = _keys(first)
    admin.post(f"{API}/catalogs/", pg_body(pg_source, name="a_first"), format="json")
    settings.LAKEPORT_SECRET_KEYS = _keys(lost)
    admin.post(f"{API}/catalogs/", pg_body(pg_source, name="b_orphan"), format="json")
    before = {c.catalog_name: c.configuration for c in Catalog.objects.all()}

    settings.LAKEPORT_SECRET_KEYS = _keys(new_key, first)  # the key of b_orphan is gone
    with pytest.raises(CommandError, match="b_orphan"):
        call_command("rotate_catalog_secrets", stdout=StringIO())
    assert {c.catalog_name: c.configuration for c in Catalog.objects.all()} == before
    assert not CatalogChange.objects.filter(action="rotate").exists()


def test_unreadable_stored_secret_is_503_not_500(admin: APIClient, pg_source: PgDatabase, settings: Any) -> None:
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    settings.LAKEPORT_SECRET_KEYS = _keys(Fernet.generate_key().decode())
    resp = admin.patch(f"{API}/catalogs/pg_main/", {"description": "x"}, format="json")
    assert resp.status_code == 503 and "LAKEPORT_SECRET_KEYS" in resp.json()["error"]["message"]
    assert admin.get(f"{API}/catalogs/pg_main/").status_code == 200  # reads need no decryption


def test_no_key_configured_is_503_naming_the_setting(admin: APIClient, pg_source: PgDatabase, settings: Any) -> None:
    settings.LAKEPORT_SECRET_KEYS = []
    resp = admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    assert resp.status_code == 503 and "No encryption key configured" in resp.json()["error"]["message"]
    assert not Catalog.objects.exists()
