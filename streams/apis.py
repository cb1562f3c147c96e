"""REST endpoints of a streaming job's stream: state, start/stop/restart/reset, metrics (thin views)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.pagination import StandardPagination
from core.api.validation import query_datetime, validated
from jobs.selectors import job_get
from streams.models import Desired, StreamState, StreamStatus
from streams.permissions import STREAM_READ_ROLE, STREAM_WRITE_ROLE
from streams.selectors import metrics_range, stream_audit_list, stream_view
from streams.services.lifecycle import stream_reset, stream_restart, stream_start, stream_state, stream_stop
from teams.permissions import TeamScopedMixin

TAG = "streams"


class StreamsMixin(TeamScopedMixin):
    """Viewers read; developers and admins of the job's team act; other teams get 404."""

    read_role = STREAM_READ_ROLE
    write_role = STREAM_WRITE_ROLE


# ---- bodies: every stream answer is serialized by these (and documented by them) ---------------------------
class StreamMetricOutput(serializers.Serializer[Any]):
    batch_id = serializers.IntegerField()
    ts = serializers.DateTimeField()
    input_rows = serializers.IntegerField()
    input_rows_per_second = serializers.FloatField(allow_null=True)
    processed_rows_per_second = serializers.FloatField(allow_null=True)
    output_rows = serializers.IntegerField(allow_null=True)
    output_rows_per_second = serializers.FloatField(allow_null=True)
    duration_ms = serializers.IntegerField()
    watermark = serializers.DateTimeField(allow_null=True)
    state_rows = serializers.IntegerField(allow_null=True)
    state_memory_bytes = serializers.IntegerField(allow_null=True)
    lag = serializers.IntegerField(allow_null=True, help_text="Records the sources hold beyond this batch.")


class StreamStateOutput(serializers.Serializer[Any]):
    # Serializes a streams.selectors.StreamView.
    status = serializers.ChoiceField(source="state.status", choices=StreamStatus.choices)
    desired = serializers.ChoiceField(source="state.desired", choices=Desired.choices)
    restarts = serializers.IntegerField(source="state.restarts")
    last_error = serializers.CharField(source="state.last_error", allow_null=True)
    query_id = serializers.CharField(source="state.query_id", allow_null=True)
    started_at = serializers.DateTimeField(source="state.started_at", allow_null=True)
    heartbeat_at = serializers.DateTimeField(source="state.heartbeat_at", allow_null=True)
    checkpoint_generation = serializers.IntegerField(source="state.checkpoint_generation")
    latest = StreamMetricOutput(allow_null=True)
    falling_behind = serializers.BooleanField(help_text="The source lag grew over the last N batches.")


def stream_body(state: StreamState) -> dict[str, Any]:
    """The stream as every answer (and `manage.py stream`/`runjob`) shows it: StreamStateOutput of its view."""
    return dict(StreamStateOutput(stream_view(state)).data)


class StreamMetricsOutput(serializers.Serializer[Any]):
    results = StreamMetricOutput(many=True)


class StreamResetInput(serializers.Serializer[Any]):
    confirm = serializers.BooleanField(required=False, default=False,
                                       help_text="Must be true: the next start replays every source.")


class StreamApi(StreamsMixin, APIView):
    """The stream of a streaming job: status, what was asked, restarts, the latest batch."""

    @extend_schema(operation_id="streams_get", tags=[TAG], responses=StreamStateOutput)
    def get(self, request: Request, team: str, job_id: int) -> Response:
        return Response(stream_body(stream_state(job_get(team=self.team, job_id=job_id))))


class StreamStartApi(StreamsMixin, APIView):
    """Start the stream (409 unless STOPPED or FAILED); a worker's supervisor starts its driver.

    A statement that cannot start is a 400 before anything changes: a parameter without a usable default
    (`details.parameters`), or (`details.sql`, naming the statement, its line and the rule) a script that is not
    batch statements then one streaming INSERT, an unknown EMIT clause, a STREAM(…) or target in a catalog the
    team does not have, a STREAM(…) of a catalog type that cannot stream.
    """

    @extend_schema(operation_id="streams_start", tags=[TAG], request=None, responses={202: StreamStateOutput})
    def post(self, request: Request, team: str, job_id: int) -> Response:
        state = stream_start(job=job_get(team=self.team, job_id=job_id), user=request.user)
        return Response(stream_body(state), status=status.HTTP_202_ACCEPTED)


class StreamStopApi(StreamsMixin, APIView):
    """Stop the stream gracefully: the batch in flight finishes (409 if STOPPED or FAILED)."""

    @extend_schema(operation_id="streams_stop", tags=[TAG], request=None, responses={202: StreamStateOutput})
    def post(self, request: Request, team: str, job_id: int) -> Response:
        state = stream_stop(job=job_get(team=self.team, job_id=job_id), user=request.user)
        return Response(stream_body(state), status=status.HTTP_202_ACCEPTED)


class StreamRestartApi(StreamsMixin, APIView):
    """Restart the driver on the same checkpoint (a stopped stream is started).

    A statement that cannot start is a 400 (the checks of start) and a running driver is left alone.
    """

    @extend_schema(operation_id="streams_restart", tags=[TAG], request=None, responses={202: StreamStateOutput})
    def post(self, request: Request, team: str, job_id: int) -> Response:
        state = stream_restart(job=job_get(team=self.team, job_id=job_id), user=request.user)
        return Response(stream_body(state), status=status.HTTP_202_ACCEPTED)


class StreamResetApi(StreamsMixin, APIView):
    """A new checkpoint: the next start reads every source from its beginning. STOPPED or FAILED only; audited."""

    @extend_schema(operation_id="streams_reset", tags=[TAG], request=StreamResetInput,
                   responses={202: StreamStateOutput})
    def post(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        data = validated(StreamResetInput, request.data or {})
        state = stream_reset(job=job, user=request.user, confirm=data["confirm"])
        return Response(stream_body(state), status=status.HTTP_202_ACCEPTED)


class StreamMetricsApi(StreamsMixin, APIView):
    """Per-batch metrics in `[since, until]`, oldest first, at most 2000 (the newest when there are more)."""

    @extend_schema(operation_id="streams_metrics", tags=[TAG], responses=StreamMetricsOutput, parameters=[
        OpenApiParameter("since", str, OpenApiParameter.QUERY, required=False, description="ISO 8601"),
        OpenApiParameter("until", str, OpenApiParameter.QUERY, required=False, description="ISO 8601")])
    def get(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        stream_state(job)
        rows = metrics_range(job=job, since=query_datetime(request, "since"), until=query_datetime(request, "until"))
        return Response(StreamMetricsOutput({"results": rows}).data)


class StreamAuditOutput(serializers.Serializer[Any]):
    # Serializes a streams.models.StreamAudit.
    action = serializers.CharField(help_text="start | stop | restart | reset")
    actor = serializers.CharField(source="actor_name", help_text=(
        "The user (through the API, or a shell's `--as`), or `cli:<OS user>` for a shell that named none."))
    at = serializers.DateTimeField(source="ts")
    details = serializers.JSONField(help_text="What the action changed, e.g. a reset's checkpoint generations.")


class StreamAuditApi(StreamsMixin, APIView):
    """Who started, stopped, restarted or reset the job's stream, and when: newest first, paginated."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(operation_id="streams_audit", tags=[TAG], responses=StreamAuditOutput(many=True))
    def get(self, request: Request, team: str, job_id: int) -> Response:
        job = job_get(team=self.team, job_id=job_id)
        stream_state(job)  # a batch job has no stream: 409
        paginator = StandardPagination()
        page = paginator.paginate_queryset(stream_audit_list(team=self.team, job_name=job.name), request, view=self)
        return paginator.get_paginated_response(StreamAuditOutput(page, many=True).data)
