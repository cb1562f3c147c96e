"""ETag / If-Match optimistic locking, PUT create-or-replace idempotency, and no lost update under concurrency."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from tests.catalogs.conftest import API, hive_body

pytestmark = pytest.mark.django_db

URL = f"{API}/catalogs/hive_wh/"


def test_every_catalog_response_carries_the_version_as_etag(admin: APIClient) -> None:
    assert admin.post(f"{API}/catalogs/", hive_body(), format="json")["ETag"] == '"1"'
    assert admin.get(URL)["ETag"] == '"1"'
    assert admin.patch(URL, {"description": "two"}, format="json")["ETag"] == '"2"'
    assert admin.put(URL, {**hive_body(), "description": "three"}, format="json")["ETag"] == '"3"'
    assert admin.get(URL).json()["version"] == 3


def test_stale_if_match_is_412_and_changes_nothing(admin: APIClient) -> None:
    admin.post(f"{API}/catalogs/", hive_body(), format="json")
    etag = admin.get(URL)["ETag"]
    assert admin.patch(URL, {"description": "first writer"}, format="json", HTTP_IF_MATCH=etag).status_code == 200
    # A second client still holding version 1 loses nothing of the first writer's change:
    for method, body in (("patch", {"description": "second"}), ("put", {**hive_body(), "description": "second"}),
                         ("delete", None)):
        resp = getattr(admin, method)(URL, body, format="json", HTTP_IF_MATCH=etag)
        assert resp.status_code == 412, (method, resp.content)
        assert resp.json()["error"]["code"] == "precondition_failed"
    stored = Catalog.objects.get(catalog_name="hive_wh")
    assert (stored.version, stored.description) == (2, "first writer")

    current = admin.get(URL)["ETag"]
    assert current == '"2"'
    assert admin.patch(URL, {"description": "second"}, format="json", HTTP_IF_MATCH=current).status_code == 200
    assert admin.delete(URL, HTTP_IF_MATCH='"3"').status_code == 204


def test_if_match_forms(admin: APIClient) -> None:
    admin.post(f"{API}/catalogs/", hive_body(), format="json")
    assert admin.patch(URL, {"description": "a"}, format="json", HTTP_IF_MATCH='"7", "1"').status_code == 200
    assert admin.patch(URL, {"description": "b"}, format="json", HTTP_IF_MATCH="*").status_code == 200
    bad = admin.patch(URL, {"description": "c"}, format="json", HTTP_IF_MATCH="yesterday")
    assert bad.status_code == 400 and "If-Match" in bad.json()["error"]["details"]
    # If-Match on a catalog that does not exist: PUT must not create it.
    resp = admin.put(f"{API}/catalogs/ghost/", hive_body(name="ghost"), format="json", HTTP_IF_MATCH='"1"')
    assert resp.status_code == 412 and not Catalog.objects.filter(catalog_name="ghost").exists()


def test_get_with_current_etag_is_304(admin: APIClient) -> None:
    admin.post(f"{API}/catalogs/", hive_body(), format="json")
    assert admin.get(URL, HTTP_IF_NONE_MATCH='"1"').status_code == 304
    assert admin.get(URL, HTTP_IF_NONE_MATCH='"0"').status_code == 200


def test_put_creates_then_replaces_and_an_identical_put_keeps_the_version(admin: APIClient) -> None:
    created = admin.put(URL, hive_body(), format="json")
    assert created.status_code == 201 and created.json()["version"] == 1
    again = admin.put(URL, hive_body(), format="json")
    assert again.status_code == 200 and again.json()["version"] == 1 and again["ETag"] == '"1"'
    assert again.json()["update_time"] == created.json()["update_time"]
    # The GET body sent back as is (read-only fields included) is also "no change".
    round_trip = admin.put(URL, admin.get(URL).json(), format="json")
    assert round_trip.status_code == 200 and round_trip.json()["version"] == 1
    replaced = admin.put(URL, {**hive_body(), "description": "new"}, format="json")
    assert replaced.status_code == 200 and replaced.json()["version"] == 2
    assert list(CatalogChange.objects.order_by("id").values_list("action", "version")) == [("create", 1), ("update", 2)]


def test_put_replaces_omitted_plain_fields_with_defaults_but_patch_keeps_them(admin: APIClient) -> None:
    body = hive_body()
    body["configuration"]["hive-version"] = "3.1.3"
    admin.put(URL, body, format="json")
    assert admin.patch(URL, {"description": "x"}, format="json").json()["configuration"]["hive-version"] == "3.1.3"
    replaced = admin.put(URL, hive_body(), format="json").json()
    assert replaced["configuration"]["hive-version"] == "2.3.10" and replaced["description"] == "Hive warehouse"


def test_put_with_if_none_match_star_only_creates(admin: APIClient) -> None:
    assert admin.put(URL, hive_body(), format="json", HTTP_IF_NONE_MATCH="*").status_code == 201
    resp = admin.put(URL, {**hive_body(), "description": "x"}, format="json", HTTP_IF_NONE_MATCH="*")
    assert resp.status_code == 412 and Catalog.objects.get(catalog_name="hive_wh").version == 1


def test_put_with_a_bad_url_name_is_400(admin: APIClient) -> None:
    resp = admin.put(f"{API}/catalogs/Bad-Name/", hive_body(name="Bad-Name"), format="json")
    assert resp.status_code == 400 and "catalog_name" in resp.json()["error"]["details"]
    resp = admin.put(f"{API}/catalogs/good_name/", hive_body(name="other"), format="json")
    assert resp.status_code == 400 and "catalog_name" in resp.json()["error"]["details"]
    assert not Catalog.objects.exists()


def _concurrently(*calls: Any) -> list[Any]:
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Any) -> None:
        try:
            barrier.wait()
            results[i] = call()
        finally:
            connection.close()  # each thread has its own database connection

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_with_the_same_if_match_one_wins_one_gets_412(client_for: Any, team: Any) -> None:
    alice, bob = client_for("admin"), client_for("admin")
    alice.post(f"{API}/catalogs/", hive_body(), format="json")
    responses = _concurrently(
        lambda: alice.patch(URL, {"description": "alice"}, format="json", HTTP_IF_MATCH='"1"'),
        lambda: bob.patch(URL, {"description": "bob"}, format="json", HTTP_IF_MATCH='"1"'),
    )
    assert sorted(r.status_code for r in responses) == [200, 412]
    winner = next(r for r in responses if r.status_code == 200).json()["description"]
    stored = Catalog.objects.get(catalog_name="hive_wh")
    assert (stored.version, stored.description) == (2, winner)


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_without_if_match_both_land_in_order(client_for: Any, team: Any) -> None:
    alice, bob = client_for("admin"), client_for("admin")
    alice.post(f"{API}/catalogs/", hive_body(), format="json")
    responses = _concurrently(
        lambda: alice.patch(URL, {"description": "alice"}, format="json"),
        lambda: bob.patch(URL, {"configuration": {"hive-version": "3.1.3"}}, format="json"),
    )
    assert [r.status_code for r in responses] == [200, 200]
    stored = Catalog.objects.get(catalog_name="hive_wh")
    # Row locks serialise the two: neither change is lost.
    assert stored.version == 3 and stored.description == "alice"
    assert '"hive-version": "3.1.3"' in stored.configuration
    assert sorted(CatalogChange.objects.filter(action="update").values_list("version", flat=True)) == [2, 3]


@pytest.mark.django_db(transaction=True)
def test_concurrent_puts_creating_the_same_catalog_one_creates_one_replaces(client_for: Any, team: Any) -> None:
    alice, bob = client_for("admin"), client_for("admin")
    responses = _concurrently(
        lambda: alice.put(URL, hive_body(), format="json"),
        lambda: bob.put(URL, {**hive_body(), "description": "bob"}, format="json"),
    )
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 201], [r.content for r in responses]
    stored = Catalog.objects.get(catalog_name="hive_wh")
    replaced = next(r for r in responses if r.status_code == 200).json()
    assert stored.description == replaced["description"] and stored.version == replaced["version"]
