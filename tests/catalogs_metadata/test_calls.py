"""The last-resort deadline and message scrubbing every catalog type relies on."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from catalogs.types.base import MetadataError
from catalogs.types.calls import DeadlineExceeded, browse, call_with_deadline, check_connection, scrub


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """An event a blocked call waits on; set at teardown so no thread outlives the test."""
    event = threading.Event()
    yield event
    event.set()


def test_returns_value_and_reraises_errors() -> None:
    assert call_with_deadline(lambda: 42, timeout=5, target="x") == 42
    with pytest.raises(ZeroDivisionError):
        call_with_deadline(lambda: 1 / 0, timeout=5, target="x")


def test_a_call_that_never_returns_is_abandoned(gate: threading.Event) -> None:
    """A client stuck where its own timeouts do not reach (DNS, a C library) still gives the caller back."""
    with pytest.raises(DeadlineExceeded, match=r"timed out after 0.2 s waiting for db:5432"):
        call_with_deadline(lambda: gate.wait(), timeout=0.2, target="db:5432")


def test_check_connection_turns_a_stuck_check_into_ok_false(gate: threading.Event) -> None:
    result = check_connection(lambda: str(gate.wait()), timeout=0.2, target="db:5432", explain=str)
    assert result.ok is False
    assert result.message == "timed out after 0.2 s waiting for db:5432"


def test_check_connection_scrubs_secrets_from_explained_errors() -> None:
    def fail() -> str:
        raise RuntimeError("login as bob with hunter2-secret failed; url postgres://bob:pw123456@h/db")

    result = check_connection(fail, timeout=5, target="h", explain=str, secrets=["hunter2-secret"])
    assert result.ok is False
    assert "hunter2-secret" not in result.message and "pw123456" not in result.message
    assert "bob" in result.message  # the rest of the message survives


def test_check_connection_survives_a_broken_explainer() -> None:
    def fail() -> str:
        raise ValueError("boom")

    def broken(exc: BaseException) -> str:
        raise KeyError("bug")

    result = check_connection(fail, timeout=5, target="h:1", explain=broken)
    assert result.ok is False and result.message == "could not connect to h:1: ValueError"


def test_browse_maps_failures_to_statuses(gate: threading.Event) -> None:
    with pytest.raises(MetadataError) as timeout:
        browse(lambda: gate.wait(), timeout=0.2, target="h:1", explain=str)
    assert timeout.value.status == 504

    def refused() -> None:
        raise ConnectionRefusedError("refused")

    with pytest.raises(MetadataError) as failed:
        browse(refused, timeout=5, target="h:1", explain=lambda e: "connection refused at h:1")
    assert (failed.value.status, str(failed.value)) == (502, "connection refused at h:1")

    def missing() -> None:
        raise MetadataError("table 't' does not exist; password s3cr3t-value", status=404)

    with pytest.raises(MetadataError) as not_found:
        browse(missing, timeout=5, target="h:1", explain=str, secrets=["s3cr3t-value"])
    assert not_found.value.status == 404 and "s3cr3t-value" not in str(not_found.value)


def test_scrub_keeps_short_secrets_from_shredding_text_and_flattens_lines() -> None:
    assert scrub("expected x here", ["x"]) == "expected x here"
    assert scrub("line one\n\tline two", []) == "line one line two"
    assert len(scrub("a" * 2000)) == 500
