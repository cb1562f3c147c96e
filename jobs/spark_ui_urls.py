"""Routes of the Spark UI proxy, mounted at the site root by config/urls.py (outside /api/: these are pages).

A run's UI lives under the run's own page, `/t/<team>/runs/<id>/spark/` (the SPA never routes below `spark/`);
`/spark-ui/<team>/runs/<id>/…`, where API 1.5–1.6 pointed, redirects there so that no link given out breaks.
"""

from __future__ import annotations

from django.urls import path
from django.views.generic import RedirectView

from jobs.spark_ui_views import RunSparkUiProxy

urlpatterns = [
    path("t/<str:team>/runs/<int:run_id>/spark/", RunSparkUiProxy.as_view(), name="run-spark-ui"),
    path("t/<str:team>/runs/<int:run_id>/spark/<path:path>", RunSparkUiProxy.as_view(), name="run-spark-ui-path"),
    path("spark-ui/<str:team>/runs/<int:run_id>/",
         RedirectView.as_view(pattern_name="run-spark-ui", query_string=True)),
    path("spark-ui/<str:team>/runs/<int:run_id>/<path:path>",
         RedirectView.as_view(pattern_name="run-spark-ui-path", query_string=True)),
]
