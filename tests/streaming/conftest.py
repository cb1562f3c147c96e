"""Stream fixtures: a Redis with append-only persistence on its own port, JetStream streams on the NATS at
127.0.0.1:4222 (platform/scripts/ensure-services.sh starts it), and a factory for stream catalogs."""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import nats
import pytest
import redis

from tests.support.net import free_port, wait_for_port
from tests.support.secrets import register_secret

NATS_URL = "nats://127.0.0.1:4222"


@dataclass
class RedisServer:
    """A password-protected redis-server with appendonly persistence in a temp dir."""

    port: int
    password: str

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, password=self.password)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    binary = shutil.which("redis-server")
    assert binary, "redis-server is missing: run platform/scripts/ensure-services.sh"
    workdir = tempfile.mkdtemp(prefix="lp-redis-streams-")
    port, password = free_port(), "rs-" + secrets.token_hex(8)
    proc = subprocess.Popen(
        [binary, "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
    )
    # the password goes in through stdin (a config file read from '-'), never on the command line
    assert proc.stdin is not None
    proc.stdin.write(f"port {port}\nbind 127.0.0.1\nappendonly yes\ndir {workdir}\nsave \"\"\n"
                     f"requirepass {password}\n".encode())
    proc.stdin.close()
    register_secret(password)
    wait_for_port(port, timeout=20)
    yield RedisServer(port, password)
    proc.terminate()
    proc.wait(timeout=10)
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def redis_stream(redis_server: RedisServer) -> Callable[..., str]:
    """`redis_stream([record, …], key=None)` → a new stream key holding the records as JSON in field `data`."""

    def make(records: list[Any], key: str | None = None) -> str:
        key = key or f"s{uuid.uuid4().hex[:10]}"
        conn = redis_server.client()
        for record in records:
            conn.xadd(key, {"data": record if isinstance(record, str) else json.dumps(record)})
        return key

    return make


@pytest.fixture
def nats_stream() -> Iterator[Callable[..., str]]:
    """`nats_stream([record, …])` → a new JetStream stream (deleted afterwards) holding the records."""
    created: list[str] = []

    async def create(name: str, records: list[Any]) -> None:
        client = await nats.connect(NATS_URL, connect_timeout=5)
        js = client.jetstream()
        await js.add_stream(name=name, subjects=[f"{name}.in"])
        for record in records:
            await js.publish(f"{name}.in", (record if isinstance(record, str) else json.dumps(record)).encode())
        await client.close()

    def make(records: list[Any]) -> str:
        name = f"LP{uuid.uuid4().hex[:10]}"
        asyncio.run(create(name, records))
        created.append(name)
        return name

    yield make

    async def drop() -> None:
        client = await nats.connect(NATS_URL, connect_timeout=5)
        for name in created:
            await client.jetstream().delete_stream(name)
        await client.close()

    if created:
        asyncio.run(drop())


@pytest.fixture
def stream_catalog() -> Callable[..., dict[str, Any]]:
    """`stream_catalog("redis-streams", tables={...}, **config)` → an API body for a stream catalog."""

    def make(catalog_type: str, name: str = "events", **configuration: Any) -> dict[str, Any]:
        return {"catalog_name": name, "catalog_type": catalog_type, "configuration": configuration}

    return make


def columns(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    """A declared column list."""
    return [{"name": n, "type": t} for n, t in pairs]
