"""The Spark UI proxy's masking (jobs/services/spark_ui.py) is the same however the engine's answer is chunked: a
secret split across chunks, escaped for HTML or JSON, or repeated is masked exactly as in the whole text."""

from __future__ import annotations

import html
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from jobs.services.spark_ui import _masked

SECRETS = ["pg-Secret-9f3a1c", "it's<&>\"x", "abc"]


def _whole(text: bytes) -> bytes:
    out = text
    forms = sorted({f.encode() for s in SECRETS for f in (s, html.escape(s), html.escape(s, quote=False),
                                                          json.dumps(s)[1:-1])}, key=len, reverse=True)
    for form in forms:  # longest first, as the masker's alternation prefers
        out = out.replace(form, b"***")
    return out


pieces = st.lists(st.sampled_from([*SECRETS, *(html.escape(s) for s in SECRETS), "Filter (x = '", "')", " ", "a",
                                   "ab", "pg-Secret", "\n", "é"]), max_size=30)


@settings(max_examples=200, deadline=None)
@given(pieces, st.lists(st.integers(min_value=1, max_value=20), min_size=1, max_size=40))
def test_masking_does_not_depend_on_where_the_chunks_break(parts: list[str], cuts: list[int]) -> None:
    text = "".join(parts).encode()
    chunks, at = [], 0
    for size in cuts:
        chunks.append(text[at:at + size])
        at += size
    chunks.append(text[at:])
    masked = b"".join(_masked(iter(chunks), SECRETS))
    assert masked == _whole(text)
    for secret in SECRETS:
        assert secret.encode() not in masked and html.escape(secret).encode() not in masked


def test_no_secrets_passes_the_answer_through_unchanged() -> None:
    assert b"".join(_masked(iter([b"a", b"b"]), [])) == b"ab"
