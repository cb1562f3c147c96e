"""Domain errors: what services raise when a request cannot be carried out, in the domain's words.

They know nothing of HTTP; `core/api/errors.py` alone maps them to status codes and the error envelope, and
management commands catch them to print `message` and `details`. Views may still raise DRF exceptions for
what is theirs alone (a malformed header, a bad page number).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class DomainError(Exception):
    """A request the domain refuses: a stable `code`, a `message` for people, `details` (field → messages)."""

    code = "error"
    default_message = "The request cannot be carried out."

    def __init__(self, message: str | None = None, details: Mapping[str, Any] | None = None) -> None:
        self.message = message or self.default_message
        self.details: dict[str, Any] = dict(details or {})
        super().__init__(self.message)

    def messages(self) -> list[str]:
        """Every message in `details`, nested fields flattened and their names dropped; `[message]` when none."""
        return _flatten(self.details) or [self.message]

    def summary(self) -> str:
        """`field: message; other: message` for a terminal; the bare `message` when `details` names no field."""
        parts = [f"{field}: {' '.join(_flatten(value))}" for field, value in self.details.items()]
        return "; ".join(parts) or self.message


def _flatten(value: Any) -> list[str]:
    if isinstance(value, Mapping):
        return [m for item in value.values() for m in _flatten(item)]
    if isinstance(value, (list, tuple)):
        return [m for item in value for m in _flatten(item)]
    return [str(value)]


class InvalidInput(DomainError):
    """Bad input: `details` maps each field to its messages."""

    code = "invalid"
    default_message = "Invalid input."

    @classmethod
    def of(cls, details: Mapping[str, Any]) -> InvalidInput:
        """`Invalid input: name, sql.` for `details` keyed by field, as the API words a failed validation."""
        return cls(f"Invalid input: {', '.join(str(k) for k in details)}.", details)


class NotFound(DomainError):
    """No such object (or one the caller may not see)."""

    code = "not_found"
    default_message = "Not found."


class Forbidden(DomainError):
    """The caller is known and may see the object, but lacks the privilege the action needs (docs/access.md)."""

    code = "permission_denied"
    default_message = "You do not have the privilege this needs."


class Conflict(DomainError):
    """The request clashes with the current state: a taken name, a run that already finished."""

    code = "conflict"
    default_message = "The request conflicts with the current state."


class PreconditionFailed(DomainError):
    """The caller's precondition (an `If-Match` version) no longer holds."""

    code = "precondition_failed"
    default_message = "The resource has changed since you read it."


class Unavailable(DomainError):
    """A backing service (workers, an engine) cannot answer now; worth retrying after `retry_after` seconds."""

    code = "service_unavailable"
    default_message = "A backing service is unavailable; retry shortly."
    retry_after = 5
