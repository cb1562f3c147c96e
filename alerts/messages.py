"""What an alert says: what happened, where to look (a link to the run or stream page), the error's first line.

Built from redacted text only (the run's stored error is already redacted; it is redacted again here, since an
alert leaves the platform); never a channel's secret, a catalog's configuration or a token.
"""

from __future__ import annotations

from typing import TypedDict

from django.conf import settings

from lakeport_kernel.redaction import redact

MAX_ERROR_LINE = 300


class AlertMessage(TypedDict):
    """The body every channel renders (the webhook sends it as JSON, Slack and e-mail as text)."""

    kind: str  # firing | resolved | test
    event: str
    team: str
    rule: str
    title: str
    text: str
    link: str


def first_line(error: str | None) -> str:
    """The error's first non-empty line, redacted and cut short; "" for none."""
    for line in (error or "").splitlines():
        if line.strip():
            return redact(line.strip())[:MAX_ERROR_LINE]
    return ""


def run_link(*, team: str, run_id: int) -> str:
    """The run's page in the browser app."""
    return f"{settings.LAKEPORT_PUBLIC_URL.rstrip('/')}/t/{team}/runs/{run_id}"


def job_link(*, team: str, job_id: int) -> str:
    """The job's page (a streaming job's page shows its stream)."""
    return f"{settings.LAKEPORT_PUBLIC_URL.rstrip('/')}/t/{team}/jobs/{job_id}"


def message(*, kind: str, event: str, team: str, rule: str, title: str, error: str | None, link: str) -> AlertMessage:
    """An alert's body; `text` is the error's first line (or what cleared it)."""
    return AlertMessage(kind=kind, event=event, team=team, rule=rule, title=redact(title)[:500],
                        text=first_line(error), link=link)


def plain_text(body: AlertMessage) -> str:
    """The message as text (e-mail body, Slack `text`)."""
    lines = [body["title"]]
    if body["text"]:
        lines.append(body["text"])
    if body["link"]:
        lines.append(f"Open: {body['link']}")
    lines.append(f"Team {body['team']}, rule '{body['rule']}'.")
    return "\n".join(lines)
