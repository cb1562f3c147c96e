"""An httpx transport that retries 429 and 503 answers, waiting as long as `Retry-After` asks."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from lakeport_client_ext.errors import retry_after_seconds

RETRIED_STATUSES = frozenset({429, 503})
# A 503 may come after the server did part of the work: only requests that are safe to repeat are retried on it.
REPEATABLE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


class RetryTransport(httpx.BaseTransport):
    """Wraps a transport: a 429 (not processed) is retried for every request; a 503 only for repeatable methods
    and requests that carry an `Idempotency-Key`. Without `Retry-After` it backs off exponentially."""

    def __init__(self, wrapped: httpx.BaseTransport | None = None, *, retries: int = 4, max_wait: float = 30.0,
                 backoff: float = 0.5, sleep: Callable[[float], None] = time.sleep) -> None:
        self._wrapped = wrapped or httpx.HTTPTransport()
        self.retries = retries
        self.max_wait = max_wait
        self.backoff = backoff
        self._sleep = sleep

    def _retryable(self, request: httpx.Request, response: httpx.Response) -> bool:
        if response.status_code == 429:
            return True
        return response.status_code == 503 and (
            request.method in REPEATABLE_METHODS or "Idempotency-Key" in request.headers)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            response = self._wrapped.handle_request(request)
            if attempt >= self.retries or not self._retryable(request, response):
                return response
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            response.read()
            response.close()
            self._sleep(min(self.max_wait, wait if wait is not None else self.backoff * 2**attempt))
            attempt += 1

    def close(self) -> None:
        self._wrapped.close()
