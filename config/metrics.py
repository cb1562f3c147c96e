"""`/metrics`: the platform's Prometheus metrics, behind a bearer token (LAKEPORT_METRICS_TOKEN; unset → 404).

Two sources. What the database knows (runs by team and status, run durations, streams and their restarts, schedule
ticks, workers alive and the engines they reported in their heartbeats) is read at scrape time by `DatabaseCollector`: the same numbers whichever process answers, so
it is safe with any number of gunicorn and Celery processes and matches what the API says. What only a process
knows (API request latency, core/metrics.py) is a prometheus-client metric: with PROMETHEUS_MULTIPROC_DIR set (the
multiprocess mode, for gunicorn) the samples of every process are added up, otherwise those of this process.
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from kombu.exceptions import ChannelError
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from config.celery import app as celery_app
from core.queues import ALL_QUEUES
from jobs.heartbeat import live_workers
from jobs.models import JobRun, RunStatus
from schedules.models import ScheduleFire
from streams.models import ACTIVE_STATUSES, StreamMetric, StreamState
from streams.selectors import falling_behind

logger = logging.getLogger("lakeport.metrics")
DURATION_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 4 * 3600.0)


class DatabaseCollector(Collector):
    """Metrics read from PostgreSQL at each scrape (nothing is kept in the process)."""

    def collect(self) -> Iterator[Metric]:
        yield self._runs()
        yield self._durations()
        yield from self._streams()
        yield self._ticks()
        yield from self._workers()
        yield self._queues()

    def _queues(self) -> Metric:
        """Messages waiting per Celery queue, asked of the broker (nothing when it cannot be reached)."""
        depth = GaugeMetricFamily("lakeport_queue_depth", "Messages waiting in each Celery queue (runs, editor "
                                  "calls, beat ticks, stream supervisors).", labels=["queue"])
        try:
            with celery_app.connection_for_read(url=settings.CELERY_BROKER_URL) as conn:
                conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
                for queue in ALL_QUEUES:
                    with conn.channel() as channel:
                        try:
                            waiting = int(channel.queue_declare(queue=queue, passive=True).message_count)
                        except ChannelError:
                            waiting = 0  # never declared: nothing was ever sent to it
                    depth.add_metric([queue], waiting)
        except Exception as exc:  # a broker outage must not fail the scrape of everything else
            logger.warning("metrics.queue_depth_unknown", extra={"error_class": type(exc).__name__})
        return depth

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
        yield from self._stream_batches()

    def _stream_batches(self) -> Iterator[Metric]:
        """The newest micro-batch of each active stream (one indexed read per stream)."""
        labels = ["team", "job"]
        families = {
            "duration": GaugeMetricFamily("lakeport_stream_batch_duration_seconds",
                                          "Duration of the newest micro-batch of each active stream.", labels=labels),
            "input": GaugeMetricFamily("lakeport_stream_input_rows_per_second",
                                       "Input rate of the newest micro-batch.", labels=labels),
            "processed": GaugeMetricFamily("lakeport_stream_processed_rows_per_second",
                                           "Processing rate of the newest micro-batch.", labels=labels),
            "lag": GaugeMetricFamily("lakeport_stream_lag", "Source lag (records or offsets behind) after the "
                                     "newest micro-batch, where the source reports one.", labels=labels),
            "behind": GaugeMetricFamily("lakeport_stream_falling_behind", "1 while the source lag grew over each of "
                                        "the last LAKEPORT_STREAM_FALLING_BEHIND_BATCHES batches.", labels=labels),
        }
        for state in StreamState.objects.filter(status__in=ACTIVE_STATUSES).select_related("job", "job__team"):
            latest = StreamMetric.objects.filter(job_id=state.job_id).order_by("-ts", "-id").first()
            if latest is None:
                continue
            key = [state.job.team.name, state.job.name]
            families["duration"].add_metric(key, latest.duration_ms / 1000.0)
            if latest.input_rows_per_second is not None:
                families["input"].add_metric(key, latest.input_rows_per_second)
            if latest.processed_rows_per_second is not None:
                families["processed"].add_metric(key, latest.processed_rows_per_second)
            if latest.lag is not None:
                families["lag"].add_metric(key, latest.lag)
            families["behind"].add_metric(key, 1.0 if falling_behind(job=state.job) else 0.0)
        yield from families.values()

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



