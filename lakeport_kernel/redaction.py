"""Keep secret values and JVM internals out of logs, job logs, error messages and Spark's plan strings.

Every secret the process decrypts is registered here; `redact()` replaces registered values and
credential-shaped fragments (``password=…`` in URLs and option strings, ``'password' 'x'`` in SQL options, bearer
tokens) with ``***``, and drops JVM stack frames (``at org.…(…)``, ``Caused by:``, ``Driver stacktrace:``) that
Spark and JDBC drivers put in their messages. `spark_redaction_regex()` is the same masking as a Java regex for
Spark's `spark.sql.redaction.string.regex` (plan strings in the UI and the event log).
Imports no Django: the Spark driver uses it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

MASK = "***"
_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None
_listeners: list[Callable[[], None]] = []

_KEYS = r"password|passwd|pwd|secret|token|access[_-]?key|secret[_-]?key|sas[_-]?token"
_OPTION_KEYS = r"password|passwd|pwd|secret|access[_-]?key|secret[_-]?key|sas[_-]?token"
# Credential shapes worth masking even when the value was never registered. Each keeps group 1 (and the
# closing quote in the last group, if any) and masks the value between them.
_SHAPES = [
    # key=value, key: value, 'key'='value', "key": "value" (URLs, JDBC properties, JSON, SQL options with `=`)
    re.compile(rf"(?i)((?:{_KEYS})['\"`]?\s*[=:]\s*['\"]?)([^\s&;,'\"}}]+)()"),
    # SQL OPTIONS without `=`: password 'x', 'password' "x" (a bare `token 'x'` is how parsers quote input)
    re.compile(rf"(?i)((?<![\w.])(?:['\"`](?:{_KEYS})['\"`]|{_OPTION_KEYS})\s+(['\"]))((?:(?!\2).)+)(\2)"),
    re.compile(r"(?i)(bearer\s+)([A-Za-z0-9._~+/=-]{8,})()"),
    re.compile(r"(://[^/:@\s]+:)([^@/\s]+)(@)"),
]
# JVM stack traces as Java prints them (strict shapes, so SQL text that merely looks alike is left alone):
# a frame, "... 12 more", and the driver's or PySpark's trailer, after which only frames follow.
_JVM_FRAME = re.compile(r"^[ \t]+(?:at (?:[\w$]+[./])+[\w$<>]+\((?:[^()\n]*\.(?:java|scala|kt)(?::\d+)?|Native Method"
                        r"|Unknown Source)?\)[ \t]*|\.\.\. \d+ (?:more|common frames omitted)[ \t]*)(?:\n|$)", re.MULTILINE)
_JVM_TRAILER = re.compile(r"^[ \t]*(?:Driver stacktrace|JVM stacktrace):[ \t]*$", re.MULTILINE)
_JVM_CAUSE = re.compile(r"^[ \t]*(?:Caused by|Suppressed): (?=(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*)", re.MULTILINE)
# Java regex for Spark: the same credential shapes (Spark replaces the whole match).
_SPARK_SHAPES = (
    rf"(?i:{_KEYS})['\"`]?\s*[=:]\s*['\"]?[^\s&;,'\"}}]+",
    rf"['\"`]?(?i:{_OPTION_KEYS})['\"`]?\s+'[^']+'",
    r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}",
    r"://[^/:@\s]+:[^@/\s]+@",
)


def register_secret(value: str | None) -> None:
    """Remember a secret value so `redact()` masks it wherever it appears."""
    global _pattern
    if not value or len(value) < 3:
        return  # masking one or two characters would shred ordinary text
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        ordered = sorted(_secrets, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(s) for s in ordered))
        listeners = list(_listeners)
    for listener in listeners:
        listener()


def registered_secrets() -> frozenset[str]:
    """The secret values registered in this process so far (for masking that `redact` cannot do, e.g. bytes)."""
    with _lock:
        return frozenset(_secrets)


def on_secret_registered(listener: Callable[[], None]) -> None:
    """Call `listener` after every newly registered secret (the engine refreshes Spark's redaction regex)."""
    with _lock:
        _listeners.append(listener)


def spark_redaction_regex() -> str:
    """A Java regex for `spark.sql.redaction.string.regex`: registered secrets and credential shapes."""
    with _lock:
        ordered = sorted(_secrets, key=len, reverse=True)
    # \Q…\E quotes a value literally in Java; a value holding \E is split around it
    literal = [r"\Q" + s.replace(r"\E", r"\E\\E\Q") + r"\E" for s in ordered]
    return "|".join([*literal, *_SPARK_SHAPES])


def redact_secrets(text: str) -> str:
    """Return `text` with registered secrets masked (data: credential-shaped text is left as it is)."""
    pattern = _pattern
    if not text or pattern is None:
        return text
    return pattern.sub(MASK, text)


def without_jvm_frames(text: str) -> str:
    """`text` without JVM stack frames: frames and the driver's trace go, a `Caused by: X: m` line stays as `Cause: X: m`."""
    trailer = _JVM_TRAILER.search(text)
    if trailer is not None:
        text = text[: trailer.start()]
    stripped = _JVM_CAUSE.sub("Cause: ", _JVM_FRAME.sub("", text))
    return stripped.rstrip() if stripped is not text else text


def redact(text: str) -> str:
    """Return `text` with registered secrets and credential-shaped fragments masked, and JVM frames dropped."""
    if not text:
        return text
    text = without_jvm_frames(text)
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    for shape in _SHAPES:
        text = shape.sub(lambda m: f"{m.group(1)}{MASK}{m.group(m.lastindex or 1)}", text)
    return text
