"""Hand-written layer over the generated `lakeport_client` (never regenerated): token auth with retries on
429/503 honouring Retry-After, idempotent run submission, waiting for a run, and typed errors."""

from lakeport_client_ext.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    LakeportError,
    NotFound,
    PayloadTooLarge,
    PreconditionFailed,
    RateLimited,
    ServiceUnavailable,
    Unauthorized,
    UnsupportedMediaType,
    UpstreamError,
)
from lakeport_client_ext.retries import RetryTransport
from lakeport_client_ext.session import Lakeport, RunTimeout, unwrap

__all__ = [
    "Conflict", "Forbidden", "InvalidInput", "Lakeport", "LakeportError", "NotFound", "PayloadTooLarge",
    "PreconditionFailed", "RateLimited", "RetryTransport", "RunTimeout", "ServiceUnavailable", "Unauthorized",
    "UnsupportedMediaType", "UpstreamError", "unwrap",
]
