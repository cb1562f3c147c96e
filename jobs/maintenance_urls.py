"""The table panel's maintenance route. Included before `catalogs.urls`: the metadata browser's table route takes
`<path:table>`, which would otherwise swallow `…/tables/<table>/maintenance/`."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from jobs import maintenance_apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("catalogs/<str:name>/databases/<str:database>/tables/<str:table>/maintenance/",
         maintenance_apis.TableMaintenanceApi.as_view(), name="table-maintenance"),
]
