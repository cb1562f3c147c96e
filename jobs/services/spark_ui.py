"""A run's Spark UI, forwarded from its engine to the team's members (issue 31: Kyuubi and StreamPark proxy it too).

The engine recorded the UI's address when it started (`JobRun.spark_ui_url`); only its port is used: the proxy
always connects to the engines' bind address (`LAKEPORT_ENGINE_BIND_ADDRESS`), so a recorded URL can never make
the web process call another host. Each request carries the team's UI token (jobs/engines/spark_ui.py) and
`X-Forwarded-Context`, which Spark's UI uses as the prefix of every link it writes (`UIUtils.uiRoot`), so pages,
scripts and the REST API all stay under the proxy's path. Only GET and HEAD pass: the UI's kill links are off and
nothing is changed through it. An engine that stopped (refused connection) or a port now held by another team's
engine (403 from its filter) is "gone", never a page of someone else's.

Spark redacts plan descriptions (`spark.sql.redaction.string.regex`) but not the one-line node labels of the SQL
tab's graph, which are the typed SQL itself: every answer is masked on its way through (`_masked`), so a catalog
secret a member typed as a literal reads `***` for the team's other members too, in any escaping a page uses.
"""

from __future__ import annotations

import html
import http.client
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from django.conf import settings

from catalogs.services.masking import team_secrets_register
from core.errors import NotFound
from jobs.engines.spark_ui import TOKEN_HEADER, ui_token
from jobs.models import JobRun
from lakeport_kernel.redaction import MASK, registered_secrets

TIMEOUT_SECONDS = 30.0
CHUNK_BYTES = 64 * 1024
# What the browser may see of the UI's answer (hop-by-hop headers and cookies stay behind).
# (No content-length: masking changes the length; Django streams the answer chunked.)
_PASSED_HEADERS = ("content-type", "cache-control", "last-modified", "etag", "expires")
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
    team_secrets_register(team_id=run.team_id)
    return UiAnswer(status=response.status, headers=headers,
                    body=_masked(_chunks(connection, response), registered_secrets()))


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


def _spellings(secret: str) -> set[bytes]:
    """The ways a page may carry `secret`: as is, HTML/XML-escaped, JSON-escaped, percent-encoded."""
    forms = {secret, html.escape(secret, quote=False), html.escape(secret), html.escape(secret).replace("&#x27;", "&#39;"),
             html.escape(secret).replace("&#x27;", "&apos;"), json.dumps(secret)[1:-1],
             json.dumps(secret, ensure_ascii=False)[1:-1], quote(secret, safe=""), quote(secret)}
    return {form.encode() for form in forms if form}


def _masked(chunks: Iterator[bytes], secrets: Iterable[str]) -> Iterator[bytes]:
    """`chunks` with every spelling of every secret replaced by the mask, also across chunk boundaries: the last
    (longest spelling − 1) bytes wait for the next chunk, since only a secret's prefix can end a chunk unmatched."""
    spellings = sorted({form for secret in secrets for form in _spellings(secret)}, key=len, reverse=True)
    if not spellings:
        yield from chunks
        return
    pattern = re.compile(b"|".join(re.escape(form) for form in spellings))
    keep = len(spellings[0]) - 1
    pending = b""
    for chunk in chunks:
        pending = pattern.sub(MASK.encode(), pending + chunk)
        if len(pending) > keep:
            cut = len(pending) - keep
            yield pending[:cut]
            pending = pending[cut:]
    if pending:
        yield pending
