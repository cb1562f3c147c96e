"""Typed errors from the API's error envelope `{"error": {"code", "message", "details"}}`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class LakeportError(Exception):
    """An error answer of the Lakeport API: its HTTP status and the envelope's code, message and details."""

    status: int = 0

    def __init__(self, status: int, code: str, message: str, details: Any = None, retry_after: float | None = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details if details is not None else {}
        self.retry_after = retry_after


class InvalidInput(LakeportError):
    """400: `details` maps each field (or header, or query parameter) to its messages."""


class Unauthorized(LakeportError):
    """401: no token, or one that is unknown, expired or revoked."""


class Forbidden(LakeportError):
    """403: the token's user has too small a role in the team."""


class NotFound(LakeportError):
    """404: no such object, or one of a team the caller is not in."""


class Conflict(LakeportError):
    """409: a taken name, or a run that is not in a state that allows the call."""


class PreconditionFailed(LakeportError):
    """412: `If-Match` named a version that is no longer current; read again and retry."""


class PayloadTooLarge(LakeportError):
    """413: the body is larger than the server accepts."""


class UnsupportedMediaType(LakeportError):
    """415: the body was not JSON (or YAML for `apply`)."""


class RateLimited(LakeportError):
    """429 after the retries: `retry_after` says how long the server asked to wait."""


class ServiceUnavailable(LakeportError):
    """503 after the retries: a backing service of the server is down."""


class UpstreamError(LakeportError):
    """502/504: the catalog's own system failed or did not answer in time."""


ERRORS_BY_STATUS: Mapping[int, type[LakeportError]] = {
    400: InvalidInput, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict, 412: PreconditionFailed,
    413: PayloadTooLarge, 415: UnsupportedMediaType, 429: RateLimited, 502: UpstreamError, 503: ServiceUnavailable,
    504: UpstreamError,
}


def retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` in seconds (the API sends delta-seconds); None when absent or not a number."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def error_from_response(status: int, content: bytes, headers: Mapping[str, str]) -> LakeportError:
    """The typed error for an error answer; a body that is not the envelope still gives an error with its text."""
    try:
        body = json.loads(content or b"null")
    except ValueError:
        body = None
    envelope = body.get("error") if isinstance(body, dict) else None
    if isinstance(envelope, dict):
        code, message, details = str(envelope.get("code", "error")), str(envelope.get("message", "")), envelope.get("details")
    else:
        code, message, details = "error", content.decode("utf-8", errors="replace")[:500], None
    cls = ERRORS_BY_STATUS.get(status, LakeportError)
    return cls(status, code, message, details, retry_after_seconds(headers.get("Retry-After")))
