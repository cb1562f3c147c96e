"""`/t/<team>/runs/<id>/spark/…`: a run's Spark UI for the members of its team (jobs/services/spark_ui.py)."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from jobs.apis import JobsMixin
from jobs.selectors import run_get
from jobs.services.spark_ui import spark_ui_fetch


@extend_schema(exclude=True)  # pages of Spark's UI, not part of the API's contract
class RunSparkUiProxy(JobsMixin, APIView):
    """Viewers and up of the run's team see its engine's Spark UI; others get 404, as for the run itself."""

    def get(self, request: Request, team: str, run_id: int, path: str = "") -> StreamingHttpResponse:
        answer = spark_ui_fetch(run=run_get(team=self.team, run_id=run_id), path=path,
                                query=request.META.get("QUERY_STRING", ""), method=request.method or "GET")
        response = StreamingHttpResponse(answer.body, status=answer.status)
        for name, value in answer.headers.items():
            response[name] = value
        response["X-Frame-Options"] = "SAMEORIGIN"
        return response
