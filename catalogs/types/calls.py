"""Calls into external systems with a hard deadline, and error messages scrubbed of secrets.

Every client (psycopg, PyMySQL, Thrift, delta-rs) has its own socket timeouts; the deadline here is the
last resort for a call that blocks somewhere those timeouts do not reach (DNS, a TLS handshake, a C library).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from catalogs.types.base import ConnectionResult, MetadataError
from lakeport_kernel.redaction import MASK, redact

T = TypeVar("T")

# Messages returned to users are clipped so a chatty driver cannot flood the UI.
_MAX_MESSAGE = 500


class DeadlineExceeded(Exception):
    """The call did not return within its deadline; it keeps running in a daemon thread until its own timeout."""

    def __init__(self, target: str, timeout: float) -> None:
        super().__init__(f"timed out after {timeout:g} s waiting for {target}")
        self.target = target
        self.timeout = timeout


def call_with_deadline(fn: Callable[[], T], *, timeout: float, target: str) -> T:
    """Run `fn` in a daemon thread and return its result, re-raise its exception, or raise DeadlineExceeded."""
    outcome: dict[str, object] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread, which decides what it means
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name=f"lakeport-call:{target}", daemon=True).start()
    if not done.wait(timeout):
        raise DeadlineExceeded(target, timeout)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with the given secret values and credential-shaped fragments masked, on one short line."""
    # Longest first so a secret containing another is masked whole; 1-2 characters would shred ordinary words.
    for secret in sorted((s for s in secrets if s and len(s) >= 3), key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = redact(text)
    line = " ".join(text.split())
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 1] + "…"


def check_connection(
    check: Callable[[], str],
    *,
    timeout: float,
    target: str,
    explain: Callable[[BaseException], str],
    secrets: Iterable[str] = (),
) -> ConnectionResult:
    """Run `check` (returns a success message) under a deadline; turn any failure into ok=False, never raise.

    `explain` maps a client exception to a user-facing message; the result is scrubbed of `secrets`.
    """
    secrets = list(secrets)
    started = time.monotonic()
    try:
        message, ok = call_with_deadline(check, timeout=timeout, target=target), True
    except DeadlineExceeded as exc:
        message, ok = str(exc), False
    except Exception as exc:
        try:
            message = explain(exc)
        except Exception:  # a bug in a message mapper must not turn a failed test into a 500
            message = f"could not connect to {target}: {type(exc).__name__}"
        ok = False
    elapsed_ms = int((time.monotonic() - started) * 1000)
    return ConnectionResult(ok=ok, message=scrub(message, secrets), elapsed_ms=elapsed_ms)


def browse(fn: Callable[[], T], *, timeout: float, target: str, explain: Callable[[BaseException], str],
           secrets: Iterable[str] = ()) -> T:
    """Run a metadata call under a deadline; failures become MetadataError (504 on timeout, 502 otherwise)."""
    secrets = list(secrets)
    try:
        return call_with_deadline(fn, timeout=timeout, target=target)
    except MetadataError as exc:
        raise MetadataError(scrub(str(exc), secrets), status=exc.status) from None
    except DeadlineExceeded as exc:
        raise MetadataError(str(exc), status=504) from None
    except Exception as exc:
        try:
            message = explain(exc)
        except Exception:
            message = f"{target} failed: {type(exc).__name__}"
        status = 504 if "timed out" in message else 502
        raise MetadataError(scrub(message, secrets), status=status) from None
