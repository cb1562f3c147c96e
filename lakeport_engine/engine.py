"""A team engine: one long-lived Spark driver process that runs one team's SQL and holds no platform secret.

    python -m lakeport_engine.engine --channel-fd 3

Started by a worker (jobs/engines/pool.py) with a scrubbed environment, a per-team scratch directory as its
working directory and, where the platform runs as root, an unprivileged user. It talks to the platform only
through the channel on `--channel-fd` (lakeport_engine/channel.py), in the messages of lakeport_engine/protocol.py,
each decoded (and refused with a protocol error when malformed) by its one decoder: the platform sends `init`
(team, master, static conf, guard policy), then `run` requests (mode run | validate | preview | live | stream) and
`cancel`s (for a `stream` request: stop after the batch in flight); the engine answers with `event`s and one
`result` per request, and asks for catalogs by name (`catalog`, `catalogs`, `contains`, `locations`), which the
platform answers only for this engine's team. Every request gets `spark.newSession()`: its own SQL conf,
current catalog and temp views. The engine exits when the channel closes, so it never outlives its worker.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import os
import re
import socket
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if __package__ in (None, ""):
    _root = Path(__file__).resolve().parents[1]
    if str(_root) not in sys.path:
        sys.path.insert(0, str(_root))

import contextlib

from lakeport_engine.channel import Channel, ChannelClosed  # noqa: E402
from lakeport_engine.grants_sql import AccessStatement  # noqa: E402
from lakeport_engine.matviews import ChannelViewStore  # noqa: E402
from lakeport_engine.protocol import (  # noqa: E402
    AnswerMessage,
    AskMessage,
    EngineEvent,
    EngineRequest,
    InitMessage,
    LivePreviewRequest,
    PreviewRequest,
    ProtocolError,
    RequestResult,
    RunScriptRequest,
    StatementEvent,
    StreamRequest,
    decode,
    event_message,
    failed_result,
    result_message,
    to_engine,
)
from lakeport_engine.store import CatalogEntry, CatalogStoreError  # noqa: E402
from lakeport_engine.streaming.interactive import live_preview, preview_streaming, validate_streaming  # noqa: E402
from lakeport_kernel.redaction import on_secret_registered, redact, spark_redaction_regex  # noqa: E402

if TYPE_CHECKING:
    from lakeport_engine.script import ScriptRunner, StatementResult

ASK_TIMEOUT_SECONDS = 60.0
REDACTION_CONF = "spark.sql.redaction.string.regex"  # Spark masks what it matches in plan strings
# How long an idle thread of Spark's cached RPC pools lives (Spark: 60 s); ~90 KiB resident each while it does.
IDLE_POOL_THREAD_SECONDS = 5
# Spark's RPC endpoints whose cached thread pool (field) keeps idle threads for a minute.
SPARK_CACHED_POOLS = {"org.apache.spark.storage.BlockManagerMasterEndpoint": "askThreadPool",
                      "org.apache.spark.storage.BlockManagerStorageEndpoint": "asyncThreadPool"}
# First keywords whose statement may still wrap a write (WITH … INSERT, FROM … INSERT): the parsed plan decides.
PLAN_CHECKED = {"with", "from", "("}
WRITE_NODE_RE = re.compile(
    r"^[\s:+\-|]*'?(InsertInto\w*|\w*Command|CreateTable\w*|ReplaceTable\w*|DropTable\w*|AppendData|"
    r"OverwriteByExpression|OverwritePartitionsDynamic|MergeIntoTable|UpdateTable|DeleteFromTable|\w*Write\w*)\b",
    re.MULTILINE,
)


class PlatformAsker:
    """Questions from the engine to the platform over the channel, answered by the channel's reader thread."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[threading.Event, dict[str, Any]]] = {}
        self.closed = False

    def ask(self, op: str, **data: Any) -> dict[str, Any]:
        """Send a question and wait for its answer; CatalogStoreError when the platform does not answer."""
        ask_id = next(self._ids)
        done, box = threading.Event(), cast(dict[str, Any], {})
        with self._lock:
            self._waiting[ask_id] = (done, box)
        try:
            question: AskMessage = {"op": op, "ask": ask_id, **data}  # type: ignore[typeddict-item]
            self.channel.send(question)
            if not done.wait(ASK_TIMEOUT_SECONDS) or self.closed:
                raise CatalogStoreError("The platform did not answer the catalog lookup.")
        except ChannelClosed:
            raise CatalogStoreError("The platform closed the engine channel.") from None
        finally:
            with self._lock:
                self._waiting.pop(ask_id, None)
        if box.get("error"):
            raise CatalogStoreError(str(box["error"]))
        return box

    def answer(self, message: AnswerMessage) -> None:
        """Deliver an `answer` message to the thread waiting for it."""
        with self._lock:
            waiting = self._waiting.get(message["ask"])
        if waiting is not None:
            waiting[1].update(message)
            waiting[0].set()

    def close(self) -> None:
        """Wake every waiting thread: no answer will come."""
        self.closed = True
        with self._lock:
            for done, _ in self._waiting.values():
                done.set()


class ChannelCatalogStore:
    """The team's catalogs, asked of the platform one name at a time (it decrypts secrets on its side)."""

    def __init__(self, team: str, asker: PlatformAsker, request_id: str = "") -> None:
        self.team = team
        self.asker = asker
        self.request_id = request_id  # GRANT/REVOKE act as this request's caller (the platform knows who)
        self.materialized_views = ChannelViewStore(asker)  # the team's materialized view definitions

    def get_catalog(self, name: str) -> CatalogEntry | None:
        """The team's catalog `name` or None; another team's catalog is None too (the platform says so)."""
        entry = self.asker.ask("catalog", name=name).get("entry")
        if not entry:
            return None
        return CatalogEntry(name=entry["name"], type=entry["type"], configuration=entry["configuration"],
                            version=int(entry.get("version", 1)), fingerprint=str(entry.get("fingerprint", "")))

    def list_catalogs(self) -> list[str]:
        """Sorted names of the team's catalogs."""
        return list(self.asker.ask("catalogs").get("names") or [])

    def contains(self, name: str) -> bool:
        """True if the team has a catalog called `name`."""
        return bool(self.asker.ask("contains", name=name).get("found"))

    def check_locations(self, locations: list[str]) -> dict[str, str]:
        """Which of these table locations the team may not use, with why (the platform judges, as on a save)."""
        refused = self.asker.ask("locations", locations=list(locations)).get("refused") or {}
        return {str(k): str(v) for k, v in refused.items()}

    def access_statement(self, statement: AccessStatement) -> list[dict[str, str]]:
        """Carry out GRANT/REVOKE as this request's caller, or list grants (SHOW GRANTS); the platform decides who
        may (CatalogStoreError with its message when it refuses)."""
        op = {"grant": "grant", "revoke": "revoke"}.get(statement.verb, "grants")
        data: dict[str, Any] = {"request": self.request_id, "privileges": statement.privileges}
        for key in ("securable", "principal_type", "principal"):
            value = getattr(statement, key)
            if value is not None:
                data[key] = value
        return list(self.asker.ask(op, **data).get("grants") or [])


class ChannelListener:
    """ScriptListener that forwards a request's statement events to the platform."""

    def __init__(self, channel: Channel, request_id: str) -> None:
        self.channel = channel
        self.request_id = request_id

    def send(self, event: EngineEvent) -> None:
        """Send one event of this request (lost silently when the platform is gone: the engine then exits)."""
        with contextlib.suppress(ChannelClosed):
            self.channel.send(event_message(self.request_id, cast(EngineEvent, {**event, "ts": time.time()})))

    def event(self, name: str, **data: Any) -> None:
        """Send event `name` with `data` (the runtime's listeners speak in names and fields)."""
        self.send(cast(EngineEvent, {"event": name, **data}))

    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        self.event("statement_start", index=index, total=total, sql=redact(sql))

    def on_statement_end(self, result: StatementResult) -> None:
        self.event("statement_end", **result.as_dict())  # the worker hears one shape: StatementEvent, a dict

    def on_log(self, message: str) -> None:
        self.event("log", message=redact(message))


class EngineHost:
    """Serves run requests on one SparkContext for one team."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.asker = PlatformAsker(channel)
        self.spark: Any = None
        self.team = ""
        self.settings: dict[str, Any] = {}
        self._runners: dict[str, ScriptRunner] = {}
        self._live_stops: dict[str, threading.Event] = {}  # live previews by request id: a cancel stops them
        self._stream_stops: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        on_secret_registered(self._refresh_redaction)

    def _refresh_redaction(self) -> None:
        """A catalog secret was just opened: the sessions of running requests mask it before they run more SQL."""
        with self._lock:
            sessions = [runner.spark for runner in self._runners.values()]
        for session in sessions:
            with contextlib.suppress(Exception):  # a session being torn down needs no mask any more
                session.conf.set(REDACTION_CONF, spark_redaction_regex())

    # ---- lifecycle ---------------------------------------------------------------------------------------
    def serve(self) -> None:
        """Read messages until the channel closes or the platform says shutdown."""
        try:
            for raw in self.channel.messages():
                try:
                    message = to_engine(decode(raw))
                except ProtocolError as exc:
                    self._refuse(raw, exc)
                    continue
                if message["op"] == "answer":
                    self.asker.answer(message)
                elif message["op"] == "init":
                    self._init(message)
                elif message["op"] == "run":
                    threading.Thread(target=self._run_request, args=(message["id"], message["request"]),
                                     daemon=True, name=f"lakeport-request-{message['id']}").start()
                elif message["op"] == "cancel":
                    self._cancel(message["id"])
                elif message["op"] == "shutdown":
                    break
        finally:
            self.asker.close()
            if self.spark is not None:
                with contextlib.suppress(Exception):  # the JVM may already be gone; the process exits either way
                    self.spark.stop()

    def _refuse(self, raw: dict[str, Any], error: ProtocolError) -> None:
        """A message that is not one of the protocol's: a request with an id fails with the protocol error (its
        caller hears why); anything else is reported on stderr, which the worker logs."""
        request_id = raw.get("id")
        text = redact(f"Engine protocol error: {error}")[:2000]
        if isinstance(request_id, str) and raw.get("op") == "run":
            with contextlib.suppress(ChannelClosed):
                self.channel.send(result_message(request_id, failed_result(text)))
        else:
            print(f"lakeport engine: Error: {text}", file=sys.stderr, flush=True)

    def _init(self, message: InitMessage) -> None:
        from pyspark.sql import SparkSession

        _drop_numpy_converters()
        self.team = str(message["team"])
        self.settings = dict(message)
        builder = SparkSession.builder.master(message["master"] or "local[*]")
        builder = builder.appName(message["app_name"] or f"lakeport-engine-{self.team}")
        static = {str(k): str(v) for k, v in message["static_conf"].items()}
        for key, value in static.items():
            builder = builder.config(key, value)
        # typed secrets never reach plan strings (SQL tab, event log): credential shapes now, catalog secrets as bound
        builder = builder.config(REDACTION_CONF, spark_redaction_regex())
        if static.get("spark.sql.catalogImplementation") == "hive":
            builder = builder.enableHiveSupport()
        try:
            self.spark = builder.getOrCreate()
        except Exception as exc:  # a bad static conf: the platform fails the run with this message
            self.channel.send({"op": "ready", "ok": False, "error": redact(str(exc).splitlines()[0][:500])})
            return
        sc = self.spark.sparkContext
        _shorten_idle_pool_threads(self.spark)
        _open_ui_to(self.spark, str(message.get("ui_token") or ""))
        for path in filter(None, static.get("spark.submit.pyFiles", "").split(",")):
            sc.addPyFile(path)  # executors on a cluster import lakeport_engine from it (no spark-submit did it)
        self.channel.send({"op": "ready", "ok": True, "pid": os.getpid(), "app_id": sc.applicationId,
                           "ui_url": sc.uiWebUrl or ""})

    # ---- requests ----------------------------------------------------------------------------------------
    def _runner(self, request_id: str, request: EngineRequest, listener: ChannelListener | None) -> ScriptRunner:
        from lakeport_engine.script import ScriptRunner

        session = self.spark.newSession()
        spark_conf = request["spark_conf"] if request["mode"] in ("run", "stream") else {}
        for key, value in spark_conf.items():
            session.conf.set(str(key), str(value))
        session.conf.set(REDACTION_CONF, spark_redaction_regex())
        preview_limit = request["preview_limit"] if request["mode"] in ("run", "preview") else 1000
        kwargs: dict[str, Any] = {
            "team": self.team, "preview_limit": preview_limit, "listener": listener,
            "job_group": f"lakeport-{request_id}", "connect_timeout": float(self.settings.get("connect_timeout", 10)),
            "delta_mode": self.settings.get("delta_mode"),
            # lineage travels back with each statement's result; the snapshot pins the run's Delta versions
            "lineage": request["lineage"] if request["mode"] in ("run", "stream") else True,
            "snapshot": request.get("snapshot") if request["mode"] in ("run", "preview") else None,
            "access": request.get("access"),  # the caller's privileges: the guard checks every statement against them
        }
        policy = _guard_policy(self.settings.get("policy"))
        if policy is not None:
            kwargs["policy"] = policy
        return ScriptRunner(session, ChannelCatalogStore(self.team, self.asker, request_id), **kwargs)

    def _run_request(self, request_id: str, request: EngineRequest) -> None:
        listener = ChannelListener(self.channel, request_id)
        reply: RequestResult
        try:
            runner = self._runner(request_id, request, listener if request["mode"] in ("run", "stream") else None)
            with self._lock:
                self._runners[request_id] = runner
            if request["mode"] == "validate":
                use_default_catalog(runner, request["default_catalog"])
                script = request["script"]
                errors, schema = (validate_streaming(runner, script, writes=lambda sql: plan_writes(self.spark, sql))
                                  or runner.validate(script))
                reply = {"errors": errors, "schema": schema}  # type: ignore[typeddict-item]
            elif request["mode"] == "preview":
                use_default_catalog(runner, request["default_catalog"])
                reply = self._preview(runner, request)
            elif request["mode"] == "live":
                use_default_catalog(runner, request["default_catalog"])
                reply = self._live(runner, request, listener, request_id)
            elif request["mode"] == "stream":
                reply = self._stream(runner, request, listener, request_id)
            else:
                reply = self._run_script(runner, request, listener)
        except Exception as exc:  # anything the runtime did not turn into a statement error
            reply = failed_result(redact(f"{type(exc).__name__}: {exc}".splitlines()[0])[:2000])
        finally:
            with self._lock:
                self._runners.pop(request_id, None)
        with contextlib.suppress(ChannelClosed):
            self.channel.send(result_message(request_id, reply))

    def _run_script(self, runner: ScriptRunner, request: RunScriptRequest,
                    listener: ChannelListener) -> RequestResult:
        from lakeport_engine.progress import ProgressSampler

        sc = runner.spark.sparkContext
        listener.send({"event": "app", "app_id": sc.applicationId, "ui_url": sc.uiWebUrl or ""})
        use_default_catalog(runner, request["default_catalog"])
        with ProgressSampler(sc, runner.job_group, lambda counts: listener.event("progress", **counts)):
            result = runner.run(request["script"])
        return {"succeeded": result.succeeded, "error": result.error,  # type: ignore[typeddict-item]
                "catalogs_used": list(result.catalogs_used), "cancelled": result.cancelled,
                "statements": [cast(StatementEvent, s.as_dict()) for s in result.statements]}

    def _preview(self, runner: ScriptRunner, request: PreviewRequest) -> RequestResult:
        script = request["script"]
        streaming = preview_streaming(runner, script, limit=request["preview_limit"],
                                      writes=lambda sql: plan_writes(self.spark, sql))
        if streaming is not None:  # a batch over each source's newest records; the sink is never written
            return streaming  # type: ignore[return-value]
        last = request["check_writes"]
        if last and plan_writes(self.spark, last):
            return {"succeeded": False, "writes": True}
        result = runner.run(script)
        if not result.succeeded:
            return {"succeeded": False, "error": result.error}  # type: ignore[typeddict-item]
        final = result.statements[-1]
        return {"succeeded": True, "columns": final.columns or [], "rows": final.rows or [],
                "truncated": bool(final.truncated)}

    def _stream(self, runner: ScriptRunner, request: StreamRequest, listener: ChannelListener,
                request_id: str) -> RequestResult:
        """A streaming script as one long-running query on `checkpoint` (lakeport_engine/streaming/driver.py), its
        query_started/batch/stopped/failed events forwarded; a `cancel` of this request stops it gracefully."""
        from lakeport_engine.errors import SparkRuntimeError
        from lakeport_engine.sqltext import SqlTextError
        from lakeport_engine.streaming.driver import drive
        from lakeport_engine.streaming.script import split_script

        stop = threading.Event()
        with self._lock:
            self._stream_stops[request_id] = stop

        def send(event: dict[str, Any]) -> None:
            listener.send(cast(EngineEvent, event))

        try:
            try:
                use_default_catalog(runner, request["default_catalog"])
                batch, statement = split_script(request["script"])
            except (SparkRuntimeError, SqlTextError) as exc:
                listener.send({"event": "failed", "planning": True, "statement": None, "message": redact(str(exc))})
                return {"succeeded": False}
            code = drive(runner, batch, statement, checkpoint=request["checkpoint"], send=send, stop=stop,
                         query_name=request["query_name"])
            return {"succeeded": code == 0}
        finally:
            with self._lock:
                self._stream_stops.pop(request_id, None)

    def _live(self, runner: ScriptRunner, request: LivePreviewRequest, listener: ChannelListener,
              request_id: str) -> RequestResult:
        """A short streaming query whose rows go back as `live_rows` events; a `cancel` ends it early."""
        stop = threading.Event()
        with self._lock:
            self._live_stops[request_id] = stop
        try:
            outcome = live_preview(runner, request["script"], stop=stop, seconds=request["live_seconds"],
                                   max_rows=request["live_rows"], writes=lambda sql: plan_writes(self.spark, sql),
                                   send_rows=lambda columns, rows: listener.send(
                                       {"event": "live_rows", "columns": columns, "rows": rows}))
        finally:
            with self._lock:
                self._live_stops.pop(request_id, None)
        return outcome.as_dict()  # type: ignore[return-value]

    def _cancel(self, request_id: str) -> None:
        live = self._live_stops.get(request_id)
        if live is not None:
            live.set()  # a live preview: its query stops now
            return
        with self._lock:
            stop = self._stream_stops.get(request_id)
            runner = self._runners.get(request_id)
        if stop is not None:
            stop.set()  # a streaming query: the batch in flight finishes, then it stops
            return
        if runner is not None:
            runner.cancel()


def use_default_catalog(runner: ScriptRunner, name: str | None) -> None:
    """Make the request's default catalog current before its script, as `USE CATALOG name` would (every mode: the
    editor resolves names as a run does, a stream as its job's runs)."""
    if name:
        runner.use_catalog(name)


def _open_ui_to(spark: Any, token: str) -> None:
    """Give the Spark UI's access filter (platform jar) the token of Lakeport's proxy; without it the UI refuses all."""
    if not token or spark.sparkContext.uiWebUrl is None:
        return  # no UI (spark.ui.enabled=false without the platform jar)
    from lakeport_engine.jvm import jvm

    jvm(spark).io.lakeport.spark.UiAccessFilter.token(token)


def _drop_numpy_converters() -> None:
    """Unregister PySpark's numpy argument converters from py4j.

    Their `can_convert`, asked on every JVM call, imports `pyspark.testing.utils`, which probes pyarrow and pandas
    (~25 MiB of an idle engine's Python); an engine never hands numpy values to the JVM.
    """
    from py4j import protocol
    from pyspark.sql.types import NumpyArrayConverter, NumpyScalarConverter

    numpy = (NumpyArrayConverter, NumpyScalarConverter)
    protocol.INPUT_CONVERTER[:] = [c for c in protocol.INPUT_CONVERTER if not isinstance(c, numpy)]


def _shorten_idle_pool_threads(spark: Any) -> int:
    """Let idle threads of Spark's block-manager RPC pools end after a few seconds instead of 60.

    Spark's block-manager ask and storage pools start a thread per cleanup task up to 100 each (core size = max)
    and keep each 60 s after its last task: ~120 threads, ~10 MiB of an engine that has just gone idle (issue 12,
    docs/benchmarks/engines.md). Spark keeps no public handle on them, so this reaches them by reflection, through
    java.lang.Class only (py4j's own method lookup on some Spark classes fails on classes missing from the
    classpath), and logs, not fails, if that breaks. Returns how many pools were changed.
    """
    try:
        seconds = spark.sparkContext._jvm.java.util.concurrent.TimeUnit.SECONDS
        pools = spark_cached_pools(spark)
        for _, pool in pools:
            pool.setKeepAliveTime(IDLE_POOL_THREAD_SECONDS, seconds)
        return len(pools)
    except Exception as exc:  # an optimisation only: a Spark without these internals still serves requests
        print(f"lakeport engine: idle pool threads keep Spark's keep-alive ({str(exc).splitlines()[0][:200]})",
              file=sys.stderr, flush=True)
        return 0


def spark_cached_pools(spark: Any) -> list[tuple[str, Any]]:
    """Spark's block-manager ask and storage thread pools (`SPARK_CACHED_POOLS`), with their endpoint's class name."""
    jvm = spark.sparkContext._jvm
    env = _private_field(jvm, "org.apache.spark.SparkContext", spark.sparkContext._jsc.sc(), "_env")
    rpc_env = _private_field(jvm, "org.apache.spark.SparkEnv", env, "rpcEnv")
    dispatcher = _private_field(jvm, "org.apache.spark.rpc.netty.NettyRpcEnv", rpc_env, "dispatcher")
    endpoints = list(_private_field(jvm, "org.apache.spark.rpc.netty.Dispatcher", dispatcher, "endpointRefs").keySet())
    return [(name, _private_field(jvm, name, endpoint, field)) for endpoint in endpoints
            for name, field in SPARK_CACHED_POOLS.items() if jvm.java.lang.Class.forName(name).isInstance(endpoint)]


def _private_field(jvm: Any, class_name: str, obj: Any, name: str) -> Any:
    """The value of field `name` declared by JVM class `class_name` in `obj` (private or not)."""
    field = jvm.java.lang.Class.forName(class_name).getDeclaredField(name)
    field.setAccessible(True)
    return field.get(obj)


def plan_writes(spark: Any, sql: str) -> bool:
    """True if Spark's parsed (unresolved) plan of `sql` contains a write or command node."""
    try:
        plan = spark._jsparkSession.sessionState().sqlParser().parsePlan(sql)
    except Exception:
        return False  # a syntax error: the run reports it with its position
    return bool(WRITE_NODE_RE.search(plan.toString()))


def _guard_policy(data: dict[str, Any] | None) -> Any:
    """The guard policy the platform sent (None: the runtime's default, which is never 'off')."""
    from lakeport_engine.guard import GuardPolicy

    if not data:
        return None
    return GuardPolicy(conf_allowlist=tuple(str(k) for k in data.get("conf_allowlist") or ()),
                       allowed_functions=tuple(str(f).lower() for f in data.get("allowed_functions") or ()))


PR_SET_DUMPABLE = 4  # <linux/prctl.h>


def make_undumpable() -> bool:
    """Make this process non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`); True if it now is.

    Its /proc/<pid>/mem, environ, maps and fd then belong to root: no process without CAP_SYS_PTRACE, not even one
    of the engine's own user (a Python worker it starts), may read its memory, where catalog secrets live, or
    ptrace it. Called first thing, before the channel brings any secret. The JVM this process starts is a new
    program (exec makes it dumpable again): it is shielded from other teams by the team's own uid.
    """
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        print(f"lakeport engine: prctl(PR_SET_DUMPABLE) failed: {os.strerror(ctypes.get_errno())}",
              file=sys.stderr, flush=True)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Engine entry point: serve the channel on the inherited descriptor until it closes."""
    make_undumpable()
    parser = argparse.ArgumentParser(prog="engine.py", description="A Lakeport team engine (started by a worker).")
    parser.add_argument("--channel-fd", type=int, required=True)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    sock = socket.socket(fileno=args.channel_fd)
    sock.set_inheritable(False)  # the JVM and Python workers this process starts must not hold the channel
    EngineHost(Channel(sock)).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
