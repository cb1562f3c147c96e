"""Output serializers shared by several apps' bodies and OpenAPI schemas.

Declared once so the generated clients (Python and the browser app's api-schema.d.ts) name one type for them.
"""

from __future__ import annotations

from rest_framework import serializers


class ResultColumnOutput(serializers.Serializer):
    """A column of a result, preview or sample: its name and Spark SQL type."""

    name = serializers.CharField()
    type = serializers.CharField()

