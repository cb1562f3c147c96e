"""The suite's register of secret values, for the session-wide leak scan (tests/support/leakscan.py).

Tests register the secrets they use (`register_secret("pg-Secr3t-…")`); the scan also learns, on its own, every
bearer token a test client sends, every secret stored in a catalog row of a test, and every value the runtime
registered with `lakeport_kernel.redaction`. It must never register anything into the runtime's redaction registry:
that would make the application mask exactly the values the scan is looking for, and hide a leak.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable

# Short or plain-word values ("postgres", "secret") also occur in ordinary text: a hit would prove nothing.
MIN_LENGTH = 8
_lock = threading.Lock()
_secrets: dict[str, str] = {}  # value → where it came from (for the report)
_PLAIN_WORD = re.compile(r"^[a-z]+$")


def is_secret_like(value: object) -> bool:
    """True when `value` is distinctive enough that finding it in output means it leaked."""
    return isinstance(value, str) and len(value) >= MIN_LENGTH and not _PLAIN_WORD.match(value) and value.isprintable()


def register_secret(value: str, source: str = "test") -> str:
    """Add `value` to the scan's secrets (ignored when too plain to scan for) and return it unchanged."""
    if is_secret_like(value):
        with _lock:
            _secrets.setdefault(value, source)
    return value


def register_secrets(values: Iterable[str], source: str = "test") -> None:
    for value in values:
        register_secret(value, source)


def known_secrets() -> dict[str, str]:
    """Every secret known so far: registered here, plus those the runtime's redaction registry holds."""
    from lakeport_kernel import redaction

    with _lock:
        found = dict(_secrets)
    for value in list(redaction._secrets):
        if is_secret_like(value):
            found.setdefault(value, "lakeport_kernel.redaction")
    public = published_examples()
    return {value: source for value, source in found.items() if value not in public}


@functools.cache
def published_examples() -> frozenset[str]:
    """String values of the OpenAPI examples. The fuzzer sends them as catalog passwords (so the scan would learn
    them from the catalog rows and the runtime's redaction registry), yet they are public text served by
    /api/schema/: seeing one in a response is not a leak."""
    from core.api.schema import EXAMPLES

    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            found.add(value)

    walk(EXAMPLES)
    return frozenset(found)


def leaks_in(text: str, secrets: Iterable[str] | None = None) -> list[str]:
    """The secret values that occur in `text`."""
    if not text:
        return []
    pool = known_secrets() if secrets is None else secrets
    return [s for s in pool if s in text]


def masked(value: str) -> str:
    """How a found secret is named in a report: enough to recognise it, not enough to reuse it."""
    return f"{value[:3]}…({len(value)} chars)"
