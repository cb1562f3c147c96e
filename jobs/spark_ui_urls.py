"""Routes of the Spark UI proxy, mounted at `/spark-ui/` by config/urls.py (outside /api/: these are pages)."""

from __future__ import annotations

from django.urls import path

from jobs.spark_ui_views import RunSparkUiProxy

urlpatterns = [
    path("<str:team>/runs/<int:run_id>/", RunSparkUiProxy.as_view(), name="run-spark-ui"),
    path("<str:team>/runs/<int:run_id>/<path:path>", RunSparkUiProxy.as_view(), name="run-spark-ui-path"),
]
