"""Errors of the streaming runtime: user errors whose messages are shown as they are (never a secret)."""

from __future__ import annotations

from lakeport_engine.errors import SparkRuntimeError


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
        message = getter() if callable(getter) else ""
    except Exception:  # noqa: BLE001 - a broken py4j link must not hide the original failure
        message = ""
    # query.exception() gives a captured exception whose getMessage() is empty: its text is str()
    message = (message or str(exc) or type(exc).__name__).split("\n\nJVM stacktrace:")[0]
    return message.split("\nTraceback (most recent call last)")[0].strip()


# Spark's refusals of a checkpoint whose state the query no longer matches (an edited aggregation, key or
# stateful operator): a restart on the same checkpoint fails the same way every time.
INCOMPATIBLE_STATE = (
    "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE", "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE",
    "STATE_STORE_COLUMN_FAMILY_SCHEMA_INCOMPATIBLE", "STATE_STORE_INVALID_CONFIG_AFTER_RESTART",
    "STATE_STORE_INVALID_VARIABLE_TYPE_CHANGE", "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA",
    "STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY",
)


def incompatible_checkpoint(message: str) -> str | None:
    """The user's message when `message` is Spark refusing to resume the checkpoint's state, else None."""
    found = next((name for name in INCOMPATIBLE_STATE if f"[{name}]" in message), None)
    if found is None:
        return None
    reason = message[message.index(f"[{found}]"):].split("\n")[0].strip()
    return ("The query cannot resume from its checkpoint: its state was written by a query with other grouping "
            f"keys, aggregates or stateful operators ({reason}). Change the query back, or reset the stream to "
            "start it on a new checkpoint (the sources are then read again from their beginning).")
