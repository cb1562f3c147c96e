"""Output serializers shared by several apps' bodies and OpenAPI schemas.

Declared once so the generated clients (Python and the browser app's api-schema.d.ts) name one type for them.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import SkipField


class ResultColumnOutput(serializers.Serializer[Any]):
    """A column of a result, preview or sample: its name and Spark SQL type."""

    name = serializers.CharField()
    type = serializers.CharField()


@extend_schema_field(serializers.ListField(child=serializers.ListField(child=serializers.JSONField())))
class ResultRows(serializers.JSONField):
    """Rows of a result, preview or sample, lists of JSON values: passed through whole, with no field call per cell."""


class TrueOrAbsent(serializers.BooleanField):
    """A flag written as `true` when its attribute is true and left out of the body otherwise."""

    def get_attribute(self, instance: Any) -> bool:
        if not super().get_attribute(instance):
            raise SkipField  # absent, not false: clients test for the key
        return True
