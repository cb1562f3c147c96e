"""One definition per catalog type (issue 30): the runtime's definitions, the Spark bindings, the Django catalog
types, the model's validation and the API's type list name the same types; and a type added as one definition per
side shows up in the API, validates configurations and keeps its secrets write-only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from django.core.exceptions import ValidationError
from pydantic import Field, SecretStr
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.types import CATALOG_TYPES, catalog_type_registered, check_registries
from catalogs.types.base import (
    ConnectionResult,
    DefinedCatalogType,
    MetadataError,
    TableDetail,
    TableSummary,
)
from lakeport_engine.bindings import BINDINGS
from lakeport_engine.catalog_types import DEFINITIONS, definition_for
from lakeport_engine.catalog_types.base import CatalogConfig, CatalogTypeDefinition, secret_field
from lakeport_engine.store import CatalogEntry
from lakeport_kernel.redaction import redact
from tests.catalogs.conftest import API

pytestmark = pytest.mark.django_db


def test_both_sides_list_the_same_types(client_for: Any) -> None:
    keys = list(DEFINITIONS)
    assert list(BINDINGS) == sorted(BINDINGS, key=keys.index) and set(BINDINGS) == set(keys)
    assert list(CATALOG_TYPES) == keys and check_registries() == []
    for key, binding in BINDINGS.items():
        assert binding.definition is DEFINITIONS[key] and binding.key == key
    for key, catalog_type in CATALOG_TYPES.items():
        assert catalog_type.definition is DEFINITIONS[key]
        assert catalog_type.config_model is DEFINITIONS[key].config_model
    listed = client_for("viewer").get(f"{API}/catalog-types/?page_size=100").json()["results"]
    assert [(t["key"], t["display_name"]) for t in listed] == [(d.key, d.display_name) for d in DEFINITIONS.values()]


@pytest.mark.parametrize("model", [Catalog, CatalogChange])
def test_every_registered_type_passes_model_validation(model: type[Catalog] | type[CatalogChange]) -> None:
    field = model._meta.get_field("catalog_type")
    for key in DEFINITIONS:
        field.clean(key, None)  # what full_clean and the admin run
    with pytest.raises(ValidationError):
        field.clean("kafka2", None)


def test_the_runtime_redacts_exactly_the_fields_the_api_keeps_write_only() -> None:
    entry = CatalogEntry("pg", "jdbc", {"type": "postgresql", "base-url": "jdbc:postgresql://db:5432/",
                                        "default-database": "shop", "username": "alice-keyword-free",
                                        "password": "registry-Secr3t-91"})
    assert entry.type == "jdbc"
    assert "registry-Secr3t-91" not in redact("login failed for registry-Secr3t-91")
    assert "alice-keyword-free" in redact("user alice-keyword-free")  # not secret: shown as written
    assert definition_for("delta").secret_fields.maps == ("storage-options",)


# ---- a throwaway type, one definition per side -------------------------------------------------------------
class ThrowawayConfig(CatalogConfig):
    """A made-up type's configuration."""

    endpoint: str = Field(pattern=r"^tw://[a-z]+$", description="tw://name")
    token: SecretStr = secret_field(description="Token (write-only).")
    depth: int = Field(default=1, ge=1, le=5)


THROWAWAY = CatalogTypeDefinition(key="throwaway", display_name="Throwaway", config_model=ThrowawayConfig)


class ThrowawayCatalogType(DefinedCatalogType):
    """The Django side of the made-up type: a connection test and an empty browser."""

    definition: ClassVar[CatalogTypeDefinition] = THROWAWAY

    def test_connection(self, config: Any, *, timeout: float) -> ConnectionResult:
        return ConnectionResult(ok=True, message=f"reached {config.endpoint}", elapsed_ms=0)

    def list_databases(self, config: Any, *, timeout: float) -> list[str]:
        return []

    def list_tables(self, config: Any, database: str, *, timeout: float) -> list[TableSummary]:
        raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)

    def describe_table(self, config: Any, database: str, table: str, *, timeout: float) -> TableDetail:
        raise MetadataError(f"Table '{database}.{table}' does not exist in this catalog.", status=404)


@pytest.fixture
def throwaway() -> Iterator[None]:
    with catalog_type_registered(ThrowawayCatalogType()):
        yield
    assert "throwaway" not in DEFINITIONS and "throwaway" not in CATALOG_TYPES


def test_a_type_added_as_one_definition_per_side_works_through_the_api(throwaway: None, admin: APIClient) -> None:
    types = admin.get(f"{API}/catalog-types/?page_size=100").json()["results"]
    listed = {t["key"]: t for t in types}
    assert listed["throwaway"]["display_name"] == "Throwaway"
    assert listed["throwaway"]["schema"]["properties"]["token"]["writeOnly"] is True

    bad = admin.post(f"{API}/catalogs/", {"catalog_name": "tw", "catalog_type": "throwaway",
                                          "configuration": {"endpoint": "http://x", "token": "tw-Secr3t-0"}},
                     format="json")
    assert bad.status_code == 400 and "endpoint" in bad.json()["error"]["details"]["configuration"], bad.json()

    made = admin.post(f"{API}/catalogs/", {"catalog_name": "tw", "catalog_type": "throwaway",
                                           "configuration": {"endpoint": "tw://lake", "token": "tw-Secr3t-1"}},
                      format="json")
    assert made.status_code == 201, made.content
    shown = admin.get(f"{API}/catalogs/tw/").json()
    assert shown["configuration"] == {"endpoint": "tw://lake", "depth": 1} and shown["secrets_set"] == ["token"]
    assert "tw-Secr3t-1" not in Catalog.objects.get(catalog_name="tw").configuration  # sealed at rest
    tested = admin.post(f"{API}/catalogs/tw/test-connection/").json()
    assert tested["ok"] is True and tested["message"] == "reached tw://lake"


def test_a_type_whose_definition_is_gone_is_refused_by_the_model(throwaway: None) -> None:
    field = Catalog._meta.get_field("catalog_type")
    field.clean("throwaway", None)
    with pytest.raises(ValueError, match="already registered"), catalog_type_registered(ThrowawayCatalogType()):
        pass


def test_every_named_sink_factory_exists() -> None:
    import importlib

    for key, binding in BINDINGS.items():
        if binding.sink:
            module, _, name = binding.sink.partition(":")
            assert callable(getattr(importlib.import_module(module), name)), key
    assert {k for k, b in BINDINGS.items() if b.sink} == {"delta", "jdbc", "hive", "paimon"}
