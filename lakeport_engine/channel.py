"""The engine channel: newline-delimited JSON messages over one private stream socket.

The platform creates a socket pair per engine and hands the engine its end as an inherited file descriptor, so
only the two processes hold it: the channel is authenticated by construction and needs no token. Both sides send
from several threads (one per run), so `send` is serialized; one reader thread per side consumes `messages()`.

The messages are declared, encoded and decoded in lakeport_engine/protocol.py; the channel frames them (one JSON
object per line) and hands each side the objects it reads, which that side decodes.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

from lakeport_engine.protocol import Message, encode

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a result preview is bounded far below this; a longer line is corrupt


class ChannelClosed(ConnectionError):
    """The other side closed the channel (its process exited)."""


class Channel:
    """JSON messages over a connected stream socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._send_lock = threading.Lock()
        self._reader = sock.makefile("rb")

    def send(self, message: Message) -> None:
        """Send one message; raises ChannelClosed when the other side is gone."""
        data = encode(message)
        with self._send_lock:
            try:
                self.sock.sendall(data)
            except OSError as exc:
                raise ChannelClosed(str(exc)) from None

    def messages(self) -> Iterator[dict[str, Any]]:
        """JSON objects until the other side closes the channel (lines that are not one are dropped); each is a
        message to decode with lakeport_engine.protocol.decode."""
        while True:
            try:
                line = self._reader.readline(MAX_MESSAGE_BYTES)
            except (OSError, ValueError):
                return
            if not line:
                return
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                yield message

    def close(self) -> None:
        """Close both directions (the other side's reader ends)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def channel_pair() -> tuple[Channel, socket.socket]:
    """A platform-side Channel and the engine's raw socket end (to pass as an inherited fd)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return Channel(ours), theirs
