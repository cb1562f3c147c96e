"""A streaming script's shape: batch statements first, then exactly one streaming INSERT (no Spark needed).

Shared by `runner.py --streaming`, the engine's `stream` requests and the platform's save-time check of a
streaming job (jobs/services/jobs.py), which must not load pyspark to refuse a script.
"""

from __future__ import annotations

from lakeport_engine.sqltext import Statement, split_statements
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.statement import is_streaming

SHAPE_RULE = "streaming-script"  # the rule a refusal of this shape names, at save and at start alike


def split_script(script: str) -> tuple[list[Statement], Statement]:
    """The batch statements and the one streaming statement, which must come last."""
    statements = split_statements(script)
    streaming = [s for s in statements if is_streaming(s.sql)]
    if len(streaming) != 1 or statements[-1] is not streaming[0]:
        raise StreamingStatementError(
            f"A streaming script has exactly one streaming INSERT (… FROM STREAM(…) [EMIT …]), as its last statement; "
            f"this one has {len(streaming)}.")
    return statements[:-1], streaming[0]
