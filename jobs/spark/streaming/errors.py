"""Errors of the streaming runtime: user errors whose messages are shown as they are (never a secret)."""

from __future__ import annotations

from jobs.spark.errors import SparkRuntimeError


class StreamingStatementError(SparkRuntimeError):
    """A streaming statement that cannot start: bad shape, bad EMIT, an EMIT its sink cannot honour."""


class StreamingSinkError(SparkRuntimeError):
    """A sink that cannot take the query's rows (unknown table, missing key, unsupported catalog type)."""


def user_message(exc: BaseException) -> str:
    """The first part of an error's message a user reads: Spark's own text without the JVM or Python stack."""
    if isinstance(exc, SparkRuntimeError):
        return exc.message
    java = getattr(exc, "java_exception", None)
    if java is not None:  # py4j: Spark's error classes along the cause chain ("[FAILED_READ_FILE] … file …")
        found: list[str] = []
        while java is not None and len(found) < 5:
            text = str(java.getMessage() or "").strip()
            if text.startswith("["):
                found.append(text.split("\n")[0].strip())
            java = java.getCause()
        if found:
            return " — ".join(found)
    getter = getattr(exc, "getMessage", None)
    try:
        message = getter() if callable(getter) else str(exc)
    except Exception:  # noqa: BLE001 - a broken py4j link must not hide the original failure
        message = str(exc)
    message = (message or type(exc).__name__).split("\n\nJVM stacktrace:")[0]
    return message.split("\nTraceback (most recent call last)")[0].strip()
