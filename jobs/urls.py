"""Job and run routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from jobs import apis, preview_apis, view_apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("jobs/", apis.JobListApi.as_view(), name="job-list"),
    path("jobs/<int:job_id>/", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<int:job_id>/runs/", apis.JobRunsApi.as_view(), name="job-runs"),
    path("runs/", apis.RunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", apis.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/log/", apis.RunLogApi.as_view(), name="run-log"),
    path("runs/<int:run_id>/result/", apis.RunResultApi.as_view(), name="run-result"),
    path("runs/<int:run_id>/cancel/", apis.RunCancelApi.as_view(), name="run-cancel"),
    path("catalogs/<str:name>/materialized-views/<str:database>/<str:view>/refresh/",
         view_apis.MaterializedViewRefreshApi.as_view(), name="materialized-view-refresh"),
    path("sql/validate/", apis.SqlValidateApi.as_view(), name="sql-validate"),
    path("sql/preview/", apis.SqlPreviewApi.as_view(), name="sql-preview"),
    path("sql/preview/live/", preview_apis.SqlLivePreviewApi.as_view(), name="sql-preview-live"),
    path("engine/warm/", preview_apis.EngineWarmApi.as_view(), name="engine-warm"),
    path("sql/preview/live/<str:preview_id>/", preview_apis.SqlLivePreviewDetailApi.as_view(), name="sql-preview-live-detail"),
]
