"""Stream routes of streaming jobs under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from streams import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("jobs/<int:job_id>/stream/", apis.StreamApi.as_view(), name="stream-detail"),
    path("jobs/<int:job_id>/stream/start/", apis.StreamStartApi.as_view(), name="stream-start"),
    path("jobs/<int:job_id>/stream/stop/", apis.StreamStopApi.as_view(), name="stream-stop"),
    path("jobs/<int:job_id>/stream/restart/", apis.StreamRestartApi.as_view(), name="stream-restart"),
    path("jobs/<int:job_id>/stream/reset/", apis.StreamResetApi.as_view(), name="stream-reset"),
    path("jobs/<int:job_id>/stream/metrics/", apis.StreamMetricsApi.as_view(), name="stream-metrics"),
    path("jobs/<int:job_id>/stream/audit/", apis.StreamAuditApi.as_view(), name="stream-audit"),
]
