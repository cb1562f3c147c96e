"""`/metrics`: the platform's Prometheus metrics, behind a bearer token (LAKEPORT_METRICS_TOKEN; unset → 404).

Two sources. What the database knows (runs by team and status, run durations, streams and their restarts, schedule
ticks, workers alive and the engines they reported in their heartbeats) is read at scrape time by `DatabaseCollector`: the same numbers whichever process answers, so
it is safe with any number of gunicorn and Celery processes and matches what the API says. What only a process
knows (API request latency, core/metrics.py) is a prometheus-client metric: with PROMETHEUS_MULTIPROC_DIR set (the
multiprocess mode, for gunicorn) the samples of every process are added up, otherwise those of this process.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from jobs.heartbeat import live_workers
from jobs.models import JobRun, RunStatus
from schedules.models import ScheduleFire
from streams.models import StreamState

DURATION_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 4 * 3600.0)


class DatabaseCollector(Collector):
    """Metrics read from PostgreSQL at each scrape (nothing is kept in the process)."""

    def collect(self) -> Iterator[Metric]:
        yield self._runs()
        yield self._durations()
        yield from self._streams()
        yield self._ticks()
        yield from self._workers()

    def _workers(self) -> Iterator[Metric]:
        alive = live_workers()
        workers = GaugeMetricFamily("lakeport_workers_alive", "Celery workers with a recent heartbeat.")
        workers.add_metric([], len(alive))
        engines = GaugeMetricFamily("lakeport_engines_alive", "Team engines (Spark drivers) alive in the live "
                                    "workers, by team (from each worker's heartbeat).", labels=["team"])
        rss = GaugeMetricFamily("lakeport_engine_rss_bytes", "Resident memory of a team's alive engines, summed over "
                                "the live workers.", labels=["team"])
        totals: dict[str, list[int]] = {}
        for worker in alive:
            for team, counts in (worker.engines or {}).items():
                total = totals.setdefault(team, [0, 0])
                total[0] += int(counts.get("alive", 0))
                total[1] += int(counts.get("rss_bytes", 0))
        for team, (count, memory) in sorted(totals.items()):
            engines.add_metric([team], count)
            rss.add_metric([team], memory)
        yield workers
        yield engines
        yield rss

    def _runs(self) -> Metric:
        runs = GaugeMetricFamily("lakeport_runs", "Runs by team and status (as the runs API lists them).",
                                 labels=["team", "status"])
        rows = JobRun.objects.values("team__name", "status").annotate(n=Count("id")).order_by("team__name", "status")
        for row in rows:
            runs.add_metric([row["team__name"], row["status"]], row["n"])
        return runs

    def _durations(self) -> Metric:
        histogram = HistogramMetricFamily(
            "lakeport_run_duration_seconds", "Duration of finished runs (started → finished) by team and status.",
            labels=["team", "status"])
        duration = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
        finished = JobRun.objects.filter(status__in=(RunStatus.SUCCEEDED, RunStatus.FAILED),
                                         started_at__isnull=False, finished_at__isnull=False).annotate(d=duration)
        aggregates = {f"le{i}": Count("id", filter=Q(d__lte=timedelta(seconds=b)))
                      for i, b in enumerate(DURATION_BUCKETS)}
        rows = finished.values("team__name", "status").annotate(n=Count("id"), total=Sum("d"), **aggregates)
        for typed in rows.order_by("team__name", "status"):
            row: dict[str, Any] = dict(typed)  # the bucket keys are built above, not known to the type
            buckets = [(str(b), row[f"le{i}"]) for i, b in enumerate(DURATION_BUCKETS)] + [("+Inf", row["n"])]
            total = row["total"].total_seconds() if row["total"] is not None else 0.0
            histogram.add_metric([row["team__name"], row["status"]], buckets, total)
        return histogram

    def _streams(self) -> Iterator[Metric]:
        streams = GaugeMetricFamily("lakeport_streams", "Streams by team and status.", labels=["team", "status"])
        restarts = GaugeMetricFamily("lakeport_stream_restarts", "Driver restarts of each stream since its start.",
                                     labels=["team", "job"])
        for row in StreamState.objects.values("job__team__name", "status").annotate(n=Count("job_id")).order_by(
                "job__team__name", "status"):
            streams.add_metric([row["job__team__name"], row["status"]], row["n"])
        for team, job, count in StreamState.objects.values_list("job__team__name", "job__name", "restarts"):
            restarts.add_metric([team, job], count)
        yield streams
        yield restarts

    def _ticks(self) -> Metric:
        ticks = GaugeMetricFamily("lakeport_schedule_ticks", "Schedule ticks recorded, by team and what became of "
                                  "them (submitted, waiting, skipped, failed).", labels=["team", "status"])
        for row in ScheduleFire.objects.values("schedule__team__name", "status").annotate(n=Count("id")).order_by(
                "schedule__team__name", "status"):
            ticks.add_metric([row["schedule__team__name"], row["status"]], row["n"])
        return ticks


def metrics_text() -> bytes:
    """The exposition: the database's metrics, then the processes' (all of them in multiprocess mode)."""
    database = CollectorRegistry(auto_describe=True)
    database.register(DatabaseCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = CollectorRegistry()
        MultiProcessCollector(processes)  # type: ignore[no-untyped-call]  # prometheus-client's untyped init
        return generate_latest(database) + generate_latest(processes)
    return generate_latest(database) + generate_latest(REGISTRY)


def _authorized(request: HttpRequest) -> bool:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, token = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(),
                                                              settings.LAKEPORT_METRICS_TOKEN.encode())


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus text format for a scraper holding LAKEPORT_METRICS_TOKEN; 404 when no token is configured."""
    if not settings.LAKEPORT_METRICS_TOKEN:
        raise Http404("Metrics are disabled.")
    if not _authorized(request):
        response = HttpResponse("A bearer token is required.\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)



