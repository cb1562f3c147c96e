"""Input validation shared by every API view."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, serializers


def validated(serializer_class: type[serializers.Serializer], data: Any, **kwargs: Any) -> dict[str, Any]:
    """Validate a request body with `serializer_class`; a non-object body is a 400, never a 500."""
    if not isinstance(data, dict):
        raise exceptions.ValidationError({"non_field_errors": ["Expected a JSON object."]})
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
