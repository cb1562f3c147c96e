"""Shapes of the catalog API for the OpenAPI schema. Input is validated by the services (the configuration by
each type's pydantic model, see catalogs/services/spec.py); these serializers document it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from catalogs.models import CatalogChangeAction
from catalogs.types import CATALOG_TYPES

# From the registry, not the model's choices: every registered type (kafka too) is accepted and returned.
CATALOG_TYPE_CHOICES = [(key, catalog_type.display_name) for key, catalog_type in CATALOG_TYPES.items()]


class CatalogInputSerializer(serializers.Serializer[Any]):
    catalog_name = serializers.RegexField(r"^[a-z][a-z0-9_]{0,62}$", help_text="Unique in the team; cannot change.")
    catalog_type = serializers.ChoiceField(choices=CATALOG_TYPE_CHOICES, help_text="Cannot change once created.")
    configuration = serializers.JSONField(
        help_text="The type's configuration (see catalog-types/). Secret values are write-only: omit one (or "
        "send null) to keep the stored value; in `storage-options` a key set to null is removed."
    )
    description = serializers.CharField(max_length=1000, required=False, allow_blank=True)


class CatalogOutputSerializer(serializers.Serializer[Any]):
    catalog_name = serializers.CharField()
    catalog_type = serializers.ChoiceField(choices=CATALOG_TYPE_CHOICES)
    description = serializers.CharField()
    configuration = serializers.DictField(help_text="Without secret values.")
    secrets_set = serializers.ListField(child=serializers.CharField(), help_text="Which secrets are set.")
    version = serializers.IntegerField(help_text="Also the ETag; send it back in If-Match.")
    create_time = serializers.DateTimeField()
    update_time = serializers.DateTimeField()
    created_by = serializers.CharField(allow_null=True)
    updated_by = serializers.CharField(allow_null=True)


class CatalogTypeOutputSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    display_name = serializers.CharField()
    schema = serializers.JSONField(help_text="JSON Schema of the configuration; secret fields have writeOnly.")


class CatalogChangeOutputSerializer(serializers.Serializer[Any]):
    catalog_name = serializers.CharField()
    catalog_type = serializers.CharField()
    action = serializers.ChoiceField(choices=CatalogChangeAction.choices)
    actor = serializers.CharField(source="actor_name")
    time = serializers.DateTimeField()
    version = serializers.IntegerField()
    changes = serializers.DictField(child=serializers.JSONField(),
                                    help_text='field → {"from", "to"}, or "set"/"changed"/"removed" for secrets.')
