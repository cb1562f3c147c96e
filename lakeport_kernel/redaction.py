"""Keep secret values out of logs, job logs and error messages.

Every secret the process decrypts is registered here; `redact()` replaces registered values and
credential-shaped fragments (``password=…`` in URLs and option strings, bearer tokens) with ``***``.
Imports no Django: the Spark driver uses it too.
"""

from __future__ import annotations

import re
import threading

MASK = "***"
_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None

# Credential shapes worth masking even when the value was never registered.
_SHAPES = [
    re.compile(r"(?i)(password|passwd|pwd|secret|token|access[_-]?key|secret[_-]?key|sas[_-]?token)(\s*[=:]\s*)([^\s&;,'\"}]+)"),
    re.compile(r"(?i)(bearer\s+)([A-Za-z0-9._~+/=-]{8,})"),
    re.compile(r"(://[^/:@\s]+:)([^@/\s]+)(@)"),
]


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


def redact_secrets(text: str) -> str:
    """Return `text` with registered secrets masked (data: credential-shaped text is left as it is)."""
    pattern = _pattern
    if not text or pattern is None:
        return text
    return pattern.sub(MASK, text)


def redact(text: str) -> str:
    """Return `text` with registered secrets and credential-shaped fragments masked."""
    if not text:
        return text
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    text = _SHAPES[0].sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _SHAPES[1].sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _SHAPES[2].sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
    return text
