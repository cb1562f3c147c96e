"""REST endpoints for SQL jobs, runs, run logs and results, and the editor's validate/preview (thin views)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.outputs import ResultColumnOutput, ResultRows, TrueOrAbsent
from core.api.pagination import StandardPagination
from core.api.validation import query_datetime, query_int, query_seconds, validated
from jobs.hooks import SubmissionRefused, submission_store, submission_validate
from jobs.models import Engine, JobKind, JobRun
from jobs.selectors import job_get, job_list, run_get, run_list, run_log_page, run_result_get
from jobs.services.interactive import sql_preview, sql_validate
from jobs.services.jobs import job_create, job_delete, job_update
from jobs.services.run_waits import MAX_WAIT_SECONDS, run_await_end
from jobs.services.runs import run_cancel, run_submit
from lakeport_engine.script import StatementStatus
from lakeport_engine.sqltext import utf16_offsets
from teams.models import Role
from teams.permissions import TeamScopedMixin

MAX_IDEMPOTENCY_KEY = 255


class JobsMixin(TeamScopedMixin):
    """Viewers read; developers and admins write. A service's ParameterError is a 400 naming the parameter."""

    read_role = Role.VIEWER
    write_role = Role.DEVELOPER


# ---- output: job and run bodies are serialized by these (and documented by them) ----------------------
def statements_out(run: JobRun) -> list[dict[str, Any]]:
    """The run's statements with `start`/`end` in UTF-16 code units of its script, as `sql/validate/` counts them.

    One recorded before spans existed has none, and a failed one there had its error position as `line`/`column`
    (the run's `error` keeps it): null, so `line` is only ever where a statement starts.
    """
    js = utf16_offsets(run.sql)
    out: list[dict[str, Any]] = []
    for entry in run.statements or []:
        start, end = entry.get("start"), entry.get("end")
        item = {**entry, "start": js(start) if isinstance(start, int) else None,
                "end": js(end) if isinstance(end, int) else None}
        if "start" not in entry and entry.get("status") == StatementStatus.FAILED:
            item.update(line=None, column=None)
        out.append(item)
    return out


class ParameterDeclarationOutput(serializers.Serializer):
    type = serializers.CharField(help_text="string | int | bigint | double | decimal | boolean | date | timestamp")
    default = serializers.CharField(allow_null=True)


class ParameterValueOutput(serializers.Serializer):
    type = serializers.CharField()
    value = serializers.CharField(help_text="The value as the SQL literal the run used.")


class RunErrorOutput(serializers.Serializer):
    """Why a run (or a live preview) failed; a run cancelled by a user has only `message`."""

    statement = serializers.IntegerField(allow_null=True, required=False, help_text="0-based statement, if known.")
    line = serializers.IntegerField(allow_null=True, required=False)
    column = serializers.IntegerField(allow_null=True, required=False)
    message = serializers.CharField()


class RunLogLineOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    ts = serializers.DateTimeField()
    level = serializers.CharField()
    message = serializers.CharField()


class JobOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    sql = serializers.CharField()
    spark_conf = serializers.DictField()
    default_catalog = serializers.CharField(allow_blank=True)
    engine = serializers.ChoiceField(choices=Engine.choices)
    kind = serializers.ChoiceField(choices=JobKind.choices, help_text="streaming jobs run by stream/start/.")
    max_retries = serializers.IntegerField()
    parameters = serializers.DictField(child=ParameterDeclarationOutput())
    created_by = serializers.CharField(source="created_by.username", allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class BlankAsNull(serializers.CharField):
    """A text column that is blank until set (a Spark application id, its UI address): null while blank."""

    def to_representation(self, value: str) -> str | None:
        return value or None


class HasResult(serializers.BooleanField):
    """Whether the run kept a result preview (the field's source is the run): GET …/result/ has rows."""

    def to_representation(self, value: JobRun) -> bool:
        return value.result is not None


@extend_schema_field(RunErrorOutput(allow_null=True))
class StoredError(serializers.JSONField):
    """The run's `error` as recorded: a cancelled run's has only `message` (RunErrorOutput would add null keys)."""


class RunSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    job = serializers.IntegerField(source="job_id")
    job_name = serializers.CharField(source="job.name")
    status = serializers.CharField()
    progress = serializers.DictField(child=serializers.IntegerField())
    error = StoredError(allow_null=True)
    attempt = serializers.IntegerField()
    engine = serializers.CharField()
    engine_used = serializers.CharField(allow_blank=True)
    worker = serializers.CharField(allow_blank=True)
    submitted_by = serializers.CharField(source="submitted_by.username", allow_null=True)
    cancel_requested = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    spark_app_id = BlankAsNull(allow_null=True)
    spark_ui_url = BlankAsNull(source="spark_ui_path", allow_null=True, help_text=(
        "The run's Spark UI through Lakeport (`/t/{team}/runs/{id}/spark/`, for the team's members) while the "
        "engine that ran it lives; null before the engine reported one."))
    catalogs = serializers.ListField(source="catalogs_used", child=serializers.CharField())
    parameters = serializers.DictField(child=ParameterValueOutput(), help_text="The values the run used, by name.")


OFFSETS = "UTF-16 code units (JavaScript string indices; character offsets unless an emoji comes before)"


class RunStatementOutput(serializers.Serializer):
    index = serializers.IntegerField(help_text="0-based, as the run error's `statement`.")
    sql = serializers.CharField(help_text="The statement's text (secrets masked, at most 2,000 characters).")
    status = serializers.CharField(help_text="running, succeeded, failed or skipped.")
    started_at = serializers.CharField(allow_null=True)
    elapsed_ms = serializers.IntegerField(allow_null=True)
    rows = serializers.IntegerField(allow_null=True, help_text="Rows of its result kept for the preview.")
    truncated = serializers.BooleanField()
    line = serializers.IntegerField(allow_null=True, help_text=(
        "1-based line of the run's script where the statement starts (the run's `error` has where it failed); "
        "null while it has not finished, and for a failed statement of a run recorded before API 1.2.0."))
    column = serializers.IntegerField(allow_null=True, help_text="1-based column where it starts (as `line`).")
    start = serializers.IntegerField(allow_null=True, help_text=(
        f"Offset of its first character in the run's script, in {OFFSETS}; null for runs recorded before 1.2.0."))
    end = serializers.IntegerField(allow_null=True, help_text="Offset just past its last character (no `;`).")
    error = serializers.CharField(allow_null=True)


@extend_schema_field(RunStatementOutput(many=True))
class RunStatements(serializers.Field):
    """The run's statements as statements_out gives them (the field's source is the run): spans in UTF-16."""

    def to_representation(self, value: JobRun) -> list[dict[str, Any]]:
        return statements_out(value)


class RunOutput(RunSummaryOutput):
    statements = RunStatements(source="*")
    spark_conf = serializers.DictField()
    default_catalog = serializers.CharField(allow_blank=True)
    has_result = HasResult(source="*")


class RunLogOutput(serializers.Serializer):
    offset = serializers.IntegerField()
    next_offset = serializers.IntegerField()
    finished = serializers.BooleanField()
    status = serializers.CharField()
    lines = RunLogLineOutput(many=True)


class RunResultOutput(serializers.Serializer):
    columns = ResultColumnOutput(many=True)
    rows = ResultRows()
    truncated = serializers.BooleanField()


class SqlPreviewOutput(RunResultOutput):
    streaming = TrueOrAbsent(required=False, help_text=(
        "Present (true) when the statement reads STREAM(…): rows of a batch over each source's newest records."))


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
        '{"like_run": <run id>}, or at one consistent cut of the materialized view pipeline it reads, '
        '{"consistent": true}.'))


class JobListApi(JobsMixin, APIView):
    """The team's SQL jobs; developers create them."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(responses=JobOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(job_list(team=self.team), request, view=self)
        return paginator.get_paginated_response(JobOutput(page, many=True).data)

    @extend_schema(request=JobInput, responses={201: JobOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(JobInput, request.data)
        job = job_create(team=self.team, user=request.user, **data)
        return Response(JobOutput(job).data, status=status.HTTP_201_CREATED)


class JobDetailApi(JobsMixin, APIView):
    """Read, change or delete one job."""

    @extend_schema(responses=JobOutput)
    def get(self, request: Request, team: str, job_id: int) -> Response:
        return Response(JobOutput(job_get(team=self.team, job_id=job_id)).data)

    @extend_schema(request=JobInput, responses=JobOutput)
    def patch(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        data = validated(JobInput, request.data, partial=True)
        data = {k: v for k, v in data.items() if k in request.data}  # partial: defaults must not overwrite
        return Response(JobOutput(job_update(job=job, data=data)).data)

    @extend_schema(request=JobInput, responses=JobOutput)
    def put(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        return Response(JobOutput(job_update(job=job, data=validated(JobInput, request.data))).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, job_id: int) -> Response:
        job_delete(job=job_get(team=self.team, job_id=job_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


WAIT_PARAMETER = OpenApiParameter(
    "wait", float, OpenApiParameter.QUERY, required=False,
    description=(f"Seconds (0 to {MAX_WAIT_SECONDS:g}, decimals allowed) to hold the answer until the run has ended "
                 "(SUCCEEDED, FAILED or CANCELLED). The body is the run as it is when the run ends or the time is up, "
                 "whichever is first: check `status`. Without it (or 0) the answer is immediate. A server answers at "
                 "once when too many requests already wait (`LAKEPORT_RUN_WAITERS` per web process)."))


class JobRunsApi(JobsMixin, APIView):
    """Submit a run of a job (`Idempotency-Key` makes a repeated submit return the same run); list its runs."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(request=RunInput, responses={200: RunOutput, 201: RunOutput},
                   parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=False),
                               WAIT_PARAMETER])
    def post(self, request: Request, team: str, job_id: int) -> Response:
        wait = query_seconds(request, "wait", MAX_WAIT_SECONDS)  # a bad wait is refused before anything is submitted
        job = job_get(team=self.team, job_id=job_id)
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and (len(key) > MAX_IDEMPOTENCY_KEY or not key.isprintable()):
            raise exceptions.ValidationError({"Idempotency-Key": [f"Use at most {MAX_IDEMPOTENCY_KEY} printable characters."]})
        data = validated(RunInput, request.data or {})
        try:  # fields other apps own (lineage: `snapshot`), through jobs/hooks.py
            extras = submission_validate(team_id=self.team.id, body=data)
        except SubmissionRefused as exc:
            raise exceptions.ValidationError({exc.field: [exc.message]}) from None
        with transaction.atomic():  # the snapshot is stored before the run's task is sent (on commit)
            submission = run_submit(job=job, user=request.user, idempotency_key=key, parameters=data["parameters"])
            if submission.created:
                submission_store(run=submission.run, validated=extras)
        code = status.HTTP_201_CREATED if submission.created else status.HTTP_200_OK
        return Response(RunOutput(run_await_end(run=submission.run, seconds=wait)).data, status=code)

    @extend_schema(responses=RunSummaryOutput(many=True))
    def get(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        paginator = StandardPagination()
        page = paginator.paginate_queryset(run_list(team=self.team, job_id=job.id), request, view=self)
        return paginator.get_paginated_response(RunSummaryOutput(page, many=True).data)


class RunListApi(JobsMixin, APIView):
    """The team's runs, newest first: `?job=ID&status=RUNNING,QUEUED&user=NAME&since=…&until=…`."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(responses=RunSummaryOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        statuses = [s.strip().upper() for s in request.query_params.get("status", "").split(",") if s.strip()]
        qs = run_list(team=self.team, job_id=query_int(request, "job"), statuses=statuses,
                      username=request.query_params.get("user") or None,
                      since=query_datetime(request, "since"), until=query_datetime(request, "until"))
        paginator = StandardPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response(RunSummaryOutput(page, many=True).data)


class RunDetailApi(JobsMixin, APIView):
    """One run: status, live progress, per-statement status and timing, error, catalogs used."""

    @extend_schema(responses=RunOutput, parameters=[WAIT_PARAMETER])
    def get(self, request: Request, team: str, run_id: int) -> Response:
        wait = query_seconds(request, "wait", MAX_WAIT_SECONDS)
        return Response(RunOutput(run_await_end(run=run_get(team=self.team, run_id=run_id), seconds=wait)).data)


class RunLogApi(JobsMixin, APIView):
    """Incremental log: `?offset=N` returns lines from N on and `next_offset`."""

    @extend_schema(responses=RunLogOutput)
    def get(self, request: Request, team: str, run_id: int) -> Response:
        run = run_get(team=self.team, run_id=run_id)
        page = run_log_page(run=run, offset=query_int(request, "offset", 0) or 0,
                            limit=query_int(request, "limit", 1000) or 1000)
        return Response(RunLogOutput(page).data)


class RunResultApi(JobsMixin, APIView):
    """The bounded preview of the run's last query: `{"columns", "rows", "truncated"}`."""

    @extend_schema(responses=RunResultOutput)
    def get(self, request: Request, team: str, run_id: int) -> Response:
        return Response(RunResultOutput(run_result_get(run=run_get(team=self.team, run_id=run_id))).data)


class RunCancelApi(JobsMixin, APIView):
    """Cancel a queued or running run; a finished run answers 409."""

    @extend_schema(request=None, responses={202: RunOutput})
    def post(self, request: Request, team: str, run_id: int) -> Response:
        run = run_cancel(run=run_get(team=self.team, run_id=run_id))
        return Response(RunOutput(run).data, status=status.HTTP_202_ACCEPTED)


# ---- the editor: validate and preview on the warm engine -------------------------------------------------
class EditorInput(serializers.Serializer):
    sql = serializers.CharField(trim_whitespace=False, allow_blank=True)
    job = serializers.IntegerField(required=False, allow_null=True, default=None, help_text=(
        "A job of the team whose `${name}` parameter declarations and defaults the script uses."))
    parameters = serializers.DictField(required=False, default=dict, help_text=(
        "Values for the script's `${name}` parameters (as a run's `parameters`); `${ds}`/`${ts}` are now."))
    default_catalog = serializers.CharField(required=False, allow_blank=True, default="", max_length=63, help_text=(
        "A catalog of the team where unqualified names resolve, as a run of a job with this `default_catalog` "
        "(the script's own USE CATALOG still wins); an unknown one is a 400 naming this field."))


class ValidateInput(EditorInput):
    syntax_while_starting = serializers.BooleanField(required=False, default=False, help_text=(
        "When the team's engine is still starting, answer at once with Spark's own parser alone (`checked` is "
        '`"syntax"`: names, types and the platform\'s rules are checked once the engine is up) instead of waiting '
        "for the start. The SQL editor sends it and validates again when the answer was syntax only."))


class StatementSpanOutput(serializers.Serializer):
    index = serializers.IntegerField(help_text="0-based, as an error's `statement`.")
    start = serializers.IntegerField(help_text=f"Offset of its first character in the submitted `sql`, in {OFFSETS}.")
    end = serializers.IntegerField(help_text="Offset just past its last character (the `;` is not part of it).")
    line = serializers.IntegerField(help_text="1-based line where it starts.")


class SqlErrorOutput(serializers.Serializer):
    statement = serializers.IntegerField(allow_null=True, help_text="0-based index into `statements`, if known.")
    line = serializers.IntegerField(allow_null=True, help_text="1-based line in the script as written.")
    column = serializers.IntegerField(allow_null=True, help_text="1-based column, in characters of that line.")
    message = serializers.CharField()


class ValidationOutput(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = SqlErrorOutput(many=True)
    schema = serializers.ListField(child=serializers.DictField(child=serializers.CharField()), help_text=(
        'Output columns of the last query, [{"name", "type"}], when the script analyses cleanly.'))
    statements = StatementSpanOutput(many=True, help_text=(
        "Every statement of the script as written, split by the server's lexer (`;` in strings, quoted names and "
        "comments does not split); empty for an empty or oversized script."))
    checked = serializers.ChoiceField(choices=["full", "syntax"], help_text=(
        '`"full"`: split, parsed, analysed against the team\'s catalogs and checked by the platform\'s rules in '
        'the team\'s engine; `"syntax"`: split and parsed by Spark\'s parser only, because the engine was still '
        "starting and the request set `syntax_while_starting` (validate again for the full check)."))


class PreviewSnapshotInput(serializers.Serializer):
    consistent = serializers.BooleanField(help_text=(
        "true: read the query's Delta tables at one consistent cut of their materialized view pipeline, as a run's "
        '{"snapshot": {"consistent": true}} (docs/materialized-views.md).'))

    def to_internal_value(self, data: Any) -> Any:
        unknown = sorted(set(data) - {"consistent"}) if isinstance(data, dict) else []
        if unknown:  # a preview reads the newest or one consistent cut: no as_of/like_run here
            raise serializers.ValidationError({k: ["Unknown field; a preview takes only consistent."] for k in unknown})
        return super().to_internal_value(data)

    def validate_consistent(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError('Only {"consistent": true}; leave `snapshot` out to read the newest.')
        return value


class PreviewInput(EditorInput):
    limit = serializers.IntegerField(required=False, default=100, min_value=1, max_value=1000)
    snapshot = PreviewSnapshotInput(required=False, allow_null=True, default=None, help_text=(
        'The editor\'s consistent-read switch: {"consistent": true}.'))


class SqlValidateApi(JobsMixin, APIView):
    """Split, parse and analyse a script without executing it: `{"valid", "errors", "schema", "statements"}`."""

    write_role = Role.DEVELOPER

    @extend_schema(request=ValidateInput, responses={200: ValidationOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(ValidateInput, request.data)
        report = sql_validate(team=self.team, sql=data["sql"], job_id=data["job"], parameters=data["parameters"],
                              default_catalog=data["default_catalog"], user=request.user,
                              syntax_while_starting=data["syntax_while_starting"])
        return Response(ValidationOutput(report).data)


class SqlPreviewApi(JobsMixin, APIView):
    """Run one read-only query with a row limit on the warm engine: `{"columns", "rows", "truncated"}`."""

    write_role = Role.DEVELOPER

    @extend_schema(request=PreviewInput, responses={200: SqlPreviewOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(PreviewInput, request.data)
        preview = sql_preview(team=self.team, sql=data["sql"], limit=data["limit"], job_id=data["job"],
                              parameters=data["parameters"], default_catalog=data["default_catalog"],
                              consistent=bool((data.get("snapshot") or {}).get("consistent")), user=request.user)
        return Response(SqlPreviewOutput(preview).data)
