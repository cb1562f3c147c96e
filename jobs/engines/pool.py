"""The worker's engines: one long-lived engine per team (and per distinct static conf), started on demand.

Kyuubi's GROUP share level with the team as the group. The pool caps engines per worker process
(LAKEPORT_ENGINES_PER_WORKER); when it is full the least recently used idle engine is stopped, and when none is
idle `lease()` answers None so the caller leaves its run QUEUED and tries again. A janitor thread stops engines
idle for LAKEPORT_ENGINE_IDLE_SECONDS and forgets engines that died (the next lease starts a fresh one).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
from collections.abc import Iterator

from django.conf import settings

from jobs.engines.process import EngineError, EngineKey, EngineProcess

logger = logging.getLogger("lakeport.jobs")

JANITOR_SECONDS = 5.0


class EnginePool:
    """Engines of this worker process, by key."""

    def __init__(self, *, capacity: int, idle_seconds: float) -> None:
        self.capacity = max(1, capacity)
        self.idle_seconds = idle_seconds
        self._engines: dict[EngineKey, EngineProcess] = {}
        self._lock = threading.Lock()
        self._janitor: threading.Thread | None = None
        self._closed = False

    def engines(self) -> list[EngineProcess]:
        """A snapshot of the engines this worker holds."""
        with self._lock:
            return list(self._engines.values())

    @contextlib.contextmanager
    def lease(self, key: EngineKey) -> Iterator[EngineProcess | None]:
        """A slot for `key`'s engine, held for the block (start it with `start()`); None when full and busy.

        A dedicated key (a run that asked for an isolated engine) gets a fresh engine stopped after the block.
        """
        engine, to_stop = self._acquire(key)
        for old in to_stop:
            old.stop()
        if engine is None:
            yield None
            return
        try:
            yield engine
        finally:
            self._release(engine)

    def start(self, engine: EngineProcess) -> None:
        """Start a leased engine unless it already runs; EngineError (and the engine forgotten) if it cannot."""
        with engine.start_lock:
            if engine.started.is_set():
                return
            try:
                engine.start()
            except EngineError:
                with self._lock:
                    if self._engines.get(engine.key) is engine:
                        del self._engines[engine.key]
                raise

    def _acquire(self, key: EngineKey) -> tuple[EngineProcess | None, list[EngineProcess]]:
        self._ensure_janitor()
        to_stop: list[EngineProcess] = []
        with self._lock:
            engine = self._engines.get(key)
            if engine is not None and engine.started.is_set() and not engine.alive:
                del self._engines[key]  # crashed: forget it, a fresh one starts below
                engine = None
            if engine is None:
                while len(self._engines) >= self.capacity:
                    idle = [e for e in self._engines.values() if e.leases == 0]
                    if not idle:
                        return None, to_stop
                    victim = min(idle, key=lambda e: e.last_used)
                    del self._engines[victim.key]
                    to_stop.append(victim)
                    logger.info("engine.evicted", extra={"engine": victim.key.label})
                engine = EngineProcess(key)
                self._engines[key] = engine
            engine.leases += 1
            engine.last_used = time.monotonic()
            return engine, to_stop

    def _release(self, engine: EngineProcess) -> None:
        with self._lock:
            engine.leases -= 1
            engine.last_used = time.monotonic()
            dedicated = bool(engine.key.dedicated)
            if dedicated and self._engines.get(engine.key) is engine:
                del self._engines[engine.key]
        if dedicated:
            engine.stop()

    def stop_idle(self, *, now: float | None = None) -> list[EngineKey]:
        """Stop engines idle longer than the TTL and forget dead ones; returns the keys stopped."""
        now = time.monotonic() if now is None else now
        stopped: list[EngineProcess] = []
        with self._lock:
            for key, engine in list(self._engines.items()):
                dead = engine.started.is_set() and not engine.alive
                idle = engine.leases == 0 and now - engine.last_used > self.idle_seconds
                if dead or idle:
                    del self._engines[key]
                    stopped.append(engine)
        for engine in stopped:
            engine.stop()
        return [e.key for e in stopped]

    def close(self) -> None:
        """Stop every engine (worker shutdown)."""
        self._closed = True
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
        for engine in engines:
            with contextlib.suppress(Exception):
                engine.stop(quiet=True)

    def _ensure_janitor(self) -> None:
        if self._janitor is None:
            self._janitor = threading.Thread(target=self._janitor_loop, name="lakeport-engine-janitor", daemon=True)
            self._janitor.start()

    def _janitor_loop(self) -> None:
        while not self._closed:
            time.sleep(JANITOR_SECONDS)
            try:
                self.stop_idle()
            except Exception:  # keep the janitor alive whatever one engine did
                logger.exception("engine.janitor_failed")


_pool: EnginePool | None = None
_pool_lock = threading.Lock()


def rss_bytes(pid: int) -> int:
    """Resident memory of process `pid` (Linux /proc; 0 when it is gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def engines_by_team(pool: EnginePool | None = None) -> dict[str, dict[str, int]]:
    """The alive engines of this worker process per team, and their resident memory: `{team: {alive, rss_bytes}}`
    (the worker heartbeat stores it for /metrics). Empty when this process has no pool."""
    pool = pool if pool is not None else _pool
    summary: dict[str, dict[str, int]] = {}
    for engine in pool.engines() if pool is not None else []:
        pid = engine.pid
        if not engine.started.is_set() or not engine.alive or pid is None:
            continue
        team = summary.setdefault(engine.key.team, {"alive": 0, "rss_bytes": 0})
        team["alive"] += 1
        team["rss_bytes"] += rss_bytes(pid)
    return summary


def engine_pool() -> EnginePool:
    """This worker process's pool (created on first use; engines are stopped when the process exits)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = EnginePool(capacity=settings.LAKEPORT_ENGINES_PER_WORKER,
                               idle_seconds=settings.LAKEPORT_ENGINE_IDLE_SECONDS)
            atexit.register(_pool.close)
        return _pool
