"""Fixtures of the interactive streaming tests: the stream fixtures of tests/streaming (Redis with a password on
its own port, JetStream streams, catalog bodies) and one real Celery worker for the module's engine calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.jobs.conftest import running_worker
from tests.streaming.conftest import nats_stream, redis_server, redis_stream, stream_catalog
from tests.support.worker import Worker

__all__ = ["nats_stream", "redis_server", "redis_stream", "stream_catalog"]  # fixtures shared with tests/streaming


@pytest.fixture(scope="module")
def interactive_worker(django_db_setup: Any, django_db_blocker: Any,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """One worker (no beat) whose team engine answers the module's previews and validations."""
    with running_worker(tmp_path_factory, "interactive-worker", hostname="interactive@%h", beat=False,
                        env={"LAKEPORT_LIVE_PREVIEW_SECONDS": "20"}) as worker:
        yield worker
