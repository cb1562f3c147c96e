"""The engine protocol (lakeport_engine/protocol.py): one decoder that refuses what is not a message with a clear
error, at the engine (a real engine process, through its channel) and at the worker; a statement's lineage
travels typed and reaches the lineage store in the shape it left the engine."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from django.test import override_settings

from jobs.engines.calls import EngineCall, call_engine
from jobs.engines.process import EngineKey, EngineProcess
from lakeport_engine.datasets import Dataset
from lakeport_engine.lineage_capture import ColumnLineage, StatementLineage
from lakeport_engine.protocol import (
    EngineRequest,
    ProtocolError,
    decode,
    encode,
    event_message,
    from_engine,
    result_message,
    run_message,
    to_engine,
)
from lakeport_engine.script import StatementResult, StatementStatus
from lineage.services import statement_lineage

SMALL_SPARK = {"SPARK_MASTER": "local[2]", "LAKEPORT_SPARK_STATIC_CONF": {
    "spark.ui.enabled": "false", "spark.driver.memory": "1g", "spark.sql.shuffle.partitions": "2"}}


def _lineage() -> StatementLineage:
    orders = Dataset(name="pg.shop.orders", catalog="pg", kind="jdbc-postgresql", namespace="postgres://db:5432",
                     physical_name="shop.public.orders")
    totals = Dataset(name="lake.sales.totals", catalog="lake", kind="delta", namespace="file",
                     physical_name="/data/lake/sales/totals", version=3)
    return StatementLineage(inputs=[orders], outputs=[totals], columns=[
        ColumnLineage(dataset=totals.key, column="total", inputs=[(orders.key, "amount")], kind="aggregation")])


# ---- the decoder, message by message ---------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "error"), [
    (b"not json", "not JSON"),
    (b"[1, 2]", "expected a JSON object"),
    ({"op": "explode"}, "unknown op 'explode'"),
    ({"id": "r1"}, "unknown op None"),
    ({"op": "run", "id": "r1", "request": {"mode": "drop-everything", "script": "SELECT 1"}},
     "unknown mode 'drop-everything'"),
    ({"op": "run", "id": "r1", "request": {"mode": "stream", "script": "SELECT 1"}},
     "the field 'checkpoint' is missing"),
    ({"op": "run", "id": 7, "request": {"mode": "run", "script": "SELECT 1"}}, "the field 'id' must be text"),
    ({"op": "cancel"}, "the field 'id' is missing"),
    ({"op": "event", "id": "r1", "event": {"event": "gossip"}}, "unknown event 'gossip'"),
    ({"op": "event", "id": "r1", "event": {"event": "statement_end", "index": "first", "status": "succeeded"}},
     "the field 'index' must be an integer"),
    ({"op": "event", "id": "r1", "event": {"event": "statement_end", "index": 0, "status": "succeeded",
                                           "lineage": {"inputs": [{"name": "t"}], "outputs": []}}},
     "lineage input: the field 'catalog' is missing"),
    ({"op": "result", "id": "r1", "result": {"succeeded": "yes"}}, "the field 'succeeded' must be true/false"),
    ({"op": "ready", "ok": 1}, "the field 'ok' must be true/false"),
])
def test_the_decoder_refuses_what_is_not_a_message_and_says_what_is_wrong(raw: Any, error: str) -> None:
    with pytest.raises(ProtocolError, match=error.replace("(", r"\(").replace(")", r"\)")):
        decode(raw)


def test_each_side_refuses_the_other_sides_messages() -> None:
    with pytest.raises(ProtocolError, match="sent by the engine"):
        to_engine(decode({"op": "ready", "ok": True}))
    with pytest.raises(ProtocolError, match="sent to the engine"):
        from_engine(decode({"op": "shutdown"}))


def test_an_optional_request_field_left_out_takes_its_declared_default() -> None:
    message = to_engine(decode(encode(run_message("r1", cast(EngineRequest, {"mode": "preview", "script": "x"})))))
    assert message["op"] == "run"
    assert message["request"] == {"mode": "preview", "script": "x", "default_catalog": None, "preview_limit": 1000,
                                  "check_writes": None, "snapshot": None,  # snapshot: the consistent-read switch
                                  "access": None}  # no access document: the role defaults


def test_a_statements_lineage_round_trips_typed_into_the_lineage_store() -> None:
    lineage = _lineage().as_dict()
    statement = StatementResult(index=2, sql="INSERT INTO lake.sales.totals SELECT …", status=StatementStatus.SUCCEEDED,
                                started_at=1.0, elapsed_ms=5, lineage=lineage).as_dict()
    line = encode(event_message("r1", {**statement, "event": "statement_end"}))  # type: ignore[typeddict-item]
    message = from_engine(decode(line))
    assert message["op"] == "event" and message["event"]["event"] == "statement_end"
    event = message["event"]
    assert event.get("lineage") == json.loads(json.dumps(lineage))
    # what the lineage app stores: the document as the engine built it, by statement index
    assert statement_lineage([event]) == [(2, event["lineage"])]
    outputs = statement_lineage([event])[0][1]["outputs"]
    assert outputs[0]["version"] == 3 and outputs[0]["physical_name"] == "/data/lake/sales/totals"
    # in a request's result too
    ended = from_engine(decode(encode(result_message("r1", {"succeeded": True, "statements": [event]}))))
    assert ended["op"] == "result" and statement_lineage(ended["result"]["statements"]) == [(2, event["lineage"])]


# ---- a real engine -----------------------------------------------------------------------------------------

@pytest.fixture
def engine(tmp_path: Path) -> Iterator[EngineProcess]:
    """One engine (as the test's user, in a private scratch root), stopped after the test."""
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path), LAKEPORT_ENGINE_USER="", **SMALL_SPARK):
        started = EngineProcess(EngineKey(team="acme"))
        try:
            started.start()
            yield started
        finally:
            with contextlib.suppress(Exception):
                started.stop(quiet=True)


@pytest.mark.spark
def test_the_engine_refuses_a_malformed_request_with_a_protocol_error_and_keeps_serving(
        engine: EngineProcess) -> None:
    unknown = call_engine(engine, cast(EngineRequest, {"mode": "drop-everything", "script": "SELECT 1"}))
    assert unknown["succeeded"] is False and not unknown.get("engine_lost")
    message = (unknown.get("error") or {}).get("message", "")
    assert message.startswith("Engine protocol error: run request: unknown mode 'drop-everything'"), message
    assert "Traceback" not in message

    missing = call_engine(engine, cast(EngineRequest, {"mode": "run", "script": 42}))
    assert (missing.get("error") or {}).get("message") == \
        "Engine protocol error: run request 'run': the field 'script' must be text."

    # the engine is still there and answers a good request (a left-out optional field takes its default)
    with EngineCall(engine, cast(EngineRequest, {"mode": "preview", "script": "SELECT 40 + 2 AS x"})) as call:
        assert call.wait(120)
        assert call.result.get("rows") == [[42]], call.result
    assert engine.alive
