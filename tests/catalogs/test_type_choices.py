"""The catalog models accept every registered catalog type (the model's choices are a second list of the keys)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from catalogs.models import Catalog, CatalogChange, CatalogTypeKey
from catalogs.types import CATALOG_TYPES


def test_the_model_choices_are_the_registered_types() -> None:
    assert sorted(CatalogTypeKey.values) == sorted(CATALOG_TYPES)


@pytest.mark.parametrize("model", [Catalog, CatalogChange])
def test_every_registered_type_passes_model_validation(model: type[Catalog] | type[CatalogChange]) -> None:
    field = model._meta.get_field("catalog_type")
    for key in CATALOG_TYPES:
        field.clean(key, None)  # what full_clean and the admin run; raised for kafka before it was a choice
    with pytest.raises(ValidationError):
        field.clean("kafka2", None)
