"""REST endpoints for schedules under /api/v1/teams/{team}/schedules/ (thin views over services/selectors)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.pagination import StandardPagination
from core.api.validation import validated
from jobs.selectors import job_get
from schedules.cron import cron_preview, local_fire_times
from schedules.models import CatchUp, Concurrency, Schedule
from schedules.selectors import schedule_get, schedule_list, schedule_recent_fires
from schedules.services.schedules import (
    schedule_create,
    schedule_delete,
    schedule_pause,
    schedule_resume,
    schedule_update,
)
from teams.models import Role
from teams.permissions import TeamScopedMixin

TAGS = ["schedules"]
PREVIEW_COUNT = 5


class SchedulesMixin(TeamScopedMixin):
    """Viewers read; developers and admins write. Spec and parameter errors (InvalidInput) are 400s naming the field."""

    read_role = Role.VIEWER
    write_role = Role.DEVELOPER


# ---- schemas --------------------------------------------------------------------------------------------
class ScheduleInput(serializers.Serializer[Any]):
    job = serializers.IntegerField(help_text="Id of the job the schedule runs.")
    name = serializers.RegexField(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,199}$", max_length=200, error_messages={
        "invalid": "Use up to 200 letters, digits, spaces, '_', '.', '-', starting with a letter or digit."})
    cron = serializers.CharField(max_length=200, help_text="minute hour day-of-month month day-of-week")
    time_zone = serializers.CharField(max_length=64, required=False, default="UTC", help_text="IANA, e.g. Europe/Berlin")
    enabled = serializers.BooleanField(required=False, default=True)
    catchup = serializers.ChoiceField(choices=CatchUp.choices, required=False, default=CatchUp.SKIP)
    concurrency = serializers.ChoiceField(choices=Concurrency.choices, required=False, default=Concurrency.SKIP)
    max_retries = serializers.IntegerField(required=False, default=0, min_value=0, max_value=10)
    retry_backoff_seconds = serializers.IntegerField(required=False, default=60, min_value=1, max_value=86400)
    parameters = serializers.DictField(required=False, default=dict, help_text="Overrides of the job's defaults.")


class FireOutput(serializers.Serializer[Any]):
    fire_time = serializers.DateTimeField()
    status = serializers.CharField()
    run = serializers.IntegerField(source="run_id", allow_null=True)
    run_status = serializers.CharField(source="run.status", allow_null=True)
    attempts = serializers.IntegerField()
    message = serializers.CharField(allow_blank=True)


class NextFireTimes(serializers.ListField):
    """The schedule's next five ticks in its time zone while it is enabled (the field's source is the schedule)."""

    def to_representation(self, data: Schedule) -> list[str | None]:  # type: ignore[override]  # source: a Schedule
        if not data.enabled:
            return []
        return super().to_representation(
            local_fire_times(data.cron, data.time_zone, after=timezone.now(), count=PREVIEW_COUNT)
        )


class RecentFires(serializers.ListSerializer[Any]):
    """The schedule's latest fires, newest first (the field's source is the schedule)."""

    def to_representation(self, data: Schedule) -> list[dict[str, Any]]:  # type: ignore[override]  # a Schedule
        return super().to_representation(schedule_recent_fires(schedule=data))


# The body of every schedule answer (and its OpenAPI schema).
class ScheduleOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    job = serializers.IntegerField(source="job_id")
    job_name = serializers.CharField(source="job.name")
    cron = serializers.CharField()
    time_zone = serializers.CharField()
    enabled = serializers.BooleanField()
    catchup = serializers.ChoiceField(choices=CatchUp.choices)
    concurrency = serializers.ChoiceField(choices=Concurrency.choices)
    max_retries = serializers.IntegerField()
    retry_backoff_seconds = serializers.IntegerField()
    parameters = serializers.DictField()
    next_fire_at = serializers.DateTimeField(allow_null=True)
    next_fire_times = NextFireTimes(child=serializers.CharField(), source="*", help_text="The next five, local ISO 8601.")
    last_fire_at = serializers.DateTimeField(allow_null=True)
    recent_fires = RecentFires(child=FireOutput(), source="*")
    created_by = serializers.CharField(source="created_by.username", allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class PreviewErrorOutput(serializers.Serializer[Any]):
    field = serializers.CharField(help_text="cron | time_zone")
    message = serializers.CharField()


class PreviewOutput(serializers.Serializer[Any]):
    cron = serializers.CharField()
    time_zone = serializers.CharField()
    valid = serializers.BooleanField()
    next_fire_times = serializers.ListField(child=serializers.CharField())
    error = PreviewErrorOutput(allow_null=True, help_text="Why not valid; null when valid.")


# ---- views ----------------------------------------------------------------------------------------------
class ScheduleListApi(SchedulesMixin, APIView):
    """The team's schedules (`?job=ID` for one job's); developers create them."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(operation_id="schedules_list", tags=TAGS, responses=ScheduleOutput(many=True),
                   parameters=[OpenApiParameter("job", int, required=False)])
    def get(self, request: Request, team: str) -> Response:
        raw = request.query_params.get("job")
        if raw not in (None, "") and not str(raw).isdigit():
            raise exceptions.ValidationError({"job": ["Expected a job id."]})
        paginator = StandardPagination()
        page = paginator.paginate_queryset(schedule_list(team=self.team, job_id=int(raw) if raw else None),
                                           request, view=self)
        return paginator.get_paginated_response(ScheduleOutput(page, many=True).data)

    @extend_schema(operation_id="schedules_create", tags=TAGS, request=ScheduleInput, responses={201: ScheduleOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(ScheduleInput, request.data)
        job = job_get(team=self.team, job_id=data.pop("job"))
        schedule = schedule_create(team=self.team, user=request.user, job=job, **data)
        return Response(ScheduleOutput(schedule).data, status=status.HTTP_201_CREATED)


class ScheduleDetailApi(SchedulesMixin, APIView):
    """Read, change or delete one schedule."""

    @extend_schema(operation_id="schedules_get", tags=TAGS, responses=ScheduleOutput)
    def get(self, request: Request, team: str, schedule_id: int) -> Response:
        return Response(ScheduleOutput(schedule_get(team=self.team, schedule_id=schedule_id)).data)

    @extend_schema(operation_id="schedules_update", tags=TAGS, request=ScheduleInput, responses=ScheduleOutput)
    def patch(self, request: Request, team: str, schedule_id: int) -> Response:
        schedule = schedule_get(team=self.team, schedule_id=schedule_id)
        data = validated(ScheduleInput, request.data, partial=True)
        data = {k: v for k, v in data.items() if k in request.data}  # partial: defaults must not overwrite
        if "job" in data:
            data["job"] = job_get(team=self.team, job_id=data["job"])
        return Response(ScheduleOutput(schedule_update(schedule=schedule, data=data)).data)

    @extend_schema(operation_id="schedules_delete", tags=TAGS, responses={204: None})
    def delete(self, request: Request, team: str, schedule_id: int) -> Response:
        schedule_delete(schedule=schedule_get(team=self.team, schedule_id=schedule_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class SchedulePauseApi(SchedulesMixin, APIView):
    """Stop firing (no catch-up of paused ticks on resume)."""

    @extend_schema(operation_id="schedules_pause", tags=TAGS, request=None, responses=ScheduleOutput)
    def post(self, request: Request, team: str, schedule_id: int) -> Response:
        schedule = schedule_pause(schedule=schedule_get(team=self.team, schedule_id=schedule_id))
        return Response(ScheduleOutput(schedule).data)


class ScheduleResumeApi(SchedulesMixin, APIView):
    """Fire again from the next tick."""

    @extend_schema(operation_id="schedules_resume", tags=TAGS, request=None, responses=ScheduleOutput)
    def post(self, request: Request, team: str, schedule_id: int) -> Response:
        schedule = schedule_resume(schedule=schedule_get(team=self.team, schedule_id=schedule_id))
        return Response(ScheduleOutput(schedule).data)


class SchedulePreviewApi(SchedulesMixin, APIView):
    """The next five fire times of `?cron=…&time_zone=…` (the schedule editor calls it as you type).

    A half-typed expression is the normal case here, so it answers 200 with `valid: false` and the reason.
    """

    @extend_schema(operation_id="schedules_preview", tags=TAGS, responses=PreviewOutput,
                   parameters=[OpenApiParameter("cron", str, required=True),
                               OpenApiParameter("time_zone", str, required=False)])
    def get(self, request: Request, team: str) -> Response:
        cron = request.query_params.get("cron", "")
        time_zone = request.query_params.get("time_zone") or "UTC"
        return Response(PreviewOutput(cron_preview(cron, time_zone, after=timezone.now(), count=PREVIEW_COUNT)).data)
