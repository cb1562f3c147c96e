"""Top-level routes: the API under /api/v1/, its schema and docs, /healthz, runs' Spark UIs, and the browser app."""

from __future__ import annotations

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.health import healthz, livez
from config.metrics import metrics
from core.api.errors import api_not_found

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("livez", livez, name="livez"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/v1/", include("teams.urls")),
    path("api/v1/teams/<str:team>/", include("jobs.maintenance_urls")),  # before the table route's <path:table>
    path("api/v1/teams/<str:team>/", include("catalogs.urls")),
    path("api/v1/teams/<str:team>/", include("grants.urls")),
    path("api/v1/teams/<str:team>/", include("declarative.urls")),
    path("api/v1/teams/<str:team>/", include("jobs.urls")),
    path("api/v1/teams/<str:team>/", include("schedules.urls")),
    path("api/v1/teams/<str:team>/", include("lineage.urls")),
    path("api/v1/teams/<str:team>/", include("streams.urls")),
    path("api/v1/teams/<str:team>/", include("alerts.urls")),
    # The Iceberg REST catalog of one team's iceberg catalog: the base path names both (docs/iceberg.md)
    path("api/iceberg/<str:team>/<str:catalog>/", include("iceberg_rest.urls")),
    path("metrics", metrics, name="metrics"),  # Prometheus text format, bearer token (docs/alerts.md)
    path("", include("jobs.spark_ui_urls")),  # a run's Spark UI through the platform, under the run's page
    # Any other /api/ path: the JSON 404 envelope, whatever DEBUG says (handler404 is not used when DEBUG is on).
    re_path(r"^api(?:/|$)", api_not_found, name="api-not-found"),
]

handler404 = "core.api.errors.json_not_found"
handler500 = "core.api.errors.json_server_error"

# The browser app for `/` and its client-side routes; kept last so it never shadows a route above.
urlpatterns += [path("", include("config.spa"))]
