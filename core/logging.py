"""Logging helpers: a filter that masks secrets in every record before any handler writes it."""

from __future__ import annotations

import logging

from lakeport_kernel.redaction import redact


class RedactSecretsFilter(logging.Filter):
    """Mask registered secrets and credential-shaped text in the message, its args and exception text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not drop the record
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            import traceback

            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True
