"""Assertions shared by the metadata tests."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest


def assert_secret_absent(secret: str, *, responses: list[Any] = (), caplog: pytest.LogCaptureFixture | None = None,
                         texts: list[str] = ()) -> None:
    """Fail if `secret` appears in any response body, any captured log record (message, args, extras) or text."""
    assert secret and len(secret) >= 8, "use a distinctive secret so the check means something"
    for resp in responses:
        body = resp.content.decode()
        assert secret not in body, f"secret leaked in a {resp.status_code} response"
    for text in texts:
        assert secret not in text
    if caplog is not None:
        for record in caplog.records:
            rendered = record.getMessage() + json.dumps(record.__dict__, default=str)
            assert secret not in rendered, f"secret leaked in log record {record.name}"


def capture_everything(caplog: pytest.LogCaptureFixture) -> None:
    """Capture DEBUG and up from every logger, client libraries included."""
    caplog.set_level(logging.DEBUG)
