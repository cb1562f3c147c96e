"""The editor's live preview of a streaming statement (thin views over jobs/services/live_preview.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.outputs import ResultColumnOutput, ResultRows
from core.api.validation import validated
from jobs.apis import JobsMixin, RunErrorOutput
from jobs.services.live_preview import (
    LivePreviewStatus,
    LivePreviewStop,
    live_preview_get,
    live_preview_start,
    live_preview_stop,
)
from jobs.services.warmup import engine_warm_request
from teams.models import Role


# A LivePreviewState: the body of start, poll and stop (no docstring: it would become the schema's description).
class LivePreviewOutput(serializers.Serializer[Any]):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=[s.value for s in LivePreviewStatus])
    columns = ResultColumnOutput(many=True)
    rows = ResultRows()
    stopped = serializers.CharField(allow_null=True, help_text=" | ".join(LivePreviewStop))
    error = RunErrorOutput(allow_null=True)
    seconds = serializers.FloatField(help_text="It stops by itself after this many seconds …")
    max_rows = serializers.IntegerField(help_text="… or this many rows.")

    class Meta:
        ref_name = "LivePreview"  # the schema's name for it since API 1.1.0 (clients import it by that name)


class LivePreviewInput(serializers.Serializer[Any]):
    sql = serializers.CharField(trim_whitespace=False, allow_blank=True)
    default_catalog = serializers.CharField(required=False, allow_blank=True, default="", max_length=63, help_text=(
        "A catalog of the team where unqualified names resolve, as a run of a job with this `default_catalog` "
        "(the script's own USE CATALOG still wins); an unknown one is a 400 naming this field."))


class EngineWarmOutput(serializers.Serializer[dict[str, bool]]):
    """Whether a start of the team's engine was asked for (false: asked within the last minute already)."""

    requested = serializers.BooleanField()


class EngineWarmApi(JobsMixin, APIView):
    """Start the team's engine in the background, so the editor's first validate or preview finds it running.

    The SQL editor calls it when it opens; once a minute at most per team (a second call answers `false`)."""

    write_role = Role.DEVELOPER

    @extend_schema(operation_id="engine_warm", request=None, responses={202: EngineWarmOutput})
    def post(self, request: Request, team: str) -> Response:
        requested = engine_warm_request(team=self.team)
        return Response(EngineWarmOutput({"requested": requested}).data, status=status.HTTP_202_ACCEPTED)


class SqlLivePreviewApi(JobsMixin, APIView):
    """Start a short streaming query over the statement's sources (never its sink); poll it by id."""

    write_role = Role.DEVELOPER

    @extend_schema(operation_id="sql_preview_live_start", request=LivePreviewInput,
                   responses={202: LivePreviewOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(LivePreviewInput, request.data)
        state = live_preview_start(team=self.team, sql=data["sql"], default_catalog=data["default_catalog"],
                                   user=request.user)
        return Response(LivePreviewOutput(state).data, status=status.HTTP_202_ACCEPTED)


class SqlLivePreviewDetailApi(JobsMixin, APIView):
    """A live preview's rows so far; DELETE stops it early."""

    write_role = Role.DEVELOPER

    @extend_schema(operation_id="sql_preview_live_get", responses=LivePreviewOutput)
    def get(self, request: Request, team: str, preview_id: str) -> Response:
        return Response(LivePreviewOutput(live_preview_get(team=self.team, preview_id=preview_id)).data)

    # 200 with its state, as it has always answered (a DELETE's default in the schema would be a bodiless 204)
    @extend_schema(operation_id="sql_preview_live_stop", responses={200: LivePreviewOutput})
    def delete(self, request: Request, team: str, preview_id: str) -> Response:
        return Response(LivePreviewOutput(live_preview_stop(team=self.team, preview_id=preview_id)).data)
