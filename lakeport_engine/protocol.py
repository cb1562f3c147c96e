"""The engine protocol: every message between a worker and a team engine, declared once, with one encoder and one
decoder (Django-free; both sides import it).

Messages are TypedDicts, not dataclasses, on purpose: they are JSON on the channel and stay JSON after it (a run
stores its statement events as they came, lineage reads them from the run), so a TypedDict types the very dict
that travels and is stored, with no copy and no second shape to keep in step; mypy checks every field a side
writes or reads, and `decode` checks at run time what mypy cannot see (the other process).

Framing (lakeport_engine/channel.py): one JSON object per line; `op` names the message.

  platform → engine: init, run (its `request` by `mode`: run | validate | preview | live | stream), cancel,
                     answer (to an ask), shutdown
  engine → platform: ready, event (its `event` by name), result, ask (catalog | catalogs | contains | locations |
  mview_get | mview_list | mview_save | mview_drop)

`encode(message)` is the bytes of a line; `decode(data)` turns a line (or an already parsed object) into a
message or raises ProtocolError naming what is wrong: an unknown `op`, `mode` or event, a missing field, or a
field of the wrong type. Fields a side does not know are kept (a newer engine may say more).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast

# ---- shared documents ------------------------------------------------------------------------------------


class ProtocolError(ValueError):
    """A message that is not a message of this protocol: what is wrong with it, for the log and the caller."""


class RunError(TypedDict):
    """Why a run or an editor call failed: the 0-based statement and its script-absolute position, if known."""

    statement: int | None
    line: int | None
    column: int | None
    message: str


class LineageDataset(TypedDict):
    """A dataset a statement read or wrote (`Dataset` in lakeport_engine/datasets.py): the team's catalog name and
    its physical identity (OpenLineage namespace + name), with the Delta version read or committed."""

    name: str
    catalog: str
    kind: str
    namespace: str
    physical_name: str
    version: int | None


class ColumnLineageEntry(TypedDict):
    """Output column `column` of dataset key `dataset` ← input columns `[dataset key, column]`."""

    dataset: str
    column: str
    kind: str
    inputs: list[list[str]]


class LineageDocument(TypedDict):
    """What one statement read and wrote, and its column lineage (`StatementLineage.as_dict()`)."""

    inputs: list[LineageDataset]
    outputs: list[LineageDataset]
    columns: list[ColumnLineageEntry]


class StatementSpanEvent(TypedDict):
    """Where a statement is in the script the engine ran: [start, end) offsets without the `;`, 1-based line/column."""

    start: int
    end: int
    line: int
    column: int


class GuardPolicyDocument(TypedDict):
    """The SQL guard's policy the platform sets for an engine."""

    conf_allowlist: list[str]
    allowed_functions: list[str]


class AccessGrant(TypedDict):
    """One privilege the caller holds (directly or through a group) on a securable: `cat`, `cat.*`, `cat.db`,
    `cat.db.*` or `cat.db.table` (docs/access.md)."""

    securable: str
    privilege: Literal["BROWSE", "SELECT", "MODIFY", "CREATE", "MANAGE"]


class RowPolicyEntry(TypedDict):
    """The row filter and column masks of one table, with the caller already bound into each expression
    (`current_user()` and `is_member()` as literals; docs/access.md). `visible`: the caller may see them."""

    table: str  # cat.db.t
    filter: str | None
    masks: dict[str, str]  # column → expression
    visible: bool


class AccessDocument(TypedDict):
    """The caller's effective privileges for one run or editor call, computed once by the platform
    (grants/selectors.py `access_document`). `admin`: a team admin holds everything. `governed`: the team catalogs
    that any grant names (at or below them); every other catalog keeps the team's role defaults. `grants`: what
    the caller holds in the governed catalogs. A request without one is not checked (the role defaults)."""

    user: str
    admin: bool
    governed: list[str]
    grants: list[AccessGrant]
    rows: NotRequired[list[RowPolicyEntry]]  # every filtered or masked table of the team (absent: none)


class SnapshotDocument(TypedDict):
    """The Delta versions a run must read: pinned per table (`versions`, by dataset key), `as_of` a time, or a
    `consistent` cut of the tables it reads (chosen by the engine at its first reads)."""

    as_of: str | None
    versions: dict[str, int]
    consistent: NotRequired[bool]


# ---- requests (platform → engine) -----------------------------------------------------------------------


class RunScriptRequest(TypedDict):
    """Run a job's script; statement events come back as each statement ends."""

    mode: Literal["run"]
    script: str
    default_catalog: str | None
    spark_conf: dict[str, str]
    preview_limit: int
    lineage: bool
    snapshot: SnapshotDocument | None
    access: NotRequired[AccessDocument | None]  # the caller's privileges (grants); absent: role defaults


class ValidateRequest(TypedDict):
    """Split, parse and analyse a script without executing it."""

    mode: Literal["validate"]
    script: str
    default_catalog: str | None
    access: NotRequired[AccessDocument | None]  # the caller's privileges (grants); absent: role defaults


class PreviewRequest(TypedDict):
    """Run one read-only query; `check_writes`: the statement whose parsed plan must not write."""

    mode: Literal["preview"]
    script: str
    default_catalog: str | None
    preview_limit: int
    check_writes: str | None
    snapshot: NotRequired[SnapshotDocument | None]  # the editor's consistent-read switch ({"consistent": true})
    access: NotRequired[AccessDocument | None]  # the caller's privileges (grants); absent: role defaults


class LivePreviewRequest(TypedDict):
    """A short streaming query whose rows come back as `live_rows` events."""

    mode: Literal["live"]
    script: str
    default_catalog: str | None
    live_seconds: float
    live_rows: int
    access: NotRequired[AccessDocument | None]  # the caller's privileges (grants); absent: role defaults


class StreamRequest(TypedDict):
    """A streaming job's script as one long-running query on `checkpoint`; a cancel stops it gracefully."""

    mode: Literal["stream"]
    script: str
    default_catalog: str | None
    spark_conf: dict[str, str]
    checkpoint: str
    query_name: str | None
    lineage: bool
    access: NotRequired[AccessDocument | None]  # the caller's privileges (grants); absent: role defaults


EngineRequest = RunScriptRequest | ValidateRequest | PreviewRequest | LivePreviewRequest | StreamRequest
Mode = Literal["run", "validate", "preview", "live", "stream"]


class InitMessage(TypedDict):
    """The first message: the engine's team, Spark master and static conf, and settings for every request."""

    op: Literal["init"]
    team: str
    master: str
    app_name: str
    static_conf: dict[str, str]
    connect_timeout: float
    delta_mode: str | None
    policy: GuardPolicyDocument | None
    ui_token: NotRequired[str]  # the Spark UI answers only Lakeport's proxy holding it (main's Spark UI proxy)


class RunMessage(TypedDict):
    """A request, named by `id` in its events and result."""

    op: Literal["run"]
    id: str
    request: EngineRequest


class CancelMessage(TypedDict):
    """Stop a request: its running statement (later ones are skipped), a live preview now, a stream gracefully."""

    op: Literal["cancel"]
    id: str


class ShutdownMessage(TypedDict):
    """Stop the engine."""

    op: Literal["shutdown"]


class CatalogEntryDocument(TypedDict):
    """A catalog of the engine's team, its secrets decrypted (the channel is private to the two processes)."""

    name: str
    type: str
    configuration: dict[str, Any]
    version: int
    fingerprint: str


class AnswerMessage(TypedDict):
    """The platform's answer to an ask: one of `entry`, `names`, `found`, `refused`, or `error`."""

    op: Literal["answer"]
    ask: int
    entry: NotRequired[CatalogEntryDocument | None]
    names: NotRequired[list[str]]
    found: NotRequired[bool]
    refused: NotRequired[dict[str, str]]
    view: NotRequired[dict[str, Any] | None]  # a materialized view definition (lakeport_engine/matviews.py)
    views: NotRequired[list[dict[str, Any]]]
    error: NotRequired[str]
    grants: NotRequired[list[dict[str, str]]]  # SHOW GRANTS: securable, privilege, principal_type, principal


# ---- events (engine → platform, inside an `event` message) -----------------------------------------------


class StatementStartEvent(TypedDict):
    event: Literal["statement_start"]
    ts: NotRequired[float]
    index: int
    total: int
    sql: str


class StatementEvent(TypedDict, total=False):
    """A finished statement (`StatementResult.as_dict()` in lakeport_engine/script.py); a run stores it as is."""

    event: Literal["statement_end"]
    ts: float
    index: int
    sql: str
    status: str
    started_at: float | str | None
    elapsed_ms: int | None
    columns: list[dict[str, str]] | None
    rows: list[list[Any]] | int | None
    truncated: bool
    error: str | None
    line: int | None  # a failed statement's: where it failed; any other's: where it starts
    column: int | None
    span: StatementSpanEvent | None
    lineage: LineageDocument | None  # what the statement read and wrote (None: capture off or nothing found)


class LogEvent(TypedDict):
    event: Literal["log"]
    ts: NotRequired[float]
    message: str


class AppEvent(TypedDict):
    """The Spark application running the request."""

    event: Literal["app"]
    ts: NotRequired[float]
    app_id: str
    ui_url: str


class ProgressEvent(TypedDict, total=False):
    event: Literal["progress"]
    ts: float
    stages_done: int
    stages_total: int
    tasks_done: int
    tasks_total: int


class BatchEvent(TypedDict, total=False):
    """One micro-batch of a streaming query (lakeport_engine/streaming/events.py `batch_event`)."""

    event: Literal["batch"]
    ts: float
    query_id: str
    batch_id: int
    timestamp: str | None
    input_rows: int | None
    input_rows_per_second: float | None
    processed_rows_per_second: float | None
    output_rows: int | None
    output_rows_per_second: float | None
    duration_ms: int | None
    watermark: str | None
    state_rows: int | None
    state_memory_bytes: int | None
    sources: list[dict[str, Any]]


class QueryStartedEvent(TypedDict, total=False):
    """A streaming query started: its ids, what it writes, and its lineage."""

    event: Literal["query_started"]
    ts: float
    query_id: str
    run_id: str
    checkpoint: str
    target: str
    sink: str
    output_mode: str
    trigger_seconds: float | None
    emit: str | None
    columns: list[str]
    key: list[str]
    lineage: LineageDocument | None


class FailedEvent(TypedDict, total=False):
    """A streaming query failed; `planning`: refused before it started (it would be refused again)."""

    event: Literal["failed"]
    ts: float
    message: str
    planning: bool
    checkpoint_incompatible: bool
    query_id: str
    batches: int
    statement: int | None
    line: int | None
    column: int | None


class StoppedEvent(TypedDict, total=False):
    """A streaming query stopped; `signal`: because it was asked to."""

    event: Literal["stopped"]
    ts: float
    query_id: str
    batches: int
    signal: bool


class LiveRowsEvent(TypedDict):
    """Rows of one micro-batch of a live preview."""

    event: Literal["live_rows"]
    ts: NotRequired[float]
    columns: list[dict[str, str]]
    rows: list[list[Any]]


EngineEvent = (StatementStartEvent | StatementEvent | LogEvent | AppEvent | ProgressEvent | BatchEvent
               | QueryStartedEvent | FailedEvent | StoppedEvent | LiveRowsEvent)


class RequestResult(TypedDict, total=False):
    """The end of a request. Each mode fills its part: run (`statements`, `catalogs_used`, `cancelled`), validate
    (`errors`, `schema`), preview (`columns`, `rows`, `truncated`, `writes`, `streaming`), live (`columns`,
    `rows_sent`, `stopped`); `engine_lost` is the worker's own: the engine died under the request."""

    succeeded: bool
    error: RunError | None
    errors: list[RunError]
    schema: list[dict[str, str]] | None
    statements: list[StatementEvent]
    catalogs_used: list[str]
    cancelled: bool
    columns: list[dict[str, str]]
    rows: list[list[Any]]
    truncated: bool
    writes: bool
    streaming: bool
    rows_sent: int
    stopped: str | None
    engine_lost: bool


class ReadyMessage(TypedDict):
    """The engine's answer to init: its SparkSession is up (`ok`), or why not (`error`)."""

    op: Literal["ready"]
    ok: bool
    pid: NotRequired[int]
    app_id: NotRequired[str]
    ui_url: NotRequired[str]
    error: NotRequired[str]


class EventMessage(TypedDict):
    op: Literal["event"]
    id: str
    event: EngineEvent


class ResultMessage(TypedDict):
    op: Literal["result"]
    id: str
    result: RequestResult


class AskMessage(TypedDict):
    """A question of the engine about its team's catalogs or materialized views (`ask` numbers it; the answer
    carries it back)."""

    op: Literal["catalog", "catalogs", "contains", "locations", "mview_get", "mview_list", "mview_save", "mview_drop",
                "grant", "revoke", "grants"]
    ask: int
    name: NotRequired[str]
    locations: NotRequired[list[str]]
    catalog: NotRequired[str]
    database: NotRequired[str]
    view: NotRequired[dict[str, Any]]
    # GRANT / REVOKE / SHOW GRANTS (lakeport_engine/grants_sql.py): the request whose caller acts, and what it names
    request: NotRequired[str]
    privileges: NotRequired[list[str]]
    securable: NotRequired[str]
    principal_type: NotRequired[str]
    principal: NotRequired[str]


ToEngine = InitMessage | RunMessage | CancelMessage | AnswerMessage | ShutdownMessage
FromEngine = ReadyMessage | EventMessage | ResultMessage | AskMessage
Message = ToEngine | FromEngine

TO_ENGINE = frozenset({"init", "run", "cancel", "answer", "shutdown"})
ASKS = frozenset({"catalog", "catalogs", "contains", "locations", "mview_get", "mview_list", "mview_save",
                  "mview_drop", "grant", "revoke", "grants"})


# ---- the encoder -----------------------------------------------------------------------------------------


def encode(message: Message) -> bytes:
    """One message as a line of the channel (values JSON cannot hold, as dates, are sent as text)."""
    return json.dumps(message, default=str, separators=(",", ":")).encode("utf-8") + b"\n"


def run_message(request_id: str, request: EngineRequest) -> RunMessage:
    """The `run` message of a request."""
    return {"op": "run", "id": request_id, "request": request}


def event_message(request_id: str, event: EngineEvent) -> EventMessage:
    """An `event` message of a request."""
    return {"op": "event", "id": request_id, "event": event}


def result_message(request_id: str, result: RequestResult) -> ResultMessage:
    """The `result` message that ends a request."""
    return {"op": "result", "id": request_id, "result": result}


def failed_result(message: str, *, engine_lost: bool = False) -> RequestResult:
    """A request that failed before any statement could say where (the engine's or the channel's failure)."""
    result: RequestResult = {"succeeded": False, "error": {"statement": None, "line": None, "column": None,
                                                             "message": message}}
    if engine_lost:
        result["engine_lost"] = True
    return result


# ---- the decoder -----------------------------------------------------------------------------------------

# A field's allowed JSON types; None in the tuple allows null. `float` accepts ints, `int` refuses booleans.
_Types = tuple[type | None, ...]
_Spec = tuple[dict[str, _Types], dict[str, _Types]]  # (required, optional)

S, I, F, B, D, L, N = str, int, float, bool, dict, list, None  # noqa: E741 - short names keep the tables readable
_MESSAGES: dict[str, _Spec] = {
    "init": ({"team": (S,), "master": (S,), "app_name": (S,), "static_conf": (D,)},
             {"connect_timeout": (F,), "delta_mode": (S, N), "policy": (D, N), "ui_token": (S,)}),
    "run": ({"id": (S,), "request": (D,)}, {}),
    "cancel": ({"id": (S,)}, {}),
    "answer": ({"ask": (I,)}, {"entry": (D, N), "names": (L,), "found": (B,), "refused": (D,), "view": (D, N),
                                "views": (L,), "error": (S,), "grants": (L,)}),
    "shutdown": ({}, {}),
    "ready": ({"ok": (B,)}, {"pid": (I,), "app_id": (S,), "ui_url": (S,), "error": (S,)}),
    "event": ({"id": (S,), "event": (D,)}, {}),
    "result": ({"id": (S,), "result": (D,)}, {}),
    **{ask: ({"ask": (I,)}, {"name": (S,), "locations": (L,), "catalog": (S,), "database": (S,), "view": (D,),
                             "request": (S,), "privileges": (L,), "securable": (S,), "principal_type": (S,),
                             "principal": (S,)})
       for ask in ASKS},
}
_SCRIPT: dict[str, _Types] = {"script": (S,)}
_REQUESTS: dict[str, _Spec] = {
    "run": (_SCRIPT, {"default_catalog": (S, N), "spark_conf": (D,), "preview_limit": (I,), "lineage": (B,),
                      "snapshot": (D, N), "access": (D, N)}),
    "validate": (_SCRIPT, {"default_catalog": (S, N), "access": (D, N)}),
    "preview": (_SCRIPT, {"default_catalog": (S, N), "preview_limit": (I,), "check_writes": (S, N),
                          "snapshot": (D, N), "access": (D, N)}),
    "live": (_SCRIPT, {"default_catalog": (S, N), "live_seconds": (F,), "live_rows": (I,), "access": (D, N)}),
    "stream": ({**_SCRIPT, "checkpoint": (S,)}, {"default_catalog": (S, N), "spark_conf": (D,),
                                                  "query_name": (S, N), "lineage": (B,), "access": (D, N)}),
}
# What an optional request field is when a sender leaves it out.
_REQUEST_DEFAULTS: dict[str, object] = {"default_catalog": None, "spark_conf": {}, "preview_limit": 1000,
                                        "lineage": True, "snapshot": None, "check_writes": None, "live_seconds": 30.0,
                                        "live_rows": 500, "query_name": None, "access": None}
_EVENTS: dict[str, _Spec] = {
    "statement_start": ({"index": (I,), "total": (I,), "sql": (S,)}, {}),
    "statement_end": ({"index": (I,), "status": (S,)}, {"sql": (S,), "lineage": (D, N), "span": (D, N),
                                                        "error": (S, N), "line": (I, N), "column": (I, N)}),
    "log": ({"message": (S,)}, {}),
    "app": ({"app_id": (S,)}, {"ui_url": (S,)}),
    "progress": ({}, {"stages_done": (I,), "stages_total": (I,), "tasks_done": (I,), "tasks_total": (I,)}),
    "batch": ({}, {"query_id": (S,), "batch_id": (I, N)}),
    "query_started": ({}, {"query_id": (S,), "run_id": (S,), "lineage": (D, N)}),
    "failed": ({}, {"message": (S, N), "planning": (B,), "checkpoint_incompatible": (B,)}),
    "stopped": ({}, {"query_id": (S,), "batches": (I,), "signal": (B,)}),
    "live_rows": ({"columns": (L,), "rows": (L,)}, {}),
}
_RESULT: dict[str, _Types] = {
    "succeeded": (B,), "error": (D, N), "errors": (L,), "schema": (L, N), "statements": (L,), "catalogs_used": (L,),
    "cancelled": (B,), "columns": (L, N), "rows": (L, N), "truncated": (B,), "writes": (B,), "streaming": (B,),
    "rows_sent": (I,), "stopped": (S, N), "engine_lost": (B,)}
_ACCESS: _Spec = ({"user": (S,), "admin": (B,), "governed": (L,), "grants": (L,)}, {"rows": (L,)})
_ROW_POLICY: _Spec = ({"table": (S,), "filter": (S, N), "masks": (D,), "visible": (B,)}, {})
_ACCESS_GRANT: _Spec = ({"securable": (S,), "privilege": (S,)}, {})
PRIVILEGES = ("BROWSE", "SELECT", "MODIFY", "CREATE", "MANAGE")
_RUN_ERROR: _Spec = ({"message": (S,)}, {"statement": (I, N), "line": (I, N), "column": (I, N)})
_DATASET: _Spec = ({"name": (S,), "catalog": (S,), "kind": (S,), "namespace": (S,), "physical_name": (S,)},
                   {"version": (I, N)})
_COLUMN: _Spec = ({"dataset": (S,), "column": (S,), "kind": (S,), "inputs": (L,)}, {})


def _type_name(types: _Types) -> str:
    names: dict[type | None, str] = {str: "text", int: "an integer", float: "a number", bool: "true/false", dict: "an object",
             list: "a list", None: "null"}
    return " or ".join(names[t] for t in types)


def _fits(value: object, types: _Types) -> bool:
    for t in types:
        if t is None:
            if value is None:
                return True
        elif t is float:
            if isinstance(value, int | float) and not isinstance(value, bool):
                return True
        elif t is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return True
        elif isinstance(value, t):
            return True
    return False


def _check(what: str, data: object, spec: _Spec) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError(f"{what}: expected a JSON object, got {type(data).__name__}.")
    required, optional = spec
    for name, types in required.items():
        if name not in data:
            raise ProtocolError(f"{what}: the field '{name}' is missing.")
        if not _fits(data[name], types):
            raise ProtocolError(f"{what}: the field '{name}' must be {_type_name(types)}.")
    for name, types in optional.items():
        if name in data and not _fits(data[name], types):
            raise ProtocolError(f"{what}: the field '{name}' must be {_type_name(types)}.")
    return data


def _kind(what: str, data: dict[str, Any], field: str, table: Mapping[str, _Spec]) -> str:
    kind = data.get(field)
    if not isinstance(kind, str) or kind not in table:
        known = ", ".join(sorted(table))
        raise ProtocolError(f"{what}: unknown {field} {kind!r} (known: {known}).")
    _check(f"{what} {kind!r}", data, table[kind])
    return kind


def _lineage(what: str, data: object) -> None:
    if data is None:
        return
    doc = _check(f"{what} lineage", data, ({"inputs": (L,), "outputs": (L,)}, {"columns": (L,)}))
    for side in ("inputs", "outputs"):
        for entry in doc[side]:
            _check(f"{what} lineage {side[:-1]}", entry, _DATASET)
    for column in doc.get("columns") or []:
        entry = _check(f"{what} column lineage", column, _COLUMN)
        if not all(isinstance(i, list) and len(i) == 2 and all(isinstance(p, str) for p in i)
                   for i in entry["inputs"]):
            raise ProtocolError(f"{what} column lineage: each input must be [dataset, column].")


def _access(what: str, data: object) -> None:
    if data is None:
        return
    doc = _check(f"{what} access", data, _ACCESS)
    if not all(isinstance(c, str) for c in doc["governed"]):
        raise ProtocolError(f"{what} access: 'governed' must be a list of catalog names.")
    for entry in doc["grants"]:
        grant = _check(f"{what} access grant", entry, _ACCESS_GRANT)
        if grant["privilege"] not in PRIVILEGES:
            raise ProtocolError(f"{what} access grant: unknown privilege {grant['privilege']!r}.")
    for entry in doc.get("rows") or []:
        rows = _check(f"{what} access row policy", entry, _ROW_POLICY)
        if not all(isinstance(c, str) and isinstance(e, str) for c, e in rows["masks"].items()):
            raise ProtocolError(f"{what} access row policy: 'masks' maps column names to expressions.")


def decode(data: bytes | str | Mapping[str, Any]) -> Message:
    """The message in a channel line (or its parsed JSON object); ProtocolError says what is wrong with it."""
    if isinstance(data, bytes | str):
        try:
            raw: object = json.loads(data)
        except ValueError as exc:
            raise ProtocolError(f"engine message: not JSON ({exc}).") from None
    else:
        raw = dict(data)
    if not isinstance(raw, dict):
        raise ProtocolError(f"engine message: expected a JSON object, got {type(raw).__name__}.")
    op = _kind("engine message", raw, "op", _MESSAGES)
    if op == "run":
        request = raw["request"]
        mode = _kind("run request", request, "mode", _REQUESTS)
        for name, default in _REQUEST_DEFAULTS.items():  # an optional field left out takes its declared default
            if name in _REQUESTS[mode][1] and name not in request:
                request[name] = default
        _access("run request", request.get("access"))
    elif op == "event":
        event = raw["event"]
        name = _kind("engine event", event, "event", _EVENTS)
        if name in ("statement_end", "query_started"):
            _lineage(f"engine event {name!r}", event.get("lineage"))
    elif op == "result":
        result = _check("request result", raw["result"], ({}, _RESULT))
        if result.get("error") is not None:
            _check("request result error", result["error"], _RUN_ERROR)
        for statement in result.get("statements") or []:
            _check("request result statement", statement, _EVENTS["statement_end"])
            _lineage("request result statement", statement.get("lineage"))
    return cast(Message, raw)


def to_engine(message: Message) -> ToEngine:
    """`message` as one the engine serves; ProtocolError for one only the engine sends."""
    if message["op"] not in TO_ENGINE:
        raise ProtocolError(f"engine message: {message['op']!r} is sent by the engine, not to it.")
    return cast(ToEngine, message)


def from_engine(message: Message) -> FromEngine:
    """`message` as one the platform hears; ProtocolError for one only the platform sends."""
    if message["op"] in TO_ENGINE:
        raise ProtocolError(f"engine message: {message['op']!r} is sent to the engine, not by it.")
    return cast(FromEngine, message)


__all__ = [
    "AccessDocument", "AccessGrant", "RowPolicyEntry", "AppEvent", "AskMessage", "BatchEvent", "EngineEvent", "EngineRequest", "FailedEvent", "InitMessage",
    "LineageDocument", "LivePreviewRequest", "LiveRowsEvent", "Message", "PreviewRequest", "ProtocolError",
    "QueryStartedEvent", "RequestResult", "RunError", "RunScriptRequest", "StatementEvent", "StoppedEvent",
    "StreamRequest", "ValidateRequest", "decode", "encode", "event_message", "failed_result", "from_engine",
    "result_message", "run_message", "to_engine", "PRIVILEGES",
]
