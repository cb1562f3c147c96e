"""API request latency for /metrics: one histogram by route pattern, method and status class.

In-process counters of prometheus-client. Under gunicorn (several worker processes) set PROMETHEUS_MULTIPROC_DIR
to a directory shared by them, emptied at start: each process then writes its samples there and /metrics adds them
up (prometheus-client's multiprocess mode; config/metrics.py). Without it, a scrape sees the answering process only.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from prometheus_client import Histogram

REQUEST_SECONDS = Histogram(
    "lakeport_http_request_duration_seconds",
    "API and page request latency by route pattern (`api/v1/teams/<str:team>/runs/`), method and status class.",
    ["route", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)


class RequestMetricsMiddleware:
    """Times every request; labelled by the matched route pattern (never the raw path: no ids, no team names)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None and match.route else "<unmatched>"
        if route != "metrics":  # the scrape does not time itself
            REQUEST_SECONDS.labels(route=route[:200], method=request.method or "",
                                   status=f"{response.status_code // 100}xx").observe(time.perf_counter() - started)
        return response
