"""The hand-written layer's retries and typed errors against a real HTTP server on a local socket that answers
429/503 with Retry-After (the platform itself only rate-limits sign-in, so it cannot be driven there on demand)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from tests.integrations.conftest import CLIENT_DIR  # noqa: F401  (puts the client on sys.path)


class Script:
    """The answers the server gives, in order; every request it saw."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, dict[str, str], dict[str, Any]]] = []
        self.seen: list[tuple[str, str | None]] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            script.seen.append((self.command, self.headers.get("Idempotency-Key")))
            status, headers, body = script.answers.pop(0) if script.answers else (200, {}, {})
            data = json.dumps(body).encode()
            self.send_response(status)
            for key, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer  # noqa: N815

        def log_message(self, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    httpd.shutdown()
    httpd.server_close()


def envelope(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": {}}}


def test_429_and_503_are_retried_after_the_time_retry_after_asks(server: tuple[str, Script]) -> None:
    from lakeport_client_ext import RetryTransport

    url, script = server
    waits: list[float] = []
    script.answers = [(429, {"Retry-After": "2"}, envelope("throttled", "slow down")),
                      (503, {"Retry-After": "1"}, envelope("service_unavailable", "db down")),
                      (200, {}, {"ok": True})]
    with httpx.Client(transport=RetryTransport(sleep=waits.append)) as client:
        response = client.get(f"{url}/api/v1/me/")
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert waits == [2.0, 1.0] and len(script.seen) == 3


def test_a_503_post_is_retried_only_with_an_idempotency_key(server: tuple[str, Script]) -> None:
    from lakeport_client_ext import RetryTransport

    url, script = server
    waits: list[float] = []
    script.answers = [(503, {"Retry-After": "1"}, envelope("service_unavailable", "db down"))] * 2
    with httpx.Client(transport=RetryTransport(sleep=waits.append)) as client:
        assert client.post(f"{url}/x/", json={}).status_code == 503  # not repeatable: handed back at once
        assert waits == []
        assert client.post(f"{url}/x/", json={}, headers={"Idempotency-Key": "k-1"}).status_code == 200
    assert waits == [1.0] and script.seen[-2:] == [("POST", "k-1"), ("POST", "k-1")]


def test_retries_give_up_and_raise_a_typed_error_with_retry_after(server: tuple[str, Script]) -> None:
    from lakeport_client.api.auth import me_get
    from lakeport_client_ext import Lakeport, RateLimited, unwrap

    url, script = server
    script.answers = [(429, {"Retry-After": "0"}, envelope("throttled", "Request was throttled."))] * 3
    with Lakeport(url, token="lp_test", retries=2) as lp, pytest.raises(RateLimited) as caught:
        unwrap(me_get.sync_detailed(client=lp.client))
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (429, "throttled", 0.0)
    assert len(script.seen) == 3  # the first try and two retries
