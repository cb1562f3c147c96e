"""One engine process seen from the worker: how it is launched, and the requests it is serving.

The launch is built by pure functions (`engine_env`, `engine_static_conf`, `engine_command`) so the rules are
unit-tested: the environment comes from an allow-list (no Fernet keys, Django secret, database or broker URL,
cloud credentials), the working directory is the team's scratch directory, and where the worker runs as root the
process runs as the team's own unprivileged user (jobs/engines/users.py). The process inherits two descriptors: the
channel (lakeport_engine/channel.py), a socket pair, and the lock of its scratch instance (jobs/engines/scratch.py),
which it holds until it dies so that the next engine of the team knows what a dead one left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import itertools
import logging
import os
import pwd
import signal
import site
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from catalogs.services.paths import catalog_bind_refusal, location_refusals
from core.errors import DomainError, Forbidden
from grants.services import access_statement_run
from jobs.engines.base import EventHandler
from jobs.engines.cds import cds_build_env, cds_java_options
from jobs.engines.scratch import EngineScratch, claim_scratch, scratch_dir, scratch_root, sweep_scratch
from jobs.engines.spark_home import lean_spark_home
from jobs.engines.spark_ui import ui_static_conf, ui_token
from jobs.engines.store import DjangoCatalogStore
from jobs.engines.users import EngineUserError, close_platform_files, engine_user, own_tree
from jobs.models import Engine
from lakeport_engine.channel import Channel, ChannelClosed, channel_pair
from lakeport_engine.matviews import VIEW_OPS, ViewStoreError, answer_view_question
from lakeport_engine.protocol import (
    AccessDocument,
    AnswerMessage,
    AskMessage,
    EngineRequest,
    InitMessage,
    ProtocolError,
    ReadyMessage,
    RequestResult,
    decode,
    failed_result,
    from_engine,
    run_message,
)
from lakeport_kernel.redaction import redact
from teams.models import Team

logger = logging.getLogger("lakeport.jobs")

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_SECONDS = 180.0
STOP_GRACE_SECONDS = 10.0
# Variables an engine may inherit from the worker: locale, time zone, Java and Spark locations. Nothing else.
ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "JAVA_HOME", "SPARK_HOME", "LAKEPORT_DELTA_MODE",
                 "LAKEPORT_JDBC_MYSQL_DRIVER", "LAKEPORT_DELTA_RETENTION_CHECK")

# Serial GC, a heap that gives memory back and glibc's freed native memory returned every 5 s: engines idle most
# of the time (measured in docs/benchmarks/engines.md). TrimNativeHeapInterval exists from JDK 17.0.9; older JVMs
# ignore it rather than refuse to start.
IDLE_FRIENDLY_JVM_OPTIONS = ("-XX:+UseSerialGC -Xms32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 "
                             "-XX:+IgnoreUnrecognizedVMOptions -XX:TrimNativeHeapInterval=5000")


class EngineError(RuntimeError):
    """The engine could not start, or stopped while serving a request."""


@dataclass(frozen=True)
class EngineKey:
    """What makes two runs share an engine: the team and the static conf; `dedicated` gives a run its own."""

    team: str
    static_conf: tuple[tuple[str, str], ...] = ()
    dedicated: str = ""

    @property
    def kind(self) -> Engine:
        """The job-facing engine name: `isolated` for a run's own engine, `warm` for the team's shared one."""
        return Engine.ISOLATED if self.dedicated else Engine.WARM

    @property
    def label(self) -> str:
        """A short name for logs and the Spark application name (no configuration values in it)."""
        digest = hashlib.sha256(repr(self.static_conf).encode()).hexdigest()[:8] if self.static_conf else "base"
        return f"{self.team}-{digest}" + (f"-{self.dedicated}" if self.dedicated else "")


@dataclass(frozen=True)
class EngineLaunch:
    """Everything an engine is started with (no secret in here by construction)."""

    command: list[str]
    env: dict[str, str]
    cwd: str
    user: str | None
    init: InitMessage | None = None


def reachable_by_others(path: str) -> bool:
    """True if a user who is neither owner nor group can execute `path` (every parent directory traversable)."""
    real = Path(os.path.realpath(path))
    for part in [*reversed(real.parents), real]:
        try:
            if not os.stat(part).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def engine_python(user: str | None) -> tuple[str, list[str]]:
    """The interpreter engines run with, and extra import paths it needs.

    The worker's own interpreter when the engine user can execute it; otherwise (a Python installed under a
    private home, as pyenv under /root) the system Python of the same version with the virtualenv's
    site-packages on its path, so the engine user never needs access to the worker's home.
    """
    own = os.environ.get("PYSPARK_PYTHON") or sys.executable
    if settings.LAKEPORT_ENGINE_PYTHON:
        return settings.LAKEPORT_ENGINE_PYTHON, list(site.getsitepackages())
    if user is None or reachable_by_others(own):
        return own, []
    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if os.path.exists(system) and reachable_by_others(system):
        return system, list(site.getsitepackages())
    return own, []


def engine_env(*, environ: Mapping[str, str], scratch: Path, python: str,
               python_path: list[str] | None = None, instance: str = "") -> dict[str, str]:
    """The engine's environment: the allow-listed variables of `environ` plus its own paths (pure).

    `instance` names the engine's own directories below the team's `tmp/` (jobs/engines/scratch.py).
    """
    env = {k: environ[k] for k in ENV_ALLOWLIST if k in environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update({
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp" / instance) if instance else str(scratch / "tmp"),
        "PYTHONPATH": os.pathsep.join([str(REPO), *(python_path or [])]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYSPARK_PYTHON": python,
        # The Spark UI and the driver bind to loopback: nothing outside the machine reaches them.
        "SPARK_LOCAL_IP": settings.LAKEPORT_ENGINE_BIND_ADDRESS,
    })
    return env


def engine_static_conf(*, key: EngineKey, scratch: Path, python: str, instance: str = "") -> dict[str, str]:
    """Static conf of an engine: platform defaults, the operator's, the run's static needs, then the guard's."""
    from lakeport_engine.guard import ENGINE_STATIC_CONF
    from lakeport_engine.platform_jar import nodump_agent_option, platform_jars
    from lakeport_engine.session import SESSION_DEFAULTS

    local, tmp = (scratch / "spark-local", scratch / "tmp")
    if instance:  # the engine's own directories: what it leaves is removed once it is dead
        local, tmp = local / instance, tmp / instance
    conf = {
        "spark.app.name": f"lakeport-{key.label}",
        # FAIR so a team's short run is not stuck behind its long one in the same engine.
        "spark.scheduler.mode": "FAIR",
        "spark.ui.showConsoleProgress": "false",
        "spark.ui.killEnabled": "false",
        "spark.pyspark.python": python,
        "spark.local.dir": str(local),
        "spark.driver.extraJavaOptions": IDLE_FRIENDLY_JVM_OPTIONS,
        **SESSION_DEFAULTS,
    }
    if not settings.SPARK_MASTER.startswith("local"):
        conf["spark.driver.memory"] = "512m"  # on a cluster the driver only plans; locally it is the executor too
    jars = [j for j in settings.SPARK_JDBC_JARS if os.path.exists(j)] + platform_jars()
    if jars:
        conf["spark.jars"] = ",".join(jars)
    conf.update({str(k): str(v) for k, v in settings.LAKEPORT_SPARK_STATIC_CONF.items()})
    conf.update(dict(key.static_conf))
    # The JVM's temp dir is the team's, whatever JVM options an operator adds; the JVM is non-dumpable from its start
    # (exec made it dumpable again): not even the team's own OS user reads its memory or environment.
    conf["spark.driver.extraJavaOptions"] = " ".join(filter(None, [
        conf["spark.driver.extraJavaOptions"], f"-Djava.io.tmpdir={tmp}", nodump_agent_option()]))
    conf.update(ENGINE_STATIC_CONF)  # last: an operator's or a catalog's conf cannot switch the guard off
    conf["spark.ui.killEnabled"] = "false"
    conf.update(ui_static_conf(conf.get("spark.ui.filters", "")))  # the UI answers only Lakeport's proxy
    events = event_log_dir(key.team)
    if events is not None:  # redacted as the UI is (spark.redaction.regex): for a history server after the engine
        conf.update({"spark.eventLog.enabled": "true", "spark.eventLog.dir": events.as_uri()})
    return conf


def engine_launch(key: EngineKey, *, environ: Mapping[str, str] | None = None, user: str | None = None,
                  instance: str = "") -> EngineLaunch:
    """How to start the engine for `key` as `user` in scratch instance `instance` (pure apart from settings)."""
    python, python_path = engine_python(user)
    scratch = scratch_dir(key.team)
    environ = os.environ if environ is None else environ
    env = engine_env(environ=environ, scratch=scratch, python=python,
                     python_path=python_path, instance=instance)
    static = engine_static_conf(key=key, scratch=scratch, python=python, instance=instance)
    spark_home = engine_spark_home(static, environ)
    if spark_home is not None:
        env["SPARK_HOME"] = str(spark_home)
        shared = cds_java_options(spark_home, jvm_options=IDLE_FRIENDLY_JVM_OPTIONS, python=sys.executable,
                                  env=cds_build_env(environ))
        if shared:  # Spark's classes mapped from the archive the worker built: a faster cold start
            static["spark.driver.extraJavaOptions"] = f"{static['spark.driver.extraJavaOptions']} {shared}"
    if not settings.SPARK_MASTER.startswith("local"):
        static["spark.submit.pyFiles"] = py_files_zip()  # executors on a cluster import lakeport_engine from it
    init: InitMessage = {
        "op": "init", "team": key.team, "master": settings.SPARK_MASTER, "app_name": f"lakeport-{key.label}",
        "static_conf": static, "connect_timeout": settings.LAKEPORT_CONNECT_TIMEOUT,
        "delta_mode": environ.get("LAKEPORT_DELTA_MODE"),
        "ui_token": ui_token(key.team),  # for the UI's access filter; over the channel only
        "policy": {"conf_allowlist": list(settings.LAKEPORT_SPARK_CONF_ALLOWLIST),
                   "allowed_functions": list(settings.LAKEPORT_ALLOWED_HIVE_FUNCTIONS)},
    }
    return EngineLaunch(command=[python, "-m", "lakeport_engine.engine", "--channel-fd", "{fd}"], env=env,
                        cwd=str(scratch), user=user, init=init)


def engine_spark_home(static: Mapping[str, str], environ: Mapping[str, str]) -> Path | None:
    """The lean Spark home an engine starts from (jobs/engines/spark_home.py), or None for the installation's.

    None when an operator names their own SPARK_HOME, when the master needs the jars left out (Kubernetes, YARN
    clients), or when LAKEPORT_ENGINE_LEAN_CLASSPATH is off.
    """
    master = settings.SPARK_MASTER
    if not settings.LAKEPORT_ENGINE_LEAN_CLASSPATH or environ.get("SPARK_HOME"):
        return None
    if not (master.startswith("local") or master.startswith("spark://")):
        return None
    spec = importlib.util.find_spec("pyspark")  # found, not imported: the worker never loads Spark itself
    if spec is None or spec.origin is None or not (Path(spec.origin).parent / "jars").is_dir():
        return None
    return lean_spark_home(Path(spec.origin).parent, scratch_root() / ".spark-homes",
                           hive=static.get("spark.sql.catalogImplementation") == "hive")


_py_files_lock = threading.Lock()


def py_files_zip() -> str:
    """lakeport_engine zipped once per worker for executors on a cluster, where engines can read it."""
    from lakeport_engine.runner import build_py_files

    dest = scratch_root() / "lakeport_engine.zip"
    with _py_files_lock:
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            build_py_files(dest)
            dest.chmod(0o644)
        return str(dest)


def event_log_dir(team: str) -> Path | None:
    """Where team `team`'s engines write Spark event logs (LAKEPORT_SPARK_EVENT_LOG_DIR), or None for none."""
    template = str(getattr(settings, "LAKEPORT_SPARK_EVENT_LOG_DIR", "") or "")
    return Path(template.replace("{team}", team)).resolve() if template else None


def prepare_team_data(team: str, user: str | None) -> None:
    """Create the team's default data roots under the platform's data dir, owned by the team's engine user, 0700.

    The data dir itself stays closed (keys, database): engine users may only pass through it to their roots. A root
    that belonged to another user (the shared engine user of earlier versions) is given to the team's, whole.
    """
    data_dir = Path(settings.DATA_DIR).resolve()
    roots = [Path(str(t).replace("{team}", team)).resolve() for t in getattr(settings, "LAKEPORT_TEAM_DATA_ROOTS", [])]
    events = event_log_dir(team)
    if events is not None:
        events.mkdir(parents=True, exist_ok=True, mode=0o700)  # Spark wants it to exist, writable by the engine
        if user is not None and data_dir not in events.parents:
            own_tree(events, pwd.getpwnam(user))  # the operator's place: its parents are the operator's to open
        roots.append(events)
    for root in roots:
        if data_dir not in root.parents:
            continue  # an operator's root elsewhere: provisioned by the operator (docs/engines.md)
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        if user is not None:
            pw = pwd.getpwnam(user)
            for parent in root.parents:
                if parent == data_dir.parent:
                    break
                mode = (parent.stat().st_mode | stat.S_IXOTH) & ~(stat.S_IROTH | stat.S_IWOTH)
                parent.chmod(mode)  # traverse, never list
            own_tree(root, pw)
            root.chmod(0o700)
    if user is not None:
        close_platform_files(data_dir, Path(settings.BASE_DIR) / ".env", keep=(
            scratch_root(), Path(settings.LAKEPORT_STREAM_CHECKPOINT_DIR), Path(settings.STATIC_ROOT)))


class PendingRequest:
    """One request sent to an engine: its events go to `on_event`, its result ends the wait."""

    def __init__(self, request_id: str, on_event: EventHandler | None, access: AccessDocument | None = None) -> None:
        self.id = request_id
        self.on_event = on_event
        self.access = access  # the caller's privileges: GRANT/REVOKE asks of this request act as its `user`
        self.done = threading.Event()
        self.result: RequestResult = {}

    def finish(self, result: RequestResult) -> None:
        if not self.done.is_set():
            self.result = result
            self.done.set()


class EngineProcess:
    """A started engine: the process, its channel, the requests in flight and when it was last used."""

    _ids = itertools.count(1)

    def __init__(self, key: EngineKey) -> None:
        self.key = key
        self.proc: subprocess.Popen[bytes] | None = None
        self.channel: Channel | None = None
        self.app_id = ""
        self.ui_url = ""
        self.leases = 0
        self.last_used = time.monotonic()
        self.started = threading.Event()
        self.start_lock = threading.Lock()  # concurrent first runs of a team wait for one start
        self._stopping = False  # set by stop(): the exit that follows is expected
        self.start_error: str | None = None
        self._pending: dict[str, PendingRequest] = {}
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._ready_message: ReadyMessage = {"op": "ready", "ok": False}
        self._store = DjangoCatalogStore(key.team)
        self.scratch: EngineScratch | None = None

    # ---- lifecycle ---------------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.start_error is None

    @property
    def busy(self) -> bool:
        with self._lock:
            return bool(self._pending) or self.leases > 0

    def start(self) -> None:
        """Launch the process and wait until its SparkSession is up; EngineError when it cannot start."""
        try:
            user = engine_user(self.key.team)
            scratch = claim_scratch(self.key.team, pwd.getpwnam(user) if user else None)
        except (EngineUserError, OSError) as exc:
            self.start_error = redact(str(exc))
            raise EngineError(f"The engine of team {self.key.team} could not start: {self.start_error}") from exc
        self.scratch = scratch
        try:
            launch = engine_launch(self.key, user=user, instance=scratch.instance)
            prepare_team_data(self.key.team, launch.user)
            ours, theirs = channel_pair()
        except BaseException:
            os.close(scratch.lock_fd)
            raise
        command = [part.replace("{fd}", str(theirs.fileno())) for part in launch.command]
        try:
            self.proc = subprocess.Popen(
                command, cwd=launch.cwd,
                env=launch.env, pass_fds=(theirs.fileno(), scratch.lock_fd), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, user=launch.user,
                group=_group_of(launch.user), extra_groups=[] if launch.user else None, umask=0o077,
            )
        finally:
            theirs.close()
            os.close(scratch.lock_fd)  # the engine's copy holds the lock from here on, until it dies
        self.channel = ours
        threading.Thread(target=self._read, name=f"lakeport-engine-{self.key.label}", daemon=True).start()
        threading.Thread(target=self._drain_stderr, name=f"lakeport-engine-err-{self.key.label}", daemon=True).start()
        with contextlib.suppress(ChannelClosed):
            if launch.init is not None:
                ours.send(launch.init)
        if not self._ready.wait(START_TIMEOUT_SECONDS) or not self._ready_message.get("ok"):
            reason = self._ready_message.get("error") or self._exit_reason() or "it did not start in time"
            self.start_error = redact(str(reason))
            self.stop()
            raise EngineError(f"The engine of team {self.key.team} could not start: {self.start_error}")
        self.app_id = self._ready_message.get("app_id", "")
        self.ui_url = self._ready_message.get("ui_url", "")
        self.started.set()
        logger.info("engine.started", extra={"engine": self.key.label, "pid": self.pid, "app_id": self.app_id})

    def stop(self, *, quiet: bool = False) -> None:
        """Ask the engine to shut down; kill its process group if it has not exited after a grace period.

        `quiet` logs nothing (at interpreter exit the log streams may already be closed).
        """
        self._stopping = True
        if self.channel is not None:
            with contextlib.suppress(ChannelClosed):
                self.channel.send({"op": "shutdown"})
        proc = self.proc
        if proc is None:
            return
        try:
            proc.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the JVM child, should it have outlived the engine
        if self.channel is not None:
            self.channel.close()
        with contextlib.suppress(OSError):
            sweep_scratch(self.key.team)  # this engine's directories, and any other dead engine's of the team
        if not quiet:
            logger.info("engine.stopped", extra={"engine": self.key.label, "pid": proc.pid})

    def _exit_reason(self) -> str:
        if self.proc is None or self.proc.poll() is None:
            return ""
        return f"the process exited with code {self.proc.returncode}"

    # ---- requests ----------------------------------------------------------------------------------------
    def request(self, payload: EngineRequest, *, on_event: EventHandler | None = None) -> PendingRequest:
        """Send a request (lakeport_engine/protocol.py); wait on the returned PendingRequest's `done`."""
        request_id = f"r{next(self._ids)}-{os.getpid()}"
        pending = PendingRequest(request_id, on_event, payload.get("access"))
        with self._lock:
            self._pending[request_id] = pending
        if not self.alive or self.channel is None:
            self._fail(pending)
            return pending
        try:
            self.channel.send(run_message(request_id, payload))
        except ChannelClosed:
            self._fail(pending)
        return pending

    def cancel(self, request_id: str) -> None:
        """Cancel a request's running statement; later statements are skipped."""
        if self.channel is not None:
            with contextlib.suppress(ChannelClosed):
                self.channel.send({"op": "cancel", "id": request_id})

    def forget(self, request_id: str) -> None:
        with self._lock:
            self._pending.pop(request_id, None)

    def _fail(self, pending: PendingRequest) -> None:
        reason = self._exit_reason() or "the channel closed"
        pending.finish(failed_result(f"The team engine stopped while running this request ({reason}).",
                                     engine_lost=True))
        self.forget(pending.id)

    # ---- the reader thread -------------------------------------------------------------------------------
    def _read(self) -> None:
        assert self.channel is not None
        for raw in self.channel.messages():
            try:
                message = from_engine(decode(raw))
            except ProtocolError as exc:
                self._refused(raw, exc)
                continue
            if message["op"] == "ready":
                self._ready_message = message
                self._ready.set()
            elif message["op"] == "event":
                pending = self._pending.get(message["id"])
                if pending is not None and pending.on_event is not None:
                    try:
                        pending.on_event(message["event"])
                    except Exception:  # a recorder failure must not stop the channel
                        logger.exception("engine.event_failed", extra={"engine": self.key.label})
            elif message["op"] == "result":
                with self._lock:
                    pending = self._pending.pop(message["id"], None)
                if pending is not None:
                    pending.finish(message["result"])
            else:
                self._answer(message)
        # The channel closed: the engine is gone. Every request it held fails (or is retried by its caller).
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
        self._ready.set()
        with self._lock:
            pending_list = list(self._pending.values())
        for pending in pending_list:
            self._fail(pending)
        if self.started.is_set() and not self._stopping:  # an exit nobody asked for
            logger.warning("engine.exited", extra={"engine": self.key.label, "pid": self.pid,
                                                   "reason": self._exit_reason()})

    def _refused(self, raw: dict[str, Any], error: ProtocolError) -> None:
        """A message of the engine that is not one of the protocol's: logged; a malformed result still ends its
        request, failed with the protocol error, so nobody waits for an answer that came unreadable."""
        logger.warning("engine.protocol_error", extra={"engine": self.key.label, "error": redact(str(error))[:500]})
        if raw.get("op") == "result" and isinstance(raw.get("id"), str):
            with self._lock:
                pending = self._pending.pop(raw["id"], None)
            if pending is not None:
                pending.finish(failed_result(f"Engine protocol error: {redact(str(error))[:2000]}"))

    def _answer(self, message: AskMessage) -> None:
        """Answer a catalog question, only ever from this engine's team (another team's name is unknown)."""
        op, name = message["op"], message.get("name", "")
        reply: AnswerMessage = {"op": "answer", "ask": message["ask"]}
        try:
            close_old_connections()
            if op == "catalog":
                entry = self._store.get_catalog(name)
                # the platform's own services and other teams' paths, checked again now (DNS may have changed)
                refusal = None if entry is None else catalog_bind_refusal(
                    team=self.key.team, name=entry.name, catalog_type=entry.type, plain=entry.configuration)
                if refusal is not None:
                    reply["error"] = refusal
                elif entry is not None:
                    reply["entry"] = {
                        "name": entry.name, "type": entry.type, "configuration": entry.configuration,
                        "version": entry.version, "fingerprint": entry.fingerprint}
            elif op == "catalogs":
                reply["names"] = self._store.list_catalogs()
            elif op in VIEW_OPS:  # materialized view definitions, of this engine's team only
                answer = answer_view_question(self._store.materialized_views, str(op), message)
                if "view" in answer:
                    reply["view"] = answer["view"]
                if "views" in answer:
                    reply["views"] = answer["views"]
            elif op in ("grant", "revoke", "grants"):  # GRANT/REVOKE/SHOW GRANTS as SQL, as the request's caller
                reply["grants"] = self._access_statement(message)
            elif op == "locations":  # a Hive table's locations, judged as a catalog's paths on save
                reply["refused"] = location_refusals(team=self.key.team,
                                                     locations=[str(x) for x in message.get("locations", [])])
            else:
                reply["found"] = self._store.contains(name)
        except ViewStoreError as exc:  # a refused save (another team's or a non-Delta catalog): said as it is
            reply["error"] = str(exc)
        except DomainError as exc:  # a refused GRANT/REVOKE (no MANAGE, unknown member…): said as it is
            reply["error"] = exc.message
        except Exception as exc:  # the platform database may be down: the engine reports a store error
            reply["error"] = f"The catalog store is unavailable ({type(exc).__name__})."
        finally:
            close_old_connections()  # like the end of a request: CONN_MAX_AGE decides whether it stays open
        if self.channel is not None:
            with contextlib.suppress(ChannelClosed):
                self.channel.send(reply)

    def _access_statement(self, message: AskMessage) -> list[dict[str, str]]:
        """GRANT/REVOKE/SHOW GRANTS for the request in flight that asked: its caller is the one the platform sent
        with it (never a name the engine supplies), in this engine's team only."""
        with self._lock:
            pending = self._pending.get(str(message.get("request", "")))
        access = pending.access if pending is not None else None
        if access is None:
            raise Forbidden("GRANT, REVOKE and SHOW GRANTS need a signed-in member of the team.")
        return access_statement_run(
            team=Team.objects.get(name=self.key.team), username=access["user"], op=str(message["op"]),
            privileges=[str(p) for p in message.get("privileges") or []], securable=message.get("securable"),
            principal_type=message.get("principal_type"), principal=message.get("principal"))

    def _drain_stderr(self) -> None:
        # Spark's driver chatter: keep warnings and errors in the worker log (redacted), drop the rest.
        assert self.proc is not None and self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if " ERROR " in line or "Traceback" in line or "Error:" in line:
                logger.warning("engine.stderr", extra={"engine": self.key.label, "line": redact(line)[:500]})


def _group_of(user: str | None) -> int | None:
    return pwd.getpwnam(user).pw_gid if user else None

