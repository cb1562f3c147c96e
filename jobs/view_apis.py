"""Refreshing a materialized view from the API: a run of the view's refresh job (developers and admins), and the
view's refresh history (those runs, newest first)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.pagination import StandardPagination
from jobs.apis import JobsMixin, RunOutput, RunSummaryOutput
from jobs.models import JobRun
from jobs.services.view_refresh import view_get, view_refresh_jobs, view_refresh_submit


class MaterializedViewRefreshApi(JobsMixin, APIView):
    """POST: queue a refresh run (`?full=true`: REFRESH … FULL). GET: the view's refresh runs."""

    pagination_class = StandardPagination

    @extend_schema(operation_id="materialized_views_refresh", request=None, responses={201: RunOutput},
                   parameters=[OpenApiParameter("full", bool, required=False)])
    def post(self, request: Request, team: str, name: str, database: str, view: str) -> Response:
        row = view_get(team=self.team, catalog=name, database=database, name=view)
        full = str(request.query_params.get("full", "")).lower() in ("1", "true", "yes")
        submission = view_refresh_submit(view=row, user=request.user, full=full)
        return Response(RunOutput(submission.run).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="materialized_views_refreshes", responses=RunSummaryOutput(many=True))
    def get(self, request: Request, team: str, name: str, database: str, view: str) -> Response:
        row = view_get(team=self.team, catalog=name, database=database, name=view)
        runs = JobRun.objects.filter(team=self.team, job_id__in=view_refresh_jobs(view=row)).order_by("-id")
        paginator = StandardPagination()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response(RunSummaryOutput(page, many=True).data)
