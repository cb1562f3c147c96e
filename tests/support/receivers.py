"""A real HTTP receiver of alerts on 127.0.0.1 (tests/alerts, tests/streams): records each POST, verifies the
HMAC signature, and can be stopped and started on the same port (a receiver that is down for a while)."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.leakscan import SCAN

WEBHOOK_SECRET = "whsec-Alerts-5gT8kQ2m"  # registered with the leak scan by the scan itself (sealed in the channel)


@dataclass
class Received:
    """One POST the receiver got: headers, raw body, and whether its HMAC signature verified."""

    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        return dict(json.loads(self.body))

    def signed_with(self, secret: str) -> bool:
        expected = "sha256=" + hmac.new(secret.encode(), self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(self.headers.get("X-Lakeport-Signature", ""), expected)


@dataclass
class Receiver:
    """An HTTP server on 127.0.0.1 that records every POST; `stop()`/`start()` on the same port (a receiver down)."""

    port: int
    received: list[Received] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/lakeport"

    def start(self) -> None:
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received.append(Received(headers=dict(self.headers.items()), body=body))
                SCAN.record_response(f"alert received {self.path}", body.decode(errors="replace"))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
