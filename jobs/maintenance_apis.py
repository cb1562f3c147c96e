"""OPTIMIZE/VACUUM of a Delta table from the API (the metadata browser's table panel): team admins queue a run;
members read the table's maintenance runs, newest first."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.pagination import StandardPagination
from core.api.validation import validated
from jobs.apis import RunOutput, RunSummaryOutput
from jobs.models import JobRun
from jobs.services.table_maintenance import OPERATIONS, maintenance_catalog, maintenance_jobs, maintenance_submit
from teams.models import Role
from teams.permissions import TeamScopedMixin


class TableMaintenanceApi(TeamScopedMixin, APIView):
    """POST: queue `OPTIMIZE` or `VACUUM [RETAIN n HOURS]` of the table (admins). GET: its maintenance runs."""

    read_role = Role.VIEWER
    write_role = Role.ADMIN
    pagination_class = StandardPagination

    class InputSerializer(serializers.Serializer):
        operation = serializers.ChoiceField(choices=OPERATIONS)
        retain_hours = serializers.IntegerField(required=False, allow_null=True, min_value=0,
                                                help_text="VACUUM only: RETAIN n HOURS (at least the table's "
                                                          "delta.deletedFileRetentionDuration, else the run fails)")

    @extend_schema(operation_id="tables_maintenance_run", request=InputSerializer, responses={201: RunOutput})
    def post(self, request: Request, team: str, name: str, database: str, table: str) -> Response:
        maintenance_catalog(team=self.team, catalog=name)  # another team's catalog is a 404 before the body is read
        data = validated(self.InputSerializer, request.data)
        submission = maintenance_submit(team=self.team, catalog=name, database=database, table=table,
                                        operation=data["operation"], retain_hours=data.get("retain_hours"),
                                        user=request.user)
        return Response(RunOutput(submission.run).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="tables_maintenance_runs", responses=RunSummaryOutput(many=True))
    def get(self, request: Request, team: str, name: str, database: str, table: str) -> Response:
        jobs = maintenance_jobs(team=self.team, catalog=name, database=database, table=table)
        runs = JobRun.objects.filter(team=self.team, job_id__in=jobs).order_by("-id")
        paginator = StandardPagination()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response(RunSummaryOutput(page, many=True).data)
