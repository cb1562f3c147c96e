"""The worker's parse server (lakeport_engine/parse_server.py): syntax checks that never wait for an engine start.

One per worker process, started by the first validation that finds a team's engine starting (and again if it dies),
so a worker that never serves the editor never runs it. While a team's engine starts, validate answers with Spark's
own parser alone (`checked: "syntax"`), and the editor asks
again once the engine is up. The server gets an allow-listed environment (no platform secret) and a private
temporary home; it runs the parser only, never a statement.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import queue
import subprocess
import sys
import tempfile
import threading
from typing import IO

from core.errors import Unavailable
from jobs.engines.process import ENV_ALLOWLIST, REPO
from lakeport_engine.syntax import SyntaxProblem

logger = logging.getLogger("lakeport.engines")


class ParseServer:
    """A `python -m lakeport_engine.parse_server` child, asked one script at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one request in flight: the server answers in order
        self._start_lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[dict[str, object]] = queue.Queue()
        self._ready = threading.Event()
        self._ids = itertools.count(1)

    @property
    def ready(self) -> bool:
        """True when the server is up and has loaded the parser."""
        return self._ready.is_set() and self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the server unless it runs or is starting; returns at once (it is ready some seconds later)."""
        with self._start_lock:
            if self._proc is not None and self._proc.poll() is None:
                return
            self._ready.clear()
            self._replies = queue.Queue()
            home = tempfile.mkdtemp(prefix="lakeport-parser-")
            env = {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}
            env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
            env.update({"HOME": home, "TMPDIR": home, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"})
            python = os.environ.get("PYSPARK_PYTHON") or sys.executable
            self._proc = subprocess.Popen(
                [python, "-m", "lakeport_engine.parse_server"], env=env, cwd=home, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # in the worker's group: stops with it
            threading.Thread(target=self._read, args=(self._proc.stdout, self._replies), daemon=True,
                             name="lakeport-parse-server").start()

    def _read(self, stream: IO[bytes] | None, replies: queue.Queue[dict[str, object]]) -> None:
        assert stream is not None
        for raw in stream:
            with contextlib.suppress(ValueError):
                message = json.loads(raw)
                if message.get("ready"):
                    self._ready.set()
                    logger.info("parser.ready")
                else:
                    replies.put(message)

    def check(self, script: str, *, timeout: float = 5.0) -> list[SyntaxProblem] | None:
        """The syntax problems of `script`, or None when the server is not ready (it is started then) or fails
        (a check that takes over `timeout` seconds replaces the server)."""
        if not self.ready:
            self.start()
            return None
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None:
                return None
            ident = next(self._ids)
            try:
                proc.stdin.write((json.dumps({"id": ident, "script": script}) + "\n").encode())
                proc.stdin.flush()
            except OSError:
                return None
            while True:
                try:
                    reply = self._replies.get(timeout=timeout)
                except queue.Empty:  # a parser that hangs is replaced: the engine's validation still answers
                    self.stop()
                    return None
                if reply.get("id") != ident:
                    continue  # the late answer of a request that timed out
                problems = reply.get("problems")
                if not isinstance(problems, list):
                    logger.warning("parser.failed", extra={"error": str(reply.get("error"))[:200]})
                    return None
                return problems

    def wait_ready(self, timeout: float) -> bool:
        """Start the server if needed and wait until it has loaded the parser (False: not within `timeout`)."""
        self.start()
        return self._ready.wait(timeout)

    def stop(self) -> None:
        """Stop the server (the next check starts a new one)."""
        proc, self._proc = self._proc, None
        self._ready.clear()
        if proc is not None and proc.poll() is None:
            proc.kill()  # its JVM exits when its stdin closes (py4j's die_on_exit)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)


_server: ParseServer | None = None
_server_lock = threading.Lock()


def parse_server() -> ParseServer:
    """This process's parse server (not started until `start()` or a first `check()`)."""
    global _server
    with _server_lock:
        if _server is None:
            _server = ParseServer()
        return _server


def statement_parse_error(sql: str, *, timeout: float = 60.0) -> str | None:
    """Spark's parse error of one statement (None: it parses), asked of this process's parse server (started and
    waited for if needed: a save of a row filter or column mask checks its expression this way). Unavailable
    when the server does not come up or answer."""
    server = parse_server()
    problems = server.check(sql) if server.wait_ready(timeout) else None
    if problems is None:
        raise Unavailable("Spark's parser is not available to check the expression; try again in a moment.")
    return str(problems[0]["message"]) if problems else None
