"""Sign-in throttling (django-axes): failed logins are counted per user name and per client address; a locked
client gets a 429 in the API's error body with `Retry-After`. API tokens never pass through `authenticate()`,
so they are not affected."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.api.errors import error_body


def lockout_seconds() -> int:
    """How long a locked user name or address waits (AXES_COOLOFF_TIME)."""
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


def lockout_message() -> str:
    """The message of a 429 for too many failed sign-ins."""
    return (f"Too many failed sign-ins for this user or from this address; try again in "
            f"{max(1, lockout_seconds() // 60)} minutes.")


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict[str, Any] | None = None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the API's 429 envelope with Retry-After (AxesMiddleware returns it)."""
    response = JsonResponse(error_body("throttled", lockout_message(), {"retry_after": lockout_seconds()}),
                            status=429)
    response["Retry-After"] = str(lockout_seconds())
    return response
