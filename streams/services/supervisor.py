"""The worker side of a stream: one supervisor per streaming job across all workers, holding the job's lease.

`stream_supervise(job_id)` (the `streams.supervise` task) takes the lease with a conditional UPDATE (free or
expired, and the stream wanted running), then runs the job's driver: a dedicated engine process launched by the
engine path of every run (jobs/engines/process.py: scrubbed environment, engine user, socketpair channel, catalog
lookups answered for the job's team only), leased from the worker's EnginePool like a run's, so it counts against
LAKEPORT_ENGINES_PER_WORKER (with every slot busy the lease is freed and the tick sends the task again), to which
it sends one `stream` request (jobs/engines/calls.py `EngineCall`). While the driver runs:

- a heartbeat thread renews the lease every LAKEPORT_STREAM_HEARTBEAT_SECONDS and reads what users want; a lease
  renewal that finds another owner (or none) stops the driver at once, so two drivers never write one checkpoint;
- `batch` events become metrics, `query_started` makes the stream RUNNING;
- desired `stopped` sends a graceful stop (the batch in flight finishes) → STOPPED; a restart request stops the
  driver and starts a new one on the same checkpoint;
- a driver that dies or whose query fails is restarted from its checkpoint after an exponential backoff, up to
  LAKEPORT_STREAM_RESTART_BUDGET consecutive failures (a completed batch resets the count), then FAILED with the
  last error; a statement refused at planning is FAILED at once (it would be refused again);
- the heartbeat also recomputes the job owner's access document (grants, groups, row filters and masks: docs/access.md);
  when it differs from the one the driver started with, the driver is stopped gracefully and started again on its
  checkpoint with the new one (exactly once, as any restart), so a revoke, a new filter or a new mask applies to a
  running stream within a heartbeat or two and its batch in flight; access the new document refuses fails the
  stream at planning (FAILED, naming the privilege and securable);
- a worker shutting down stops its drivers gracefully and frees their leases: the tick (tick.py) sends the
  supervise task again and another worker, or this one once it is back, resumes from the checkpoint.
"""

from __future__ import annotations

import enum
import hashlib
import json
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
from django.contrib.auth.models import User
from django.db import DatabaseError, close_old_connections, connection, transaction
from django.db.models import Case, CharField, F, PositiveIntegerField, Q, Value, When
from django.utils import timezone

from catalogs.access_history import access_refused
from grants.selectors import access_document
from jobs.engines import static_conf_for
from jobs.engines.calls import EngineCall
from jobs.engines.pool import engine_pool
from jobs.engines.process import EngineError, EngineKey
from jobs.engines.users import EngineUserError, engine_user
from jobs.models import SqlJob
from lakeport_engine.protocol import (
    AccessDocument,
    BatchEvent,
    EngineEvent,
    FailedEvent,
    QueryStartedEvent,
    RequestResult,
    StreamRequest,
)
from lakeport_kernel.redaction import redact
from lineage.services import StreamLineage, lineage_stream_ended, lineage_stream_started
from streams.hooks import stream_status_changed
from streams.models import ACTIVE_STATUSES, Desired, StreamState, StreamStatus
from streams.services.checkpoints import prepare_checkpoint
from streams.services.metrics import metric_record
from streams.services.statement import stream_script
from teams.models import Team

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
    NO_ENGINE = "no_engine"  # every engine slot of this worker is busy: the lease is freed for a later supervise


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
    # the running driver's owner and the digest of the access document it started with; `access_changed` once the
    # owner's document is another (the driver restarts with the new one)
    owner: tuple[Team, User | None] | None = None
    access_digest: str = ""
    access_changed: threading.Event = field(default_factory=threading.Event)


def access_digest(doc: AccessDocument) -> str:
    """A digest of an access document (its lists come sorted, so equal documents digest equal)."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


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
    return min(base * (2.0 ** max(0, failures - 1)), float(settings.LAKEPORT_STREAM_RESTART_BACKOFF_MAX_SECONDS))


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
        if "status" not in fields:
            return bool(self._mine().update(updated_at=timezone.now(), **fields))
        return self._move(self._mine(), **fields)

    def _move(self, rows: Any, **fields: Any) -> bool:
        """A status change and its listeners' writes (alerts' outbox) in one transaction."""
        with transaction.atomic():
            if not rows.update(updated_at=timezone.now(), **fields):
                return False
            stream_status_changed(job_id=self.job_id, status=str(fields["status"]), error=fields.get("last_error"),
                                  restarted="restarts" in fields)
        return True

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
                        changed = self._access_changed() or changed
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

    def _access_changed(self) -> bool:
        """True (once) when the running driver's owner now has another access document than it started with."""
        owner, started = self.view.owner, self.view.access_digest
        if owner is None or not started or self.view.access_changed.is_set():
            return False
        try:
            if access_digest(access_document(team=owner[0], user=owner[1])) == started:
                return False
        except DatabaseError:
            raise  # the heartbeat's own handling: the database is away
        except Exception:  # a heartbeat that dies would lose the lease: the driver keeps its document this time
            logger.exception("stream.access_check_failed", extra={"job_id": self.job_id})
            return False
        logger.info("stream.access_changed", extra={"job_id": self.job_id})
        self.view.access_changed.set()
        return True

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
            if end.ending is Ending.NO_ENGINE:  # the tick sends the supervise task again once the lease is free
                self._finish(StreamStatus.RESTARTING, last_error=end.message)
                return "deferred"
            if end.ending is Ending.RESTART:
                failures = 0
                self._set(status=StreamStatus.RESTARTING)
                continue
            if end.ending is Ending.REFUSED:
                # a refused access (the job owner's privileges at start) goes to the catalog history too
                access_refused(team_id=job.team_id, access=access_document(team=job.team, user=job.created_by),
                               message=end.message or "", entry="stream")
                self._finish(StreamStatus.FAILED, last_error=end.message)
                return "failed"
            failures = 1 if end.batches else failures + 1
            if failures > settings.LAKEPORT_STREAM_RESTART_BUDGET:
                self._finish(StreamStatus.FAILED, last_error=end.message)
                return "failed"
            self._set(status=StreamStatus.RESTARTING, restarts=F("restarts") + 1, last_error=end.message)
            self._pause(backoff_seconds(failures))

    # ---- lineage: an observation, never a reason for a stream to stop ------------------------------------------
    def _lineage_started(self, job: SqlJob, event: QueryStartedEvent) -> None:
        self.lineage = None
        lineage = event.get("lineage")
        if lineage is None:
            return  # capture is off
        try:
            self.lineage = lineage_stream_started(job=job, query_run_id=event.get("run_id", ""), lineage=lineage)
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
        """Run one driver: the job's engine from this worker's pool (counted in LAKEPORT_ENGINES_PER_WORKER, a
        dedicated key: stopped when the driver ends), one `stream` request, followed to its end."""
        try:
            script, key = self._driver_plan(job)
        except Exception as exc:  # a bad parameter or catalog: the statement cannot start
            return DriverEnd(Ending.REFUSED, redact(str(exc))[:2000])
        pool = engine_pool()
        with pool.lease(key) as engine:
            if engine is None:
                return DriverEnd(Ending.NO_ENGINE, "Every engine slot of this worker is busy "
                                                   "(LAKEPORT_ENGINES_PER_WORKER); the stream resumes on a free one.")
            try:
                checkpoint = prepare_checkpoint(team=key.team, job_id=job.id, generation=generation,
                                                user=engine_user(key.team))
                pool.start(engine)
            except (EngineError, EngineUserError, OSError) as exc:
                return DriverEnd(Ending.CRASHED, redact(str(exc))[:2000])
            follow = DriverFollow(self, job, generation, seen_seq)
            access = access_document(team=job.team, user=job.created_by)
            request = stream_request(job, script, str(checkpoint), access=access)
            self.view.access_changed.clear()
            self.view.access_digest = access_digest(access)
            self.view.owner = (job.team, job.created_by)
            try:
                with EngineCall(engine, request, on_event=follow.hear) as call:
                    return follow.until_end(call)
            finally:
                self.view.owner = None

    def _driver_plan(self, job: SqlJob) -> tuple[str, EngineKey]:
        """The script the driver runs (parameters rendered) and its engine's key (the job's own engine)."""
        script = stream_script(job).sql
        static = tuple(sorted(static_conf_for(script=script, team=job.team.name).items()))
        return script, EngineKey(team=job.team.name, static_conf=static, dedicated=f"stream{job.id}")

    # ---- what the driver's events change -------------------------------------------------------------------
    def on_batch(self, job: SqlJob, generation: int, event: BatchEvent) -> None:
        """A completed micro-batch: its metrics; the stream is RUNNING."""
        metric_record(job_id=job.id, generation=generation, event=event)
        self._move(self._mine().filter(status__in=[StreamStatus.STARTING, StreamStatus.RESTARTING]),
                   status=StreamStatus.RUNNING)

    def on_query_started(self, job: SqlJob, event: QueryStartedEvent) -> None:
        """The query started: its id and start time first (a reader that sees RUNNING sees them too), its lineage."""
        self._mine().filter(started_at__isnull=True).update(started_at=timezone.now())
        self._set(query_id=event.get("query_id", "")[:64] or None)
        self._move(self._mine().filter(status__in=[StreamStatus.STARTING, StreamStatus.RESTARTING]),
                   status=StreamStatus.RUNNING)
        self._lineage_started(job, event)

    def asked_ending(self, seen_seq: int) -> Ending | None:
        """What users (or this worker) asked of the running driver: stop, restart, shutdown, or nothing."""
        if self.view.desired == Desired.STOPPED:
            return Ending.STOPPED
        if self.view.restart_seq != seen_seq or self.view.access_changed.is_set():
            return Ending.RESTART  # asked for, or the owner's access changed: the new driver gets the new document
        if SHUTDOWN.is_set():
            return Ending.SHUTDOWN
        return None


def stream_request(job: SqlJob, script: str, checkpoint: str, *, access: AccessDocument) -> StreamRequest:
    """The engine request of a stream's driver (`access`: the owner's document, whose digest the heartbeat compares)."""
    return {"mode": "stream", "script": script, "checkpoint": checkpoint,
            "default_catalog": job.default_catalog or None, "spark_conf": dict(job.spark_conf or {}),
            "query_name": f"lakeport_job_{job.id}", "lineage": bool(settings.LAKEPORT_LINEAGE_CAPTURE),
            # a stream runs as its job's owner, with the owner's privileges when its driver starts (docs/access.md)
            "access": access}


class DriverFollow:
    """One driver's `stream` request as its supervisor follows it: its events in order, the stop users ask for
    (a graceful cancel, sent again until the engine hears it), and how it ended."""

    def __init__(self, supervisor: Supervisor, job: SqlJob, generation: int, seen_seq: int) -> None:
        self.supervisor = supervisor
        self.job = job
        self.generation = generation
        self.seen_seq = seen_seq
        self.events: queue.Queue[EngineEvent] = queue.Queue()
        self.asked: Ending | None = None
        self.asked_at = self.cancelled_at = 0.0
        self.failed: FailedEvent | None = None
        self.batches = 0

    def hear(self, event: EngineEvent) -> None:
        """The engine's reader thread: queue the event; wake the supervisor for those that change the stream."""
        self.events.put(event)
        if event["event"] in ("query_started", "failed", "stopped"):
            self.supervisor.wake.set()

    def until_end(self, call: EngineCall) -> DriverEnd:
        """Follow the request until it ends, the lease is lost, or a stop asked for takes too long."""
        sup = self.supervisor
        while True:
            sup.wake.wait(POLL_SECONDS)
            sup.wake.clear()
            self._drain()
            if sup.view.lost.is_set():
                return DriverEnd(Ending.LEASE_LOST, batches=self.batches)
            if call.done and self.events.empty():
                return self._ending(call.result)
            if not self._stop_as_asked(call):
                break  # the lease exit stops the engine; the sinks stay exactly once
        return DriverEnd(self.asked or Ending.CRASHED, batches=self.batches)

    def _drain(self) -> None:
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                return
            if event["event"] == "batch":
                self.batches += 1
                self.supervisor.on_batch(self.job, self.generation, event)
            elif event["event"] == "query_started":
                self.supervisor.on_query_started(self.job, event)
            elif event["event"] == "failed":
                self.failed = event

    def _stop_as_asked(self, call: EngineCall) -> bool:
        """Cancel the request when a stop is asked (again every few seconds); False once it took too long."""
        now = time.monotonic()
        if self.asked is None:
            self.asked = self.supervisor.asked_ending(self.seen_seq)
            if self.asked is not None:
                self.asked_at = self.cancelled_at = now
                call.cancel()  # graceful: the batch in flight finishes first
        elif now - self.asked_at > STOP_WAIT_SECONDS:
            return False
        elif now - self.cancelled_at > CANCEL_AGAIN_SECONDS:
            self.cancelled_at = now  # the engine may not have started the query when it came
            call.cancel()
        return True

    def _ending(self, result: RequestResult) -> DriverEnd:
        """How the request ended: as asked, its query's failure, or the engine's loss."""
        if self.asked is not None:
            return DriverEnd(self.asked, batches=self.batches)
        if self.failed is not None:
            message = readable(self.failed.get("message") or "The streaming query failed.")
            # refused at planning, or a checkpoint the edited query cannot resume: a restart would fail the same way
            refused = self.failed.get("planning") or self.failed.get("checkpoint_incompatible")
            return DriverEnd(Ending.REFUSED if refused else Ending.CRASHED, redact(message)[:2000], self.batches)
        if result.get("engine_lost"):
            error = result.get("error")
            reason = error["message"] if error else "The driver stopped."
            return DriverEnd(Ending.CRASHED, f"The stream's driver stopped unexpectedly: {reason}", self.batches)
        return DriverEnd(Ending.CRASHED, "The streaming query ended by itself.", self.batches)
