"""A run's Spark UI, forwarded from its engine to the team's members (issue 31: Kyuubi and StreamPark proxy it too).

The engine recorded the UI's address when it started (`JobRun.spark_ui_url`); only its port is used: the proxy
always connects to the engines' bind address (`LAKEPORT_ENGINE_BIND_ADDRESS`), so a recorded URL can never make
the web process call another host. Each request carries the team's UI token (jobs/engines/spark_ui.py) and
`X-Forwarded-Context`, which Spark's UI uses as the prefix of every link it writes (`UIUtils.uiRoot`), so pages,
scripts and the REST API all stay under the proxy's path. Only GET and HEAD pass: the UI's kill links are off and
nothing is changed through it. An engine that stopped (refused connection) or a port now held by another team's
engine (403 from its filter) is "gone", never a page of someone else's.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from django.conf import settings

from core.errors import NotFound
from jobs.engines.spark_ui import TOKEN_HEADER, ui_token
from jobs.models import JobRun

TIMEOUT_SECONDS = 30.0
CHUNK_BYTES = 64 * 1024
# What the browser may see of the UI's answer (hop-by-hop headers and cookies stay behind).
_PASSED_HEADERS = ("content-type", "content-length", "cache-control", "last-modified", "etag", "expires")
_URL_SAFE = "/%:@!$&'()*+,;=~"  # what stays as sent: RFC 3986 delimiters and escapes
GONE = "The Spark UI of this run is gone: the engine that ran it has stopped (the UI lives as long as its engine)."


@dataclass
class UiAnswer:
    """The engine's answer, streamed: status, the headers passed on, and the body in chunks."""

    status: int
    headers: dict[str, str]
    body: Iterator[bytes]


def spark_ui_fetch(*, run: JobRun, path: str, query: str, method: str = "GET") -> UiAnswer:
    """Forward `method path?query` to the Spark UI of `run`'s engine; NotFound when it has none or it is gone."""
    port = _engine_port(run)
    # re-encoded: a raw control character or space can neither split the request line nor add a header
    target = "/" + quote(path.lstrip("/"), safe=_URL_SAFE) + ("?" + quote(query, safe=_URL_SAFE + "?") if query else "")
    prefix, team = run.spark_ui_prefix, run.team.name
    connection = http.client.HTTPConnection(settings.LAKEPORT_ENGINE_BIND_ADDRESS, port, timeout=TIMEOUT_SECONDS)
    try:
        connection.request(method, target, headers={TOKEN_HEADER: ui_token(team), "X-Forwarded-Context": prefix,
                                                    "Accept-Encoding": "identity"})
        response = connection.getresponse()
    except OSError as exc:  # refused, reset, timed out: no engine listens there any more
        connection.close()
        raise NotFound(GONE) from exc
    if response.status == 403:  # another team's engine holds the port now, or one that never had our token
        connection.close()
        raise NotFound(GONE)
    headers = {name: value for name, value in response.getheaders() if name.lower() in _PASSED_HEADERS}
    location = response.getheader("Location")
    if location:
        headers["Location"] = _proxied_location(location, prefix)
    return UiAnswer(status=response.status, headers=headers, body=_chunks(connection, response))


def _engine_port(run: JobRun) -> int:
    try:
        port = urlsplit(run.spark_ui_url).port if run.spark_ui_url else None
    except ValueError:
        port = None
    if port is None or not 0 < port < 65536:
        raise NotFound("This run has no Spark UI: its engine has not started, or ran with the UI off.")
    return port


def _proxied_location(location: str, prefix: str) -> str:
    """A redirect of the UI, as a path under the proxy (Spark writes absolute URLs with its own host and port)."""
    parts = urlsplit(location)
    path = parts.path or "/"
    if not path.startswith(prefix + "/") and path != prefix:
        path = prefix + path
    return path + (f"?{parts.query}" if parts.query else "")


def _chunks(connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> Iterator[bytes]:
    try:
        while chunk := response.read(CHUNK_BYTES):
            yield chunk
    finally:
        connection.close()
