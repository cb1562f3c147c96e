"""One error body for every API failure: `{"error": {"code", "message", "details"}}`."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.urls import Resolver404, ResolverMatch, resolve
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.errors import Conflict as DomainConflict
from core.errors import DomainError, Forbidden, InvalidInput, NotFound, Unavailable
from core.errors import PreconditionFailed as DomainPreconditionFailed
from lakeport_kernel.secretbox import SecretKeyError

logger = logging.getLogger("lakeport.api")


class Conflict(exceptions.APIException):
    """For views: the request clashes with existing state. Services raise core.errors.Conflict instead."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class PreconditionFailed(exceptions.APIException):
    """`If-Match` named a version that is no longer current."""

    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "The resource has changed since you read it."
    default_code = "precondition_failed"


class ServiceUnavailable(exceptions.APIException):
    """A backing service (the database) is down; retry later."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "A backing service is unavailable; retry shortly."
    default_code = "service_unavailable"
    wait = 5  # seconds; DRF's handler sends it as Retry-After, which clients honour before retrying


# The `error.code` values each status can carry (documented per response in the OpenAPI schema).
ERROR_CODES: dict[int, tuple[str, ...]] = {
    400: ("invalid", "parse_error", "database_error"),
    401: ("not_authenticated", "authentication_failed"),
    403: ("permission_denied",),
    404: ("not_found",),
    409: ("conflict",),
    412: ("precondition_failed",),
    413: ("payload_too_large",),
    415: ("unsupported_media_type",),
    429: ("throttled",),
    502: ("bad_gateway",),
    503: ("service_unavailable",),
    504: ("gateway_timeout",),
}


class ApiErrorDetailSerializer(serializers.Serializer[Any]):
    """What went wrong: a stable `code`, a `message` for people and `details` (field → messages for `invalid`)."""

    code = serializers.CharField(help_text="Stable, machine-readable: `invalid`, `not_found`, `conflict`, …")
    message = serializers.CharField(help_text="For people; may change between releases.")
    details = serializers.JSONField(help_text="Field → messages for `invalid`; otherwise usually empty.")


class ApiErrorSerializer(serializers.Serializer[Any]):
    """`{"error": {"code", "message", "details"}}`: the body of every 4xx/5xx answer of the API."""

    # Named ApiError, not Error: a generated client model `Error` with a field `error` shadows itself.
    error = ApiErrorDetailSerializer()


def _first_code(codes: Any) -> str:
    if isinstance(codes, str):
        return codes
    if isinstance(codes, dict):
        for value in codes.values():
            return _first_code(value)
    if isinstance(codes, list) and codes:
        return _first_code(codes[0])
    return "error"


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    """Build the standard error body."""
    return {"error": {"code": code, "message": message, "details": details if details is not None else {}}}


# The one place domain errors (core/errors.py) become HTTP: most specific class first.
DOMAIN_STATUS: tuple[tuple[type[DomainError], int], ...] = (
    (InvalidInput, 400), (Forbidden, 403), (NotFound, 404), (DomainConflict, 409), (DomainPreconditionFailed, 412), (Unavailable, 503),
)


def domain_error_response(exc: DomainError) -> Response:
    """The HTTP answer to a domain error: its status, the envelope, and Retry-After when a retry can help."""
    status_code = next((code for cls, code in DOMAIN_STATUS if isinstance(exc, cls)), 400)
    set_rollback()  # as DRF does for its own exceptions: an atomic request writes nothing
    response = Response(error_body(exc.code, exc.message, exc.details), status=status_code)
    if isinstance(exc, Unavailable):
        response["Retry-After"] = str(exc.retry_after)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler that wraps every error in the standard body and never lets one become a 500."""
    if isinstance(exc, DomainError):
        return domain_error_response(exc)
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body("payload_too_large", "Request body too large."), status=413)
    if isinstance(exc, SecretKeyError):
        # Stored secrets can't be opened with the configured keys; the message names the setting, never a value.
        logger.error("api.secrets_unreadable", extra={"error_class": type(exc).__name__})
        exc = ServiceUnavailable(f"{exc} An operator must check LAKEPORT_SECRET_KEYS.")
    elif isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("api.database_unavailable", extra={"error_class": type(exc).__name__})
        exc = ServiceUnavailable()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages})
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        if isinstance(exc, DatabaseError):
            logger.exception("api.database_error")
            return Response(error_body("database_error", "The request could not be stored."), status=400)
        return None
    assert isinstance(exc, exceptions.APIException)
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        if isinstance(detail, dict) and set(detail) == {"non_field_errors"}:
            # typed via a plain Mapping: stub versions disagree on the dict's key type
            fields_detail: Mapping[Any, Any] = detail
            message = "; ".join(str(m) for m in fields_detail["non_field_errors"])
        elif isinstance(detail, list):
            message = "; ".join(str(m) for m in detail)
        else:
            fields = ", ".join(str(k) for k in detail) if isinstance(detail, dict) else ""
            message = f"Invalid input: {fields}." if fields else "Invalid input."
        response.data = error_body("invalid", message, detail)
    else:
        other = exc.detail
        text = str(other) if not isinstance(other, (dict, list)) else exc.default_detail
        extra = other if isinstance(other, (dict, list)) else {}
        response.data = error_body(_first_code(exc.get_codes()), str(text), extra)
    return response


def json_not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Django-level 404 (no URL matched) in the standard body."""
    return JsonResponse(error_body("not_found", "Not found."), status=404)


@csrf_exempt  # it changes nothing: a POST to an unknown path is a 404, not a CSRF failure page
def api_not_found(request: HttpRequest) -> JsonResponse:
    """Every /api/ path no route matched: the JSON 404, naming the route when only the trailing slash is missing."""
    message = "Not found."
    if not request.path_info.endswith("/"):
        match = _resolve(request.path_info + "/")
        if match is not None and match.url_name != "api-not-found":
            message = f"Not found. API paths end with '/': {request.path}/"
    return JsonResponse(error_body("not_found", message), status=404)


def _resolve(path: str) -> ResolverMatch | None:
    try:
        return resolve(path)
    except Resolver404:
        return None


def json_server_error(request: HttpRequest) -> JsonResponse:
    """Django-level 500 in the standard body; the traceback goes to the log, never to the client."""
    return JsonResponse(error_body("server_error", "Internal error."), status=500)
