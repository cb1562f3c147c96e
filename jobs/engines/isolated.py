"""The isolated engine: one `spark-submit` of jobs/spark/runner.py per run, for cluster masters and static conf.

The driver reads the catalog table itself (DatabaseCatalogStore over psycopg) and writes JSON-line events to a
file that this process tails into the run. The command is an argument list with no shell and no secret: the
database password (PGPASSWORD) and the secret keys (LAKEPORT_SECRET_KEYS) travel in the environment.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspark
from django.conf import settings

from jobs.engines.base import Outcome, last_result, secret_env, store_dsn
from jobs.spark.redaction import redact

logger = logging.getLogger("lakeport.jobs")

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "jobs" / "spark" / "runner.py"
APP_ID_RE = re.compile(r"\b(app-\d{14}-\d{4}|local-\d{10,}|application_\d+_\d+|spark-[0-9a-f]{32})\b")
# Driver output worth keeping in the run log (Spark's INFO chatter is not).
KEEP_LINE_RE = re.compile(r"\b(WARN|ERROR|Exception|Traceback|Error:)\b")
KILL_GRACE_SECONDS = 10.0
_py_files_lock = threading.Lock()
_py_files: Path | None = None


def spark_submit_path() -> str:
    """`$SPARK_HOME/bin/spark-submit`, or the one shipped in the pyspark package."""
    home = os.environ.get("SPARK_HOME") or str(Path(pyspark.__file__).parent)
    return str(Path(home) / "bin" / "spark-submit")


@dataclass(frozen=True)
class SubmitSpec:
    """Everything a spark-submit command is built from (no secrets in here by construction)."""

    master: str
    app_name: str
    store: str
    team: str
    script_file: str
    events_file: str
    preview_limit: int
    jars: list[str] = field(default_factory=list)
    py_files: str | None = None
    conf: dict[str, str] = field(default_factory=dict)
    spark_submit: str = "spark-submit"
    runner: str = str(RUNNER)


def spark_submit_command(spec: SubmitSpec) -> list[str]:
    """The argument list for one isolated run (pure; unit-tested)."""
    cmd = [spec.spark_submit, "--master", spec.master, "--name", spec.app_name]
    if spec.master.startswith(("k8s://", "yarn")):
        cmd += ["--deploy-mode", "client"]  # the events file lives next to this worker
    if spec.jars:
        cmd += ["--jars", ",".join(spec.jars)]
    if spec.py_files:
        cmd += ["--py-files", spec.py_files]
    for key, value in sorted(spec.conf.items()):
        cmd += ["--conf", f"{key}={value}"]
    cmd += [spec.runner, "--store", spec.store, "--team", spec.team, "--events", spec.events_file,
            "--preview-limit", str(spec.preview_limit), "--app-name", spec.app_name, spec.script_file]
    return cmd


def py_files_zip() -> str:
    """jobs/spark zipped once per process for executors on a cluster (`--py-files`)."""
    global _py_files
    with _py_files_lock:
        if _py_files is None or not _py_files.exists():
            from jobs.spark.runner import build_py_files

            dest = Path(tempfile.mkdtemp(prefix="lakeport-pyfiles-"))
            _py_files = Path(build_py_files(dest))
        return str(_py_files)


def isolated_conf(*, run_conf: dict[str, str], static_conf: dict[str, str]) -> dict[str, str]:
    """Conf for an isolated driver: platform static conf, then the run's static needs, then its SQL overrides."""
    conf = {"spark.ui.showConsoleProgress": "false",
            "spark.pyspark.python": os.environ.get("PYSPARK_PYTHON", sys.executable)}
    conf.update({str(k): str(v) for k, v in settings.LAKEPORT_SPARK_STATIC_CONF.items()})
    conf.update(static_conf)
    conf.update(run_conf)
    return conf


class IsolatedEngine:
    """Runs a script in its own driver process; cancel terminates the process group."""

    name = "isolated"

    def __init__(self, *, static_conf: dict[str, str] | None = None) -> None:
        self.static_conf = static_conf or {}

    def execute(self, *, run: Any, recorder: Any, script: str) -> Outcome:
        """Run `script` for `run` in a fresh `spark-submit`, reporting events to `recorder`."""
        workdir = Path(tempfile.mkdtemp(prefix=f"lakeport-run-{run.id}-"))
        try:
            return self._execute(run=run, recorder=recorder, script=script, workdir=workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _execute(self, *, run: Any, recorder: Any, script: str, workdir: Path) -> Outcome:
        dsn, pg_env = store_dsn()
        if run.default_catalog:
            # Same line as the user's first statement: lines stay put, positions are shifted back by the recorder.
            prefix = f"USE CATALOG `{run.default_catalog}`; "
            recorder.hide_prefix(prefix)
            script = prefix + script
        script_file = workdir / "script.sql"
        script_file.write_text(script, encoding="utf-8")
        events_file = workdir / "events.jsonl"
        events_file.touch()
        spec = SubmitSpec(
            master=settings.SPARK_MASTER, app_name=f"lakeport-run-{run.id}", store=dsn, team=run.team.name,
            script_file=str(script_file), events_file=str(events_file),
            preview_limit=settings.LAKEPORT_RESULT_PREVIEW_ROWS,
            jars=[j for j in settings.SPARK_JDBC_JARS if os.path.exists(j)],
            py_files=None if settings.SPARK_MASTER.startswith("local") else py_files_zip(),
            conf=isolated_conf(run_conf=run.spark_conf or {}, static_conf=self.static_conf),
            spark_submit=spark_submit_path(),
        )
        env = {**os.environ, **pg_env, **secret_env(), "PYTHONPATH": str(REPO)}
        env.setdefault("PYSPARK_PYTHON", sys.executable)
        proc = subprocess.Popen(spark_submit_command(spec), cwd=workdir, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        tail: deque[str] = deque(maxlen=40)
        app = {"id": ""}
        reader = threading.Thread(target=self._read_output, args=(proc, recorder, tail, app), daemon=True)
        reader.start()
        recorder.on_cancel(lambda: terminate(proc))
        events = EventTail(events_file)
        end: dict[str, Any] | None = None
        statements: dict[int, dict[str, Any]] = {}
        while True:
            exited = proc.poll() is not None
            for event in events.read():
                end = self._dispatch(event, recorder, statements) or end
            if exited:
                break
            time.sleep(0.1)
        reader.join(timeout=5)
        ordered = [e for e in (recorder.user_position(statements[i]) for i in sorted(statements)) if e is not None]
        if end is not None:
            error = recorder.user_position(end["error"]) if end.get("error") else None
            return Outcome(succeeded=bool(end.get("succeeded")), error=error, statements=ordered,
                           catalogs_used=list(end.get("catalogs_used") or []), result=last_result(ordered),
                           engine=self.name, cancelled=bool(end.get("cancelled")))
        detail = redact(" | ".join(list(tail)[-5:]))[:2000]
        message = f"spark-submit exited with code {proc.returncode} before the script finished"
        return Outcome(succeeded=False, error={"statement": None, "line": None, "column": None,
                                               "message": f"{message}: {detail}" if detail else message + "."},
                       statements=ordered, engine=self.name)

    @staticmethod
    def _dispatch(event: dict[str, Any], recorder: Any, statements: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
        kind = event.get("event")
        if kind == "statement_start":
            recorder.on_statement_start(int(event.get("index", 0)), int(event.get("total", 0)), str(event.get("sql", "")))
        elif kind == "statement_end":
            statements[int(event.get("index", 0))] = event
            recorder.on_statement_end(event)
        elif kind == "log":
            recorder.on_log(str(event.get("message", "")))
        elif kind == "app":
            recorder.set_app(app_id=str(event.get("app_id", "")), ui_url=str(event.get("ui_url") or ""))
        elif kind == "progress":
            recorder.set_progress(**{k: int(v) for k, v in event.items() if k in (
                "stages_done", "stages_total", "tasks_done", "tasks_total")})
        elif kind == "script_end":
            return event
        return None

    @staticmethod
    def _read_output(proc: subprocess.Popen, recorder: Any, tail: deque[str], app: dict[str, str]) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = redact(raw.decode("utf-8", "replace").rstrip())
            tail.append(line)
            if not app["id"]:
                match = APP_ID_RE.search(line)
                if match:
                    app["id"] = match.group(1)
                    recorder.set_app(app_id=app["id"])
            if KEEP_LINE_RE.search(line):
                recorder.on_log(line)


class EventTail:
    """Reads complete JSON lines appended to the events file since the last call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""

    def read(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        self.offset += len(chunk)
        data = self.partial + chunk
        lines = data.split(b"\n")
        self.partial = lines.pop()
        events = []
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
        return events


def terminate(proc: subprocess.Popen) -> None:
    """SIGTERM the driver's process group, SIGKILL it if it has not exited after a grace period."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return

    def reap() -> None:
        try:
            proc.wait(timeout=KILL_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

    threading.Thread(target=reap, daemon=True).start()
