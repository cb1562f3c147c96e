"""What supervising a RUNNING stream costs the platform, per micro-batch and per heartbeat.

    .venv/bin/python bench/streaming_supervision.py [--rounds 7] [--batches 200]

On a scratch PostgreSQL database migrated by the platform, a streaming job whose lease a `Supervisor` holds:

- per batch (contender): what the supervisor does for each `batch` event of its driver — the metric row
  (`metric_record`) and the conditional "RUNNING if still STARTING/RESTARTING" update under the lease;
- per heartbeat (contender): the lease renewal and the read of what users want (`Supervisor._heartbeat`'s work);
- baseline for both: one ORM round trip (`SELECT 1` through Django's connection), the floor of any database write.

The cost per batch is platform work beside Spark's own batch (1–5 s on these machines for a Redis → Delta batch,
docs/streaming.md), done by a worker thread while the driver works in its own process.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import psycopg  # noqa: E402
from _common import SideBySide, print_header, print_row

ADMIN_DSN = os.environ.get("LAKEPORT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
EVENT = {
    "event": "batch", "query_id": "5f0c6a1e-2f0b-4a55-9a7c-1c2d3e4f5a6b", "batch_id": 0,
    "timestamp": "2026-11-23T18:00:00.000Z", "input_rows": 100, "input_rows_per_second": 55.1,
    "processed_rows_per_second": 80.3, "output_rows": 100, "output_rows_per_second": 90.0, "duration_ms": 1240,
    "watermark": "2026-11-23T17:59:50.000Z", "state_rows": 12, "state_memory_bytes": 40960,
    "sources": [{"description": "redis", "start_offset": "1-0", "end_offset": "100-0", "latest_offset": "120-0",
                 "input_rows": 100, "lag": 20}],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batches", type=int, default=200, help="batch events (and heartbeats) per round")
    args = parser.parse_args()
    db = f"lp_bench_streams_{secrets.token_hex(4)}"
    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false",
                       "DATABASE_URL": f"{ADMIN_DSN.rsplit('/', 1)[0]}/{db}", "LOG_LEVEL": "WARNING",
                       "LAKEPORT_SECRET_KEYS": os.environ.get("LAKEPORT_SECRET_KEYS",
                                                              "o1cQ3W2-OM0oTzqY1xs8nLzZ3a1ayTz0H5m2G0cOqdk=")})
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    try:
        run(args.rounds, args.batches)
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def run(rounds: int, batches: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from jobs.models import JobKind, SqlJob
    from streams.models import StreamState, StreamStatus
    from streams.services.metrics import metric_record
    from streams.services.supervisor import Supervisor, lease_take
    from teams.services import team_create

    call_command("migrate", verbosity=0)
    team = team_create(name="bench")
    job = SqlJob.objects.create(team=team, name="s", kind=JobKind.STREAMING,
                                sql="INSERT INTO l.d.t SELECT * FROM STREAM(e.default.s)")
    StreamState.objects.create(job=job, status=StreamStatus.RUNNING, desired="running")
    token = "bench@host/1/abc"
    assert lease_take(job_id=job.id, token=token, worker="bench@host")
    supervisor = Supervisor(job_id=job.id, token=token)

    def one_batch(i: int) -> None:
        metric_record(job_id=job.id, generation=1, event={**EVENT, "batch_id": i})
        supervisor._mine().filter(status__in=[StreamStatus.STARTING, StreamStatus.RESTARTING]).update(
            status=StreamStatus.RUNNING, updated_at=timezone.now())

    def one_heartbeat() -> None:
        now = timezone.now()
        supervisor._mine().update(lease_expires_at=now + timedelta(seconds=30), heartbeat_at=now)
        supervisor._mine().values("desired", "restart_seq").first()

    def floor() -> None:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
            cur.fetchone()

    def timed_each(fn: Callable[[], None], n: int) -> float:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - start) / n

    batch_ids = iter(range(10**9))
    per_batch, per_beat = SideBySide(), SideBySide()
    for _ in range(rounds):
        base = timed_each(floor, batches)
        per_batch.add(timed_each(lambda: one_batch(next(batch_ids)), batches), base)
        per_beat.add(timed_each(one_heartbeat, batches), timed_each(floor, batches))
    print(f"# {rounds} rounds × {batches} batch events / heartbeats, PostgreSQL 127.0.0.1, "
          f"{os.cpu_count()} CPUs, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print_header()
    print_row("supervisor work per batch vs one ORM round trip", per_batch)
    print_row("lease heartbeat vs one ORM round trip", per_beat)
    batch_ms = statistics.median(per_batch.contender) * 1000
    beat_ms = statistics.median(per_beat.contender) * 1000
    print(f"# per RUNNING stream: {batch_ms:.2f} ms per batch + {beat_ms:.2f} ms per heartbeat (every 3 s by default)"
          f" = {batch_ms / 1000 * 100:.3f}% of a 1 s batch, {beat_ms / 3000 * 100:.3f}% of a worker thread for the lease")


if __name__ == "__main__":
    main()
