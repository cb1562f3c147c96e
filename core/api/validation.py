"""Input validation shared by every API view."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime
from rest_framework import exceptions, serializers
from rest_framework.request import Request


def validated(serializer_class: type[serializers.Serializer[Any]], data: Any, **kwargs: Any) -> dict[str, Any]:
    """Validate a request body with `serializer_class`; a non-object body is a 400, never a 500."""
    if not isinstance(data, dict):
        raise exceptions.ValidationError({"non_field_errors": ["Expected a JSON object."]})
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def query_datetime(request: Request, name: str) -> datetime | None:
    """The ISO 8601 date-time in query parameter `name` (None when absent); anything else is a 400 naming it."""
    raw = request.query_params.get(name)
    if not raw:
        return None
    value = parse_datetime(raw)
    if value is None:
        raise exceptions.ValidationError({name: ["Use an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z."]})
    return value


def query_int(request: Request, name: str, default: int | None = None) -> int | None:
    """The non-negative integer in query parameter `name` (`default` when absent); anything else is a 400."""
    raw = request.query_params.get(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise exceptions.ValidationError({name: ["Expected a non-negative integer."]}) from None
    if value < 0:
        raise exceptions.ValidationError({name: ["Expected a non-negative integer."]})
    return value


def query_seconds(request: Request, name: str, maximum: float) -> float:
    """The number of seconds (decimals allowed) in query parameter `name`, 0 to `maximum` (0 when absent); else a 400."""
    raw = request.query_params.get(name)
    if not raw:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= maximum:  # also NaN
        raise exceptions.ValidationError({name: [f"Expected a number of seconds from 0 to {maximum:g}."]})
    return value
