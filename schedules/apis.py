"""REST endpoints for schedules under /api/v1/teams/{team}/schedules/ (thin views over services/selectors)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api.pagination import StandardPagination
from config.api.validation import validated
from jobs.apis import InvalidParameter
from jobs.selectors import job_get
from jobs.services.parameters import ParameterError
from schedules.cron import ScheduleSpecError, next_fire_times, zone
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


class InvalidSchedule(exceptions.APIException):
    """400 naming the cron expression or time zone that cannot be used, and why."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, error: ScheduleSpecError) -> None:
        super().__init__(detail={error.field: [error.message]}, code="invalid")
        self.default_detail = error.message  # the error handler shows default_detail for dict details


class SchedulesMixin(TeamScopedMixin):
    """Viewers read; developers and admins write. Spec and parameter errors become 400s naming the field."""

    read_role = Role.VIEWER
    write_role = Role.DEVELOPER

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ScheduleSpecError):
            exc = InvalidSchedule(exc)
        elif isinstance(exc, ParameterError):
            exc = InvalidParameter(exc)
        return super().handle_exception(exc)  # type: ignore[misc]


def _local_times(cron: str, time_zone: str, *, after: datetime) -> list[str]:
    tz = zone(time_zone)
    return [t.astimezone(tz).isoformat() for t in next_fire_times(cron, time_zone, after=after, count=PREVIEW_COUNT)]


def schedule_out(schedule: Schedule, *, now: datetime | None = None) -> dict[str, Any]:
    upcoming = (_local_times(schedule.cron, schedule.time_zone, after=now or timezone.now())
                if schedule.enabled else [])
    return {
        "id": schedule.id,
        "name": schedule.name,
        "job": schedule.job_id,
        "job_name": schedule.job.name,
        "cron": schedule.cron,
        "time_zone": schedule.time_zone,
        "enabled": schedule.enabled,
        "catchup": schedule.catchup,
        "concurrency": schedule.concurrency,
        "max_retries": schedule.max_retries,
        "retry_backoff_seconds": schedule.retry_backoff_seconds,
        "parameters": schedule.parameters,
        "next_fire_at": schedule.next_fire_at,
        "next_fire_times": upcoming,
        "last_fire_at": schedule.last_fire_at,
        "recent_fires": [
            {"fire_time": f.fire_time, "status": f.status, "run": f.run_id,
             "run_status": f.run.status if f.run else None, "attempts": f.attempts, "message": f.message}
            for f in schedule_recent_fires(schedule=schedule)
        ],
        "created_by": schedule.created_by.username if schedule.created_by else None,
        "created_at": schedule.created_at,
        "updated_at": schedule.updated_at,
    }


# ---- schemas --------------------------------------------------------------------------------------------
class ScheduleInput(serializers.Serializer):
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


class FireOutput(serializers.Serializer):
    fire_time = serializers.DateTimeField()
    status = serializers.CharField()
    run = serializers.IntegerField(allow_null=True)
    run_status = serializers.CharField(allow_null=True)
    attempts = serializers.IntegerField()
    message = serializers.CharField(allow_blank=True)


class ScheduleOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    job = serializers.IntegerField()
    job_name = serializers.CharField()
    cron = serializers.CharField()
    time_zone = serializers.CharField()
    enabled = serializers.BooleanField()
    catchup = serializers.ChoiceField(choices=CatchUp.choices)
    concurrency = serializers.ChoiceField(choices=Concurrency.choices)
    max_retries = serializers.IntegerField()
    retry_backoff_seconds = serializers.IntegerField()
    parameters = serializers.DictField()
    next_fire_at = serializers.DateTimeField(allow_null=True)
    next_fire_times = serializers.ListField(child=serializers.CharField(), help_text="The next five, local ISO 8601.")
    last_fire_at = serializers.DateTimeField(allow_null=True)
    recent_fires = FireOutput(many=True)
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class PreviewOutput(serializers.Serializer):
    cron = serializers.CharField()
    time_zone = serializers.CharField()
    valid = serializers.BooleanField()
    next_fire_times = serializers.ListField(child=serializers.CharField())
    error = serializers.DictField(allow_null=True, help_text='{"field", "message"} when not valid.')


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
        return paginator.get_paginated_response([schedule_out(s) for s in page])

    @extend_schema(operation_id="schedules_create", tags=TAGS, request=ScheduleInput, responses={201: ScheduleOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(ScheduleInput, request.data)
        job = job_get(team=self.team, job_id=data.pop("job"))
        schedule = schedule_create(team=self.team, user=request.user, job=job, **data)
        return Response(schedule_out(schedule), status=status.HTTP_201_CREATED)


class ScheduleDetailApi(SchedulesMixin, APIView):
    """Read, change or delete one schedule."""

    @extend_schema(operation_id="schedules_get", tags=TAGS, responses=ScheduleOutput)
    def get(self, request: Request, team: str, schedule_id: int) -> Response:
        return Response(schedule_out(schedule_get(team=self.team, schedule_id=schedule_id)))

    @extend_schema(operation_id="schedules_update", tags=TAGS, request=ScheduleInput, responses=ScheduleOutput)
    def patch(self, request: Request, team: str, schedule_id: int) -> Response:
        schedule = schedule_get(team=self.team, schedule_id=schedule_id)
        data = validated(ScheduleInput, request.data, partial=True)
        data = {k: v for k, v in data.items() if k in request.data}  # partial: defaults must not overwrite
        if "job" in data:
            data["job"] = job_get(team=self.team, job_id=data["job"])
        return Response(schedule_out(schedule_update(schedule=schedule, data=data)))

    @extend_schema(operation_id="schedules_delete", tags=TAGS, responses={204: None})
    def delete(self, request: Request, team: str, schedule_id: int) -> Response:
        schedule_delete(schedule=schedule_get(team=self.team, schedule_id=schedule_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class SchedulePauseApi(SchedulesMixin, APIView):
    """Stop firing (no catch-up of paused ticks on resume)."""

    @extend_schema(operation_id="schedules_pause", tags=TAGS, request=None, responses=ScheduleOutput)
    def post(self, request: Request, team: str, schedule_id: int) -> Response:
        return Response(schedule_out(schedule_pause(schedule=schedule_get(team=self.team, schedule_id=schedule_id))))


class ScheduleResumeApi(SchedulesMixin, APIView):
    """Fire again from the next tick."""

    @extend_schema(operation_id="schedules_resume", tags=TAGS, request=None, responses=ScheduleOutput)
    def post(self, request: Request, team: str, schedule_id: int) -> Response:
        return Response(schedule_out(schedule_resume(schedule=schedule_get(team=self.team, schedule_id=schedule_id))))


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
        try:
            times = _local_times(cron, time_zone, after=timezone.now())
        except ScheduleSpecError as exc:
            return Response({"cron": cron, "time_zone": time_zone, "valid": False, "next_fire_times": [],
                             "error": {"field": exc.field, "message": exc.message}})
        return Response({"cron": cron, "time_zone": time_zone, "valid": True, "next_fire_times": times, "error": None})
