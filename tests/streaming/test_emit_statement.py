"""EMIT clauses and the streaming statement shape, read with sqlglot's Spark tokens (no Spark needed)."""

from __future__ import annotations

import pytest

from lakeport_engine.streaming.emit import APPEND, NO_EMIT, UPDATE, split_emit
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.statement import is_streaming, parse_streaming

QUERY = ("INSERT INTO lake.db.counts SELECT room, window.start, count(*) FROM STREAM(events.app.clicks) "
         "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds')")


@pytest.mark.parametrize(("clause", "mode", "delay"), [
    ("EMIT AFTER WATERMARK", APPEND, None),
    ("EMIT STREAM", UPDATE, None),
    ("emit changes", UPDATE, None),
    ("EMIT AFTER DELAY INTERVAL '10' SECONDS", None, 10.0),
    ("EMIT AFTER DELAY INTERVAL 2 MINUTES", None, 120.0),
    ("EMIT AFTER DELAY INTERVAL '500 milliseconds'", None, 0.5),
    ("EMIT STREAM AFTER DELAY INTERVAL '6' MINUTES", UPDATE, 360.0),
    ("EMIT AFTER DELAY INTERVAL '1' MINUTE AND AFTER WATERMARK", APPEND, 60.0),
    ("EMIT AFTER WATERMARK AND AFTER DELAY INTERVAL '1' SECOND", APPEND, 1.0),
    ("EMIT STREAM AFTER WATERMARK", APPEND, None),  # a stream of final rows only
])
def test_emit_forms_of_seed_003_map_to_output_mode_and_trigger(clause: str, mode: str | None, delay: float | None) -> None:
    body, emit = split_emit(f"{QUERY}\n{clause}")
    assert body == QUERY
    assert (emit.mode, emit.delay_seconds) == (mode, delay)
    assert emit.text == clause


def test_without_mode_an_aggregation_updates_and_a_projection_appends() -> None:
    _, emit = split_emit(f"{QUERY} EMIT AFTER DELAY INTERVAL '10' SECONDS")
    assert emit.output_mode(aggregates=True) == UPDATE
    assert emit.output_mode(aggregates=False) == APPEND
    assert emit.trigger == {"processingTime": "10000 milliseconds"}
    assert NO_EMIT.trigger == {}


def test_emit_inside_comments_strings_and_names_is_not_a_clause() -> None:
    sql = ("INSERT INTO lake.db.t SELECT 'EMIT STREAM' AS note, `emit` /* EMIT AFTER WATERMARK */ "
           "FROM STREAM(events.app.clicks) -- EMIT CHANGES")
    body, emit = split_emit(sql)
    assert emit is NO_EMIT and body == sql


@pytest.mark.parametrize("clause", ["EMIT AFTER LUNCH", "EMIT STREAM AFTER DELAY", "EMIT AFTER DELAY INTERVAL '0' SECONDS",
                                    "EMIT AFTER DELAY INTERVAL '3' FORTNIGHTS", "EMIT AFTER WATERMARK AND AFTER WATERMARK",
                                    "EMIT STREAM OR ELSE"])
def test_a_bad_emit_is_refused_with_the_forms_that_work(clause: str) -> None:
    with pytest.raises(StreamingStatementError) as caught:
        split_emit(f"{QUERY} {clause}")
    assert "EMIT" in caught.value.message or "delay" in caught.value.message
    assert "Traceback" not in caught.value.message


def test_statement_shape_target_sources_and_views() -> None:
    parsed = parse_streaming(f"{QUERY} EMIT STREAM")
    assert parsed.target == ("lake", "db", "counts")
    assert [r.parts for r in parsed.sources] == [("events", "app", "clicks")]
    assert parsed.watermark and parsed.emit.mode == UPDATE
    query = parsed.query_with_views(["__lp_stream_1"])
    assert query.startswith("SELECT room") and "FROM __lp_stream_1 WATERMARK ts" in query
    assert "STREAM(" not in parsed.with_views(["__lp_stream_1"])


def test_two_streams_and_a_column_list() -> None:
    parsed = parse_streaming("insert into `lake`.db.t (a, b) select l.a, r.b from stream(ev.app.left) l "
                             "join stream(ev.app.right) r on l.k = r.k")
    assert parsed.columns == ("a", "b")
    assert [r.name for r in parsed.sources] == ["ev.app.left", "ev.app.right"]
    assert parsed.with_views(["v1", "v2"]).endswith("from v1 l join v2 r on l.k = r.k")


@pytest.mark.parametrize(("sql", "words"), [
    ("SELECT * FROM STREAM(ev.app.clicks)", "INSERT INTO"),
    ("INSERT INTO lake.db.t SELECT * FROM ev.app.clicks EMIT STREAM", "reads no stream"),
    ("INSERT INTO lake.db.t SELECT * FROM STREAM(ev.app.clicks, x)", "one stream name"),
])
def test_statements_outside_the_shape_say_what_is_wrong(sql: str, words: str) -> None:
    with pytest.raises(StreamingStatementError, match=words):
        parse_streaming(sql)


def test_is_streaming() -> None:
    assert is_streaming(QUERY)
    assert is_streaming("INSERT INTO lake.db.t SELECT * FROM ev.app.clicks EMIT STREAM")
    assert not is_streaming("SELECT 'FROM STREAM(x)' FROM t -- EMIT STREAM")
    assert not is_streaming("INSERT INTO lake.db.t SELECT * FROM stream_table")
