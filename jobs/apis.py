"""REST endpoints for SQL jobs, runs, run logs and results, and the editor's validate/preview (thin views)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api.errors import Conflict
from config.api.pagination import StandardPagination
from config.api.validation import validated
from jobs.models import Engine, JobKind, JobRun, SqlJob
from jobs.selectors import job_get, job_list, run_get, run_list, run_log_page
from jobs.services.interactive import sql_preview, sql_validate
from jobs.services.jobs import job_create, job_delete, job_update
from jobs.services.parameters import ParameterError
from jobs.services.runs import run_cancel, run_submit
from lineage.services import SnapshotError, run_snapshot_create, snapshot_request_validate
from teams.models import Role
from teams.permissions import TeamScopedMixin

MAX_IDEMPOTENCY_KEY = 255


class InvalidParameter(exceptions.APIException):
    """400 whose message names the parameter (unknown, bad value, missing) and says what to send."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, error: ParameterError) -> None:
        super().__init__(detail={"parameters": {error.field: [error.message]}}, code="invalid")
        self.default_detail = error.message  # the error handler shows default_detail for dict details


class ParameterErrorsMixin:
    """Turns a service's ParameterError into a 400 naming the parameter."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ParameterError):
            exc = InvalidParameter(exc)
        return super().handle_exception(exc)  # type: ignore[misc]


class JobsMixin(ParameterErrorsMixin, TeamScopedMixin):
    """Viewers read; developers and admins write."""

    read_role = Role.VIEWER
    write_role = Role.DEVELOPER


# ---- output ---------------------------------------------------------------------------------------------
def job_out(job: SqlJob) -> dict[str, Any]:
    return {
        "id": job.id,
        "name": job.name,
        "sql": job.sql,
        "spark_conf": job.spark_conf,
        "default_catalog": job.default_catalog,
        "engine": job.engine,
        "kind": job.kind,
        "max_retries": job.max_retries,
        "parameters": job.parameters,
        "created_by": job.created_by.username if job.created_by else None,
        "created_at": job.created_at,
        "updated_at": job.updated_at,
    }


def run_out(run: JobRun, *, full: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": run.id,
        "job": run.job_id,
        "job_name": run.job.name,
        "status": run.status,
        "progress": run.progress,
        "error": run.error,
        "attempt": run.attempt,
        "engine": run.engine,
        "engine_used": run.engine_used,
        "worker": run.worker,
        "submitted_by": run.submitted_by.username if run.submitted_by else None,
        "cancel_requested": run.cancel_requested,
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "spark_app_id": run.spark_app_id or None,
        "spark_ui_url": run.spark_ui_url or None,
        "catalogs": run.catalogs_used,
        "parameters": run.parameters,
    }
    if full:
        data.update({"statements": run.statements, "spark_conf": run.spark_conf,
                     "default_catalog": run.default_catalog, "has_result": run.result is not None})
    return data


# ---- output schemas (OpenAPI only: the bodies are built by job_out/run_out above) ---------------------------
class JobOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    sql = serializers.CharField()
    spark_conf = serializers.DictField()
    default_catalog = serializers.CharField(allow_blank=True)
    engine = serializers.ChoiceField(choices=Engine.choices)
    kind = serializers.ChoiceField(choices=JobKind.choices, help_text="streaming jobs run by stream/start/.")
    max_retries = serializers.IntegerField()
    parameters = serializers.DictField(child=serializers.DictField())
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class RunSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    job = serializers.IntegerField()
    job_name = serializers.CharField()
    status = serializers.CharField()
    progress = serializers.DictField(child=serializers.IntegerField())
    error = serializers.DictField(allow_null=True)
    attempt = serializers.IntegerField()
    engine = serializers.CharField()
    engine_used = serializers.CharField(allow_blank=True)
    worker = serializers.CharField(allow_blank=True)
    submitted_by = serializers.CharField(allow_null=True)
    cancel_requested = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    spark_app_id = serializers.CharField(allow_null=True)
    spark_ui_url = serializers.CharField(allow_null=True)
    catalogs = serializers.ListField(child=serializers.CharField())
    parameters = serializers.DictField(child=serializers.DictField(), help_text='{name: {"type", "value"}}')


class RunOutput(RunSummaryOutput):
    statements = serializers.ListField(child=serializers.DictField())
    spark_conf = serializers.DictField()
    default_catalog = serializers.CharField(allow_blank=True)
    has_result = serializers.BooleanField()


class RunLogOutput(serializers.Serializer):
    offset = serializers.IntegerField()
    next_offset = serializers.IntegerField()
    finished = serializers.BooleanField()
    status = serializers.CharField()
    lines = serializers.ListField(child=serializers.DictField())


class RunResultOutput(serializers.Serializer):
    columns = serializers.ListField(child=serializers.DictField())
    rows = serializers.ListField(child=serializers.ListField(child=serializers.JSONField()))
    truncated = serializers.BooleanField()


# ---- input ----------------------------------------------------------------------------------------------
class JobInput(serializers.Serializer):
    name = serializers.RegexField(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,199}$", max_length=200, error_messages={
        "invalid": "Use up to 200 letters, digits, spaces, '_', '.', '-', starting with a letter or digit."})
    sql = serializers.CharField(trim_whitespace=False, allow_blank=True, error_messages={"blank": "The SQL script is empty."})
    spark_conf = serializers.DictField(required=False, default=dict)
    default_catalog = serializers.CharField(required=False, allow_blank=True, default="", max_length=63)
    engine = serializers.ChoiceField(choices=Engine.choices, required=False, default=Engine.DEFAULT)
    kind = serializers.ChoiceField(choices=JobKind.choices, required=False, default=JobKind.BATCH, help_text=(
        "streaming: the SQL's last statement is a streaming INSERT … FROM STREAM(…); started with stream/start/."))
    max_retries = serializers.IntegerField(required=False, default=0, min_value=0, max_value=5)
    parameters = serializers.DictField(required=False, default=dict,
                                       help_text='`${name}` parameters: {name: {"type": "date", "default": "…"}}.')


class RunInput(serializers.Serializer):
    parameters = serializers.DictField(required=False, default=dict, help_text="Values overriding the defaults.")
    snapshot = serializers.DictField(required=False, allow_null=True, help_text=(
        'Delta inputs read as of one time, {"as_of": "<ISO 8601>"}, or at the versions an earlier run read, '
        '{"like_run": <run id>}.'))


class JobListApi(JobsMixin, APIView):
    """The team's SQL jobs; developers create them."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(responses=JobOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(job_list(team=self.team), request, view=self)
        return paginator.get_paginated_response([job_out(j) for j in page])

    @extend_schema(request=JobInput, responses={201: JobOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(JobInput, request.data)
        job = job_create(team=self.team, user=request.user, **data)
        return Response(job_out(job), status=status.HTTP_201_CREATED)


class JobDetailApi(JobsMixin, APIView):
    """Read, change or delete one job."""

    @extend_schema(responses=JobOutput)
    def get(self, request: Request, team: str, job_id: int) -> Response:
        return Response(job_out(job_get(team=self.team, job_id=job_id)))

    @extend_schema(request=JobInput, responses=JobOutput)
    def patch(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        data = validated(JobInput, request.data, partial=True)
        data = {k: v for k, v in data.items() if k in request.data}  # partial: defaults must not overwrite
        return Response(job_out(job_update(job=job, data=data)))

    @extend_schema(request=JobInput, responses=JobOutput)
    def put(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        return Response(job_out(job_update(job=job, data=validated(JobInput, request.data))))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, job_id: int) -> Response:
        job_delete(job=job_get(team=self.team, job_id=job_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class JobRunsApi(JobsMixin, APIView):
    """Submit a run of a job (`Idempotency-Key` makes a repeated submit return the same run); list its runs."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(request=RunInput, responses={200: RunOutput, 201: RunOutput},
                   parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=False)])
    def post(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and (len(key) > MAX_IDEMPOTENCY_KEY or not key.isprintable()):
            raise exceptions.ValidationError({"Idempotency-Key": [f"Use at most {MAX_IDEMPOTENCY_KEY} printable characters."]})
        data = validated(RunInput, request.data or {})
        try:
            snapshot = snapshot_request_validate(team_id=self.team.id, data=data.get("snapshot"))
        except SnapshotError as exc:
            raise exceptions.ValidationError({exc.field: [exc.message]}) from None
        with transaction.atomic():  # the snapshot is stored before the run's task is sent (on commit)
            submission = run_submit(job=job, user=request.user, idempotency_key=key, parameters=data["parameters"])
            if snapshot is not None and submission.created:
                run_snapshot_create(run=submission.run, request=snapshot)
        code = status.HTTP_201_CREATED if submission.created else status.HTTP_200_OK
        return Response(run_out(submission.run), status=code)

    @extend_schema(responses=RunSummaryOutput(many=True))
    def get(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        paginator = StandardPagination()
        page = paginator.paginate_queryset(run_list(team=self.team, job_id=job.id), request, view=self)
        return paginator.get_paginated_response([run_out(r, full=False) for r in page])


def _datetime_param(request: Request, name: str) -> Any:
    raw = request.query_params.get(name)
    if not raw:
        return None
    value = parse_datetime(raw)
    if value is None:
        raise exceptions.ValidationError({name: ["Use an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z."]})
    return value


def _int_param(request: Request, name: str, default: int | None = None) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise exceptions.ValidationError({name: ["Expected a non-negative integer."]}) from None
    if value < 0:
        raise exceptions.ValidationError({name: ["Expected a non-negative integer."]})
    return value


class RunListApi(JobsMixin, APIView):
    """The team's runs, newest first: `?job=ID&status=RUNNING,QUEUED&user=NAME&since=…&until=…`."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(responses=RunSummaryOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        statuses = [s.strip().upper() for s in request.query_params.get("status", "").split(",") if s.strip()]
        qs = run_list(team=self.team, job_id=_int_param(request, "job"), statuses=statuses,
                      username=request.query_params.get("user") or None,
                      since=_datetime_param(request, "since"), until=_datetime_param(request, "until"))
        paginator = StandardPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([run_out(r, full=False) for r in page])


class RunDetailApi(JobsMixin, APIView):
    """One run: status, live progress, per-statement status and timing, error, catalogs used."""

    @extend_schema(responses=RunOutput)
    def get(self, request: Request, team: str, run_id: int) -> Response:
        return Response(run_out(run_get(team=self.team, run_id=run_id)))


class RunLogApi(JobsMixin, APIView):
    """Incremental log: `?offset=N` returns lines from N on and `next_offset`."""

    @extend_schema(responses=RunLogOutput)
    def get(self, request: Request, team: str, run_id: int) -> Response:
        run = run_get(team=self.team, run_id=run_id)
        page = run_log_page(run=run, offset=_int_param(request, "offset", 0) or 0,
                            limit=_int_param(request, "limit", 1000) or 1000)
        return Response({"offset": page.offset, "next_offset": page.next_offset, "finished": page.finished,
                         "status": run.status, "lines": page.lines})


class RunResultApi(JobsMixin, APIView):
    """The bounded preview of the run's last query: `{"columns", "rows", "truncated"}`."""

    @extend_schema(responses=RunResultOutput)
    def get(self, request: Request, team: str, run_id: int) -> Response:
        run = run_get(team=self.team, run_id=run_id)
        if not run.is_finished:
            raise Conflict(f"Run {run.id} is {run.status}; its result is available when it finishes.")
        result = run.result or {"columns": [], "rows": [], "truncated": False}
        return Response({"columns": result.get("columns") or [], "rows": result.get("rows") or [],
                         "truncated": bool(result.get("truncated"))})


class RunCancelApi(JobsMixin, APIView):
    """Cancel a queued or running run; a finished run answers 409."""

    @extend_schema(request=None, responses={202: RunOutput})
    def post(self, request: Request, team: str, run_id: int) -> Response:
        run = run_cancel(run=run_get(team=self.team, run_id=run_id))
        return Response(run_out(run), status=status.HTTP_202_ACCEPTED)


# ---- the editor: validate and preview on the warm engine -------------------------------------------------
class ValidateInput(serializers.Serializer):
    sql = serializers.CharField(trim_whitespace=False, allow_blank=True)
    job = serializers.IntegerField(required=False, allow_null=True, default=None, help_text=(
        "A job of the team whose `${name}` parameter declarations and defaults the script uses."))
    parameters = serializers.DictField(required=False, default=dict, help_text=(
        "Values for the script's `${name}` parameters (as a run's `parameters`); `${ds}`/`${ts}` are now."))


class PreviewInput(ValidateInput):
    limit = serializers.IntegerField(required=False, default=100, min_value=1, max_value=1000)


class SqlValidateApi(JobsMixin, APIView):
    """Split, parse and analyse a script without executing it: `{"valid", "errors", "schema"}`."""

    write_role = Role.DEVELOPER

    @extend_schema(request=ValidateInput, responses={200: None})
    def post(self, request: Request, team: str) -> Response:
        data = validated(ValidateInput, request.data)
        return Response(sql_validate(team=self.team, sql=data["sql"], job_id=data["job"],
                                     parameters=data["parameters"]).as_dict())


class SqlPreviewApi(JobsMixin, APIView):
    """Run one read-only query with a row limit on the warm engine: `{"columns", "rows", "truncated"}`."""

    write_role = Role.DEVELOPER

    @extend_schema(request=PreviewInput, responses={200: None})
    def post(self, request: Request, team: str) -> Response:
        data = validated(PreviewInput, request.data)
        return Response(sql_preview(team=self.team, sql=data["sql"], limit=data["limit"], job_id=data["job"],
                                    parameters=data["parameters"]))
