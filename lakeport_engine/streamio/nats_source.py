"""NATS JetStream streams as a Spark streaming source (pyspark's Python Data Source API).

Offsets are JetStream stream sequence numbers (`{"seq": n}`): a micro-batch is the messages with
start < sequence ≤ end, read through an ephemeral pull consumer that starts at start + 1 and acknowledges
nothing, so a query restarted from its checkpoint reads exactly the messages it read before (unless the
stream's limits removed them). Under Trigger.AvailableNow the reader pins the stream's last sequence when the
run starts and plans batches of at most `max_records_per_batch` sequences up to it. Each message's payload is one
JSON record (records.py). The authentication secrets travel as one option, `auth_secret`, which Spark's redaction
regex masks wherever it prints options.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import nats
from nats.aio.client import Client, RawCredentials
from nats.js import api
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow

from lakeport_engine.catalog_types.nats_jetstream import NatsAuth
from lakeport_engine.streamio.record_source import RecordSource, declared_columns
from lakeport_engine.streamio.records import RecordParser

FORMAT = "lakeport_nats_jetstream"
FETCH_BATCH = 1000  # messages per pull request


async def connect(servers: Sequence[str], auth: NatsAuth, timeout: float) -> Client:
    """A connection that fails fast (no reconnect loop) and never prints its secrets."""
    kwargs: dict[str, Any] = {}
    if auth.user:
        kwargs["user"], kwargs["password"] = auth.user, auth.password
    if auth.token:
        kwargs["token"] = auth.token
    if auth.credentials:
        kwargs["user_credentials"] = RawCredentials(auth.credentials)

    async def quiet(_: Exception) -> None:  # nats-py prints errors by default; the caller reports them
        return None

    return await nats.connect(servers=list(servers), connect_timeout=timeout, allow_reconnect=False,
                              max_reconnect_attempts=0, error_cb=quiet, **kwargs)


async def last_sequence(client: Client, stream: str) -> int:
    """The stream's last sequence number (0 when it never had a message)."""
    info = await client.jetstream().stream_info(stream)
    return int(info.state.last_seq)


async def messages(client: Client, stream: str, start: int, end: int,
                   timeout: float) -> AsyncIterator[tuple[int, bytes]]:
    """(sequence, payload) of the stream's messages with start < sequence ≤ end, in order."""
    js = client.jetstream()
    config = api.ConsumerConfig(deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start + 1,
                                ack_policy=api.AckPolicy.NONE, inactive_threshold=60.0, mem_storage=True)
    info = await js.add_consumer(stream, config=config)
    sub = await js.pull_subscribe_bind(stream=stream, name=info.name)
    try:
        last = start
        while last < end:
            try:
                batch = await sub.fetch(min(FETCH_BATCH, end - last), timeout=timeout)
            except nats.errors.TimeoutError:
                return  # the rest of the range was deleted from the stream
            for msg in batch:
                seq = msg.metadata.sequence.stream
                if seq > end:
                    return
                last = seq
                yield seq, msg.data
                if msg.metadata.num_pending == 0 and seq < end:
                    return
    finally:
        await sub.unsubscribe()
        with contextlib.suppress(nats.errors.Error):  # inactive_threshold removes it anyway
            await js.delete_consumer(stream, info.name)


async def newest(client: Client, stream: str, limit: int) -> list[tuple[int, bytes]]:
    """The stream's newest `limit` messages, oldest first."""
    info = await client.jetstream().stream_info(stream)
    end = int(info.state.last_seq)
    start = max(int(info.state.first_seq) - 1, end - limit)
    return [m async for m in messages(client, stream, start, end, timeout=5.0)][-limit:] if limit else []


@dataclass(frozen=True)
class SequenceRange(InputPartition):
    """Messages with start < sequence ≤ end."""

    start: int
    end: int


class JetStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Reads one JetStream stream between sequence numbers."""

    def __init__(self, options: dict[str, str]) -> None:
        self.servers: list[str] = json.loads(options["servers"])
        self.auth = NatsAuth.from_option(options.get("auth_secret"))
        self.stream_name = options["stream_name"]
        self.label = options.get("label", self.stream_name)
        self.columns = declared_columns(options["columns"])
        self.start = options.get("start", "earliest")
        self.max_rows = int(options.get("max_records_per_batch") or 0)
        self.timeout = float(options.get("timeout", "10"))
        self.target: int | None = None  # an AvailableNow run's last sequence, pinned when it starts

    def _last(self) -> int:
        async def go() -> int:
            client = await connect(self.servers, self.auth, self.timeout)
            try:
                return await last_sequence(client, self.stream_name)
            finally:
                await client.close()

        return asyncio.run(go())

    def initialOffset(self) -> dict[str, int]:
        """Before the first message (earliest) or at the last one (latest)."""
        return {"seq": self._last() if self.start == "latest" else 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.max_rows) if self.max_rows > 0 else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """Pin this run's end at the stream's last sequence now: later messages get larger sequences."""
        self.target = self._last()

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        """The last sequence, or at most `limit.max_rows` sequences after `start`; never past an AvailableNow
        target."""
        if self.target is not None and self.target <= int(start["seq"]):
            return start  # the run has read everything up to its target: Spark ends it
        last = self._last()
        if self.target is not None:
            last = min(last, self.target)  # min: a stream deleted and made again restarts its sequences
        if isinstance(limit, ReadMaxRows):
            last = min(last, int(start["seq"]) + limit.max_rows)
        return {"seq": max(last, int(start["seq"]))}

    def reportLatestOffset(self) -> dict[str, int] | None:
        return {"seq": self._last()}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        if int(end["seq"]) <= int(start["seq"]):
            return []
        return [SequenceRange(int(start["seq"]), int(end["seq"]))]

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        """The range's messages as rows."""
        assert isinstance(partition, SequenceRange)
        parser = RecordParser(self.label, self.columns)

        async def go() -> list[tuple[Any, ...]]:
            client = await connect(self.servers, self.auth, self.timeout)
            try:
                return [parser.parse(data, f"sequence {seq}") async for seq, data in
                        messages(client, self.stream_name, partition.start, partition.end, self.timeout)]
            finally:
                await client.close()

        yield from asyncio.run(go())

    def commit(self, end: dict[str, int]) -> None:
        """Nothing to acknowledge: the stream keeps its messages under its own limits."""


class NatsJetStreamDataSource(RecordSource):
    """`spark.readStream.format("lakeport_nats_jetstream")` with options servers, stream, columns, auth_secret."""

    FORMAT = FORMAT
    READER = JetStreamReader
