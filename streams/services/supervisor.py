"""The worker side of a stream: one supervisor per streaming job across all workers, holding the job's lease.

`stream_supervise(job_id)` (the `streams.supervise` task) takes the lease with a conditional UPDATE (free or
expired, and the stream wanted running), then runs the job's driver: a dedicated engine process launched by the
engine path of every run (jobs/engines/process.py: scrubbed environment, engine user, socketpair channel, catalog
lookups answered for the job's team only) to which it sends one `stream` request. While the driver runs:

- a heartbeat thread renews the lease every LAKEPORT_STREAM_HEARTBEAT_SECONDS and reads what users want; a lease
  renewal that finds another owner (or none) stops the driver at once, so two drivers never write one checkpoint;
- `batch` events become metrics, `query_started` makes the stream RUNNING;
- desired `stopped` sends a graceful stop (the batch in flight finishes) → STOPPED; a restart request stops the
  driver and starts a new one on the same checkpoint;
- a driver that dies or whose query fails is restarted from its checkpoint after an exponential backoff, up to
  LAKEPORT_STREAM_RESTART_BUDGET consecutive failures (a completed batch resets the count), then FAILED with the
  last error; a statement refused at planning is FAILED at once (it would be refused again);
- a worker shutting down stops its drivers gracefully and frees their leases: the tick (tick.py) sends the
  supervise task again and another worker, or this one once it is back, resumes from the checkpoint.
"""

from __future__ import annotations

import enum
import logging
import os
import queue
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.db.models import Case, CharField, F, PositiveIntegerField, Q, Value, When
from django.utils import timezone

from jobs.engines import static_conf_for
from jobs.engines.process import EngineError, EngineKey, EngineProcess
from jobs.engines.users import EngineUserError, engine_user
from jobs.models import SqlJob
from lakeport_kernel.redaction import redact
from lineage.services import StreamLineage, lineage_stream_ended, lineage_stream_started
from streams.models import ACTIVE_STATUSES, Desired, StreamState, StreamStatus
from streams.services.checkpoints import prepare_checkpoint
from streams.services.metrics import metric_record
from streams.services.statement import stream_script

logger = logging.getLogger("lakeport.streams")

# Set when the worker is shutting down (streams/signals.py): supervisors stop their drivers and free their leases.
SHUTDOWN = threading.Event()
# The longest a graceful stop waits for the driver (the runtime's own grace for the batch in flight is 120 s).
STOP_WAIT_SECONDS = 150.0
POLL_SECONDS = 0.5
CANCEL_AGAIN_SECONDS = 2.0


class Ending(enum.Enum):
    """Why one driver ended."""

    STOPPED = "stopped"  # users asked
    RESTART = "restart"  # users asked for a restart on the same checkpoint
    SHUTDOWN = "shutdown"  # this worker is going away
    LEASE_LOST = "lease_lost"  # another supervisor owns the stream now: write nothing
    REFUSED = "refused"  # the statement was refused before anything started
    CRASHED = "crashed"  # the driver died or its query failed


@dataclass
class DriverEnd:
    """How one driver ended, its last error, and whether it completed a batch."""

    ending: Ending
    message: str | None = None
    batches: int = 0


@dataclass
class LeaseView:
    """What the heartbeat thread last saw of the stream row."""

    desired: str = Desired.RUNNING
    restart_seq: int = 0
    lost: threading.Event = field(default_factory=threading.Event)


_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*: ")


def readable(message: str) -> str:
    """A driver's error for people: a Python traceback inside it (a Python data source's failure, as Spark
    relays it) is cut down to its exception's own message."""
    out: list[str] = []
    lines = message.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        head, marker, _ = line.partition("Traceback (most recent call last):")
        if not marker:
            out.append(line)
            i += 1
            continue
        i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
            i += 1  # the frames
        last = _EXCEPTION_LINE.sub("", lines[i]) if i < len(lines) else ""
        out.append(f"{head}{last}".rstrip())
        i += 1
    return "\n".join(out).strip()


def lease_seconds() -> float:
    return float(settings.LAKEPORT_STREAM_LEASE_SECONDS)


def backoff_seconds(failures: int) -> float:
    """Wait before restart number `failures` (1-based): base · 2^(failures-1), capped."""
    base = float(settings.LAKEPORT_STREAM_RESTART_BACKOFF_SECONDS)
    return min(base * (2 ** max(0, failures - 1)), float(settings.LAKEPORT_STREAM_RESTART_BACKOFF_MAX_SECONDS))


def lease_take(*, job_id: int, token: str, worker: str) -> bool:
    """Take the stream's lease if it is free or expired and the stream is wanted running (one winner).

    A FAILED or STOPPED stream is not taken: a supervise message that arrives after it ended (the tick's, or a
    duplicate) must not start it again; start and restart move it to STARTING first."""
    now = timezone.now()
    # A stream that was RUNNING (or RESTARTING) has lost its supervisor: it restarts, counted, in the same UPDATE
    # that names the new worker, so nobody reads it RUNNING on a worker that runs nothing yet.
    orphaned = Q(status__in=(StreamStatus.RUNNING, StreamStatus.RESTARTING))
    return bool(StreamState.objects.filter(job_id=job_id, desired=Desired.RUNNING,
                                           status__in=ACTIVE_STATUSES).filter(
        Q(lease_owner="") | Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True),
    ).update(lease_owner=token, lease_expires_at=now + timedelta(seconds=lease_seconds()), heartbeat_at=now,
             worker=worker, updated_at=now,
             status=Case(When(orphaned, then=Value(StreamStatus.RESTARTING)), default=F("status"),
                         output_field=CharField()),
             restarts=Case(When(orphaned, then=F("restarts") + 1), default=F("restarts"),
                           output_field=PositiveIntegerField())))


def stream_supervise(*, job_id: int, worker: str) -> str:
    """Supervise job `job_id`'s stream until it stops, fails, or this worker loses the lease or shuts down.

    Returns what happened (`skipped` when another supervisor holds the lease or nobody wants the stream).
    """
    token = f"{worker}/{os.getpid()}/{uuid.uuid4().hex[:12]}"
    if SHUTDOWN.is_set() or not lease_take(job_id=job_id, token=token, worker=worker):
        return "skipped"
    logger.info("stream.supervising", extra={"job_id": job_id, "worker": worker})
    return Supervisor(job_id=job_id, token=token).run()


class Supervisor:
    """One supervision of one stream by the lease holder `token`."""

    def __init__(self, *, job_id: int, token: str) -> None:
        self.job_id = job_id
        self.token = token
        self.view = LeaseView()
        self.wake = threading.Event()
        self._beating = threading.Event()
        self.lineage: StreamLineage | None = None  # the running query's, from its query_started event

    # ---- writes, all conditional on holding the lease ----------------------------------------------------
    def _mine(self) -> Any:
        return StreamState.objects.filter(job_id=self.job_id, lease_owner=self.token)

    def _set(self, **fields: Any) -> bool:
        return bool(self._mine().update(updated_at=timezone.now(), **fields))

    def _finish(self, status: str, **fields: Any) -> None:
        """Leave the stream in `status` and free the lease."""
        self._set(status=status, lease_owner="", lease_expires_at=None, **fields)

    # ---- the heartbeat thread ----------------------------------------------------------------------------
    def _heartbeat(self) -> None:
        last_ok = time.monotonic()
        every = float(settings.LAKEPORT_STREAM_HEARTBEAT_SECONDS)
        try:
            while not self._beating.wait(every):
                try:
                    now = timezone.now()
                    row = None
                    if self._mine().update(lease_expires_at=now + timedelta(seconds=lease_seconds()),
                                           heartbeat_at=now):
                        row = self._mine().values("desired", "restart_seq").first()
                    if row is None:
                        self.view.lost.set()
                    else:
                        last_ok = time.monotonic()
                        changed = (row["desired"], row["restart_seq"]) != (self.view.desired, self.view.restart_seq)
                        self.view.desired, self.view.restart_seq = row["desired"], row["restart_seq"]
                        if not changed:
                            continue
                except DatabaseError:
                    close_old_connections()
                    # The database is away: past most of the lease, another worker may take it; stop writing.
                    if time.monotonic() - last_ok < 0.8 * lease_seconds():
                        continue
                    self.view.lost.set()
                self.wake.set()
                if self.view.lost.is_set():
                    return
        finally:
            connection.close()

    # ---- the supervision loop ----------------------------------------------------------------------------
    def run(self) -> str:
        state = StreamState.objects.get(job_id=self.job_id)
        self.view.desired, self.view.restart_seq = state.desired, state.restart_seq
        # lease_take left a stream whose last supervisor is gone RESTARTING (counted); any other is STARTING
        if state.status not in (StreamStatus.RESTARTING, StreamStatus.STARTING):
            self._set(status=StreamStatus.STARTING)
        beat = threading.Thread(target=self._heartbeat, name=f"lakeport-stream-{self.job_id}-lease", daemon=True)
        beat.start()
        try:
            return self._loop()
        except Exception as exc:  # never leave a lease held by a supervision that is gone
            logger.exception("stream.supervisor_failed", extra={"job_id": self.job_id})
            self._set(status=StreamStatus.RESTARTING, lease_owner="", lease_expires_at=None,
                      last_error=redact(f"The supervisor failed: {type(exc).__name__}: {exc}")[:2000])
            return "error"
        finally:
            self._beating.set()
            beat.join(timeout=10)

    def _loop(self) -> str:
        failures = 0
        while True:
            if self.view.lost.is_set():
                return "lease_lost"
            if self.view.desired == Desired.STOPPED:
                self._finish(StreamStatus.STOPPED)
                return "stopped"
            if SHUTDOWN.is_set():
                self._finish(StreamStatus.RESTARTING)
                return "shutdown"
            job = SqlJob.objects.select_related("team").get(id=self.job_id)
            generation = StreamState.objects.values_list("checkpoint_generation", flat=True).get(job_id=self.job_id)
            seen_seq = self.view.restart_seq
            end = self._drive(job, generation, seen_seq)
            self._lineage_ended(end)
            logger.info("stream.driver_ended", extra={"job_id": self.job_id, "ending": end.ending.value,
                                                      "batches": end.batches})
            if end.ending is Ending.LEASE_LOST:
                return "lease_lost"
            if end.ending is Ending.STOPPED:
                self._finish(StreamStatus.STOPPED)
                return "stopped"
            if end.ending is Ending.SHUTDOWN:
                self._finish(StreamStatus.RESTARTING)
                return "shutdown"
            if end.ending is Ending.RESTART:
                failures = 0
                self._set(status=StreamStatus.RESTARTING)
                continue
            if end.ending is Ending.REFUSED:
                self._finish(StreamStatus.FAILED, last_error=end.message)
                return "failed"
            failures = 1 if end.batches else failures + 1
            if failures > settings.LAKEPORT_STREAM_RESTART_BUDGET:
                self._finish(StreamStatus.FAILED, last_error=end.message)
                return "failed"
            self._set(status=StreamStatus.RESTARTING, restarts=F("restarts") + 1, last_error=end.message)
            self._pause(backoff_seconds(failures))

    # ---- lineage: an observation, never a reason for a stream to stop ------------------------------------------
    def _lineage_started(self, job: SqlJob, event: dict[str, Any]) -> None:
        self.lineage = None
        if not isinstance(event.get("lineage"), dict):
            return  # capture is off
        try:
            self.lineage = lineage_stream_started(job=job, query_run_id=str(event.get("run_id") or ""),
                                                  lineage=event["lineage"])
        except Exception:
            logger.exception("stream.lineage_failed", extra={"job_id": self.job_id})

    def _lineage_ended(self, end: DriverEnd) -> None:
        started, self.lineage = self.lineage, None
        if started is None or end.ending is Ending.LEASE_LOST:
            return  # the new lease holder's driver reports the query from here on
        status = {Ending.STOPPED: StreamStatus.STOPPED, Ending.CRASHED: StreamStatus.FAILED,
                  Ending.REFUSED: StreamStatus.FAILED}.get(end.ending, StreamStatus.RESTARTING)
        try:
            lineage_stream_ended(started=started, status=str(status), error=end.message)
        except Exception:
            logger.exception("stream.lineage_failed", extra={"job_id": self.job_id})

    def _pause(self, seconds: float) -> None:
        """Wait before a restart, waking early for a stop, a restart request, a lost lease or a shutdown."""
        deadline = time.monotonic() + seconds
        seq = self.view.restart_seq
        while time.monotonic() < deadline:
            self.wake.wait(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
            self.wake.clear()
            if (self.view.lost.is_set() or self.view.desired == Desired.STOPPED or SHUTDOWN.is_set()
                    or self.view.restart_seq != seq):
                return

    # ---- one driver ----------------------------------------------------------------------------------------
    def _drive(self, job: SqlJob, generation: int, seen_seq: int) -> DriverEnd:
        team = job.team.name
        try:
            script = stream_script(job).sql
            static = tuple(sorted(static_conf_for(script=script, team=team).items()))
        except Exception as exc:  # a bad parameter or catalog: the statement cannot start
            return DriverEnd(Ending.REFUSED, redact(str(exc))[:2000])
        engine = EngineProcess(EngineKey(team=team, static_conf=static, dedicated=f"stream{job.id}"))
        try:
            checkpoint = prepare_checkpoint(team=team, job_id=job.id, generation=generation, user=engine_user(team))
            engine.start()
        except (EngineError, EngineUserError, OSError) as exc:
            engine.stop(quiet=True)
            return DriverEnd(Ending.CRASHED, redact(str(exc))[:2000])
        events: queue.Queue[dict[str, Any]] = queue.Queue()

        def on_event(event: dict[str, Any]) -> None:
            events.put(event)
            if event.get("event") in ("query_started", "failed", "stopped"):
                self.wake.set()

        pending = engine.request({"mode": "stream", "script": script, "checkpoint": str(checkpoint),
                                  "default_catalog": job.default_catalog or None, "spark_conf": job.spark_conf,
                                  "query_name": f"lakeport_job_{job.id}",
                                  "lineage": bool(settings.LAKEPORT_LINEAGE_CAPTURE)}, on_event=on_event)
        asked: Ending | None = None
        asked_at = cancelled_at = 0.0
        failed: dict[str, Any] | None = None
        batches = 0
        try:
            while True:
                self.wake.wait(POLL_SECONDS)
                self.wake.clear()
                while True:
                    try:
                        event = events.get_nowait()
                    except queue.Empty:
                        break
                    name = event.get("event")
                    if name == "batch":
                        batches += 1
                        metric_record(job_id=job.id, generation=generation, event=event)
                        self._mine().filter(status__in=[StreamStatus.STARTING, StreamStatus.RESTARTING]).update(
                            status=StreamStatus.RUNNING, updated_at=timezone.now())
                    elif name == "query_started":
                        # query id and start time first: a reader that sees RUNNING sees them too
                        self._mine().filter(started_at__isnull=True).update(started_at=timezone.now())
                        self._set(query_id=str(event.get("query_id") or "")[:64] or None)
                        self._mine().filter(status__in=[StreamStatus.STARTING, StreamStatus.RESTARTING]).update(
                            status=StreamStatus.RUNNING)
                        self._lineage_started(job, event)
                    elif name == "failed":
                        failed = event
                if self.view.lost.is_set():
                    return DriverEnd(Ending.LEASE_LOST, batches=batches)
                if pending.done.is_set() and events.empty():
                    break
                if asked is None:
                    if self.view.desired == Desired.STOPPED:
                        asked = Ending.STOPPED
                    elif self.view.restart_seq != seen_seq:
                        asked = Ending.RESTART
                    elif SHUTDOWN.is_set():
                        asked = Ending.SHUTDOWN
                    if asked is not None:
                        asked_at = cancelled_at = time.monotonic()
                        engine.cancel(pending.id)  # graceful: the batch in flight finishes first
                elif time.monotonic() - asked_at > STOP_WAIT_SECONDS:
                    break  # engine.stop() below ends it; the sinks stay exactly once
                elif time.monotonic() - cancelled_at > CANCEL_AGAIN_SECONDS:
                    cancelled_at = time.monotonic()  # the engine may not have started the query when it came
                    engine.cancel(pending.id)
        finally:
            engine.forget(pending.id)
            engine.stop()
        if asked is not None:
            return DriverEnd(asked, batches=batches)
        if failed is not None:
            message = readable(str(failed.get("message") or "The streaming query failed."))
            # refused at planning, or a checkpoint the edited query cannot resume: a restart would fail the same way
            ending = Ending.REFUSED if failed.get("planning") or failed.get("checkpoint_incompatible") else Ending.CRASHED
            return DriverEnd(ending, redact(message)[:2000], batches)
        result = pending.result
        if result.get("engine_lost"):
            reason = (result.get("error") or {}).get("message") or "The driver stopped."
            return DriverEnd(Ending.CRASHED, f"The stream's driver stopped unexpectedly: {reason}", batches)
        return DriverEnd(Ending.CRASHED, "The streaming query ended by itself.", batches)
