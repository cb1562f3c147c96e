"""Rules on durations and rates, checked by every `alerts.deliver` pass (beat sends it every
LAKEPORT_ALERT_TICK_SECONDS): a run RUNNING longer than the rule's `minutes`; a stream restarted more than `count`
times within `minutes` (its restarts are recorded with their status change, alerts/hooks.py); a stream whose
source lag has grown at every batch (at least LAKEPORT_STREAM_FALLING_BEHIND_BATCHES) for `minutes`. One incident per run,
resolved when the run ends; one per stream, resolved when its restarts fall back within the rule's limit.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from alerts.messages import job_link, run_link
from alerts.models import AlertEvent, AlertIncident, AlertRule, StreamRestart
from alerts.services.incidents import Happening, incident_open, incident_resolve
from jobs.models import JobKind, JobRun, RunStatus, SqlJob
from streams.models import ACTIVE_STATUSES, StreamMetric, StreamState

logger = logging.getLogger("lakeport.alerts")

RESTART_HISTORY = timedelta(days=1)
MAX_BEHIND_SCAN = 500  # batches read back to find when a stream began falling behind  # restarts older than every window a rule may have are pruned


def run_long_key(run_id: int) -> str:
    """The incident key of a run that runs too long."""
    return f"run:{run_id}:long"


def alerts_watch(*, now: datetime | None = None) -> int:
    """Open (and resolve) the incidents of duration and rate rules; how many were opened."""
    now = now or timezone.now()
    opened = 0
    for rule in AlertRule.objects.filter(enabled=True, event=AlertEvent.RUN_LONG, minutes__isnull=False).select_related(
            "team"):
        opened += _long_runs(rule, now)
    for rule in AlertRule.objects.filter(enabled=True, event=AlertEvent.STREAM_RESTARTING, minutes__isnull=False,
                                         count__isnull=False).select_related("team"):
        opened += _restarting_streams(rule, now)
    for rule in AlertRule.objects.filter(enabled=True, event=AlertEvent.STREAM_FALLING_BEHIND,
                                         minutes__isnull=False).select_related("team"):
        opened += _falling_behind_streams(rule, now)
    StreamRestart.objects.filter(at__lt=now - RESTART_HISTORY).delete()
    return opened


def behind_since(*, job_id: int, batches: int) -> datetime | None:
    """When the stream's current run of growing source lag began (the batch before its first growth), if the lag
    grew over at least `batches` consecutive batches up to the newest; None when it is not falling behind."""
    lags = list(StreamMetric.objects.filter(job_id=job_id, lag__isnull=False).order_by("-ts", "-id")
                .values_list("ts", "lag")[:MAX_BEHIND_SCAN])
    grown, start = 0, None
    for (_, later), (earlier_ts, earlier) in zip(lags, lags[1:], strict=False):
        if later is None or earlier is None or later <= earlier:
            break
        grown += 1
        start = earlier_ts
    return start if grown >= max(1, batches) else None


def _falling_behind_streams(rule: AlertRule, now: datetime) -> int:
    minutes = rule.minutes or 0
    states = StreamState.objects.filter(job__team_id=rule.team_id).select_related("job")
    if rule.job_id is not None:
        states = states.filter(job_id=rule.job_id)
    opened = 0
    for state in states:
        job = state.job
        since = behind_since(job_id=job.id, batches=settings.LAKEPORT_STREAM_FALLING_BEHIND_BATCHES) \
            if state.status in ACTIVE_STATUSES else None
        happening = Happening(event=AlertEvent.STREAM_FALLING_BEHIND, team_id=rule.team_id, team=rule.team.name,
                              job_id=job.id, key=f"stream:{job.id}:behind", error=None,
                              link=job_link(team=rule.team.name, job_id=job.id),
                              title=f"Stream of job '{job.name}' has been falling behind its source for more than "
                                    f"{minutes} minutes (team {rule.team.name})")
        with transaction.atomic():
            if since is not None and now - since >= timedelta(minutes=minutes):
                opened += len(incident_open(happening=happening, only=rule))
            elif since is None:
                incident_resolve(happening=Happening(**{**happening.__dict__, "title": (
                    f"stream of job '{job.name}' keeps up with its source again")}), only=rule)
    return opened


def _long_runs(rule: AlertRule, now: datetime) -> int:
    minutes = rule.minutes or 0
    runs = JobRun.objects.filter(team_id=rule.team_id, status=RunStatus.RUNNING,
                                 started_at__lt=now - timedelta(minutes=minutes)).select_related("job")
    if rule.job_id is not None:
        runs = runs.filter(job_id=rule.job_id)
    opened = 0
    for run in runs:
        with transaction.atomic():
            opened += len(incident_open(only=rule, happening=Happening(
                event=AlertEvent.RUN_LONG, team_id=rule.team_id, team=rule.team.name, job_id=run.job_id,
                key=run_long_key(run.id), error=None, link=run_link(team=rule.team.name, run_id=run.id),
                title=f"Run {run.id} of job '{run.job.name}' has been RUNNING for more than {minutes} minutes "
                      f"(team {rule.team.name})")))
    return opened


def _restarting_streams(rule: AlertRule, now: datetime) -> int:
    count, minutes = rule.count or 0, rule.minutes or 0
    jobs = SqlJob.objects.filter(team_id=rule.team_id, kind=JobKind.STREAMING)
    if rule.job_id is not None:
        jobs = jobs.filter(id=rule.job_id)
    recent = dict(StreamRestart.objects.filter(job__in=jobs, at__gte=now - timedelta(minutes=minutes))
                  .values("job_id").annotate(n=Count("id")).values_list("job_id", "n"))
    open_keys = set(AlertIncident.objects.filter(rule=rule, resolved_at__isnull=True).values_list("key", flat=True))
    opened = 0
    for job in jobs.filter(id__in=set(recent) | {int(k.split(":")[1]) for k in open_keys if k.startswith("stream:")}):
        restarts = recent.get(job.id, 0)
        happening = Happening(event=AlertEvent.STREAM_RESTARTING, team_id=rule.team_id, team=rule.team.name,
                              job_id=job.id, key=f"stream:{job.id}:restarting", error=None,
                              link=job_link(team=rule.team.name, job_id=job.id),
                              title=f"Stream of job '{job.name}' restarted {restarts} times in the last {minutes} "
                                    f"minutes (more than {count}; team {rule.team.name})")
        with transaction.atomic():
            if restarts > count:
                opened += len(incident_open(happening=happening, only=rule))
            elif happening.key in open_keys:
                incident_resolve(happening=Happening(**{**happening.__dict__, "title": (
                    f"stream of job '{job.name}' restarted {restarts} times in the last {minutes} minutes")}),
                    only=rule)
    return opened
