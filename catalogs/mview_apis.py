"""Materialized views of a Delta catalog, read-only REST: the list (with freshness) and one view's definition,
freshness and last refresh. Views are created, refreshed and dropped by SQL (CREATE/REFRESH/DROP MATERIALIZED
VIEW) in runs and the editor; see docs/materialized-views.md."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogs.hooks import view_details
from catalogs.models import MaterializedView
from catalogs.selectors import catalog_get
from catalogs.services.materialized_views import freshness, view_rows
from core.api.pagination import StandardPagination
from core.errors import InvalidInput
from lakeport_engine.matviews import VIEW_CATALOG_TYPES
from teams.permissions import TeamScopedMixin


class SourceFreshnessSerializer(serializers.Serializer):
    reflected = serializers.IntegerField(help_text="The source's Delta version the view's data reflects.")
    latest = serializers.IntegerField(allow_null=True, help_text="The source's latest Delta version (null: unknown).")
    behind = serializers.IntegerField(allow_null=True, help_text="Versions committed since (0: fresh).")
    since = serializers.DateTimeField(allow_null=True, required=False,
                                      help_text="When the first commit the view does not reflect landed (null: fresh).")


class MaterializedViewSerializer(serializers.Serializer):
    catalog = serializers.CharField()
    database = serializers.CharField()
    name = serializers.CharField()
    query = serializers.CharField()
    refresh_mode = serializers.ChoiceField(choices=["manual", "schedule", "on_commit"])
    schedule_cron = serializers.CharField(allow_blank=True)
    schedule_timezone = serializers.CharField(allow_blank=True)
    partition_by = serializers.ListField(child=serializers.CharField())
    comment = serializers.CharField(allow_blank=True)
    table_version = serializers.IntegerField(allow_null=True)
    state = serializers.CharField()
    stale = serializers.BooleanField()
    sources = serializers.DictField(child=SourceFreshnessSerializer())
    last_refresh = serializers.JSONField(allow_null=True)
    refresh_again = serializers.BooleanField(help_text="ON COMMIT: a source committed during the running refresh; "
                                                       "one more refresh follows it.")
    schedule_id = serializers.IntegerField(allow_null=True, help_text="The schedule firing its SCHEDULE CRON.")
    next_refresh = serializers.DateTimeField(allow_null=True, help_text="The schedule's next tick (null: none).")
    update_time = serializers.DateTimeField()


def view_out(row: MaterializedView) -> dict[str, Any]:
    """The API body of a view: its definition, freshness per source and last refresh."""
    fresh = freshness(row)
    return {
        "catalog": row.catalog.catalog_name, "database": row.database, "name": row.name, "query": row.query,
        "refresh_mode": row.refresh_mode, "schedule_cron": row.schedule_cron,
        "schedule_timezone": row.schedule_timezone, "partition_by": row.partition_by, "comment": row.comment,
        "table_version": row.table_version, "state": row.state, "stale": fresh["stale"],
        "sources": fresh["sources"], "last_refresh": row.last_refresh, "refresh_again": row.refresh_again,
        "schedule_id": None, "next_refresh": None, "update_time": row.update_time,
        **view_details(view=row),  # the schedule's next tick (schedules/view_hooks.py)
    }


class _DeltaCatalogMixin(TeamScopedMixin):
    def delta_catalog(self, name: str) -> Any:
        catalog = catalog_get(team=self.team, name=name)
        if catalog.catalog_type not in VIEW_CATALOG_TYPES:
            raise InvalidInput(f"Catalog '{name}' is a {catalog.catalog_type} catalog; materialized views live in "
                               "Delta catalogs.")
        return catalog


class MaterializedViewListApi(_DeltaCatalogMixin, APIView):
    """The materialized views of one of the team's Delta catalogs, with freshness."""

    pagination_class = StandardPagination

    @extend_schema(operation_id="materialized_views_list", responses=MaterializedViewSerializer(many=True))
    def get(self, request: Request, team: str, name: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(view_rows(catalog=self.delta_catalog(name)), request, view=self)
        return paginator.get_paginated_response([view_out(row) for row in page or []])


class MaterializedViewDetailApi(_DeltaCatalogMixin, APIView):
    """One materialized view: definition, the source versions it reflects against their latest, last refresh."""

    @extend_schema(operation_id="materialized_views_get", responses=MaterializedViewSerializer)
    def get(self, request: Request, team: str, name: str, database: str, view: str) -> Response:
        row = view_rows(catalog=self.delta_catalog(name)).filter(database=database, name=view).first()
        if row is None:
            raise NotFound(f"No materialized view '{name}.{database}.{view}' in team '{self.team.name}'.")
        return Response(view_out(row))
