"""Heartbeat and reaper periods, all derived from LAKEPORT_REAPER_INTERVAL_SECONDS (no model imports: beat reads it)."""

from __future__ import annotations

from django.conf import settings


def run_heartbeat_seconds() -> float:
    """How often the executing process writes a run's `heartbeat_at`."""
    return max(1.0, min(5.0, float(settings.LAKEPORT_REAPER_INTERVAL_SECONDS) / 10))


def run_stale_seconds() -> float:
    """A RUNNING run whose heartbeat is older than this is lost (half the interval, at least 3 beats)."""
    return max(float(settings.LAKEPORT_REAPER_INTERVAL_SECONDS) / 2, 3 * run_heartbeat_seconds())


def reaper_period_seconds() -> float:
    """How often celery beat runs the reaper: staleness plus one period stays below the reaper interval."""
    return max(1.0, float(settings.LAKEPORT_REAPER_INTERVAL_SECONDS) / 4)
