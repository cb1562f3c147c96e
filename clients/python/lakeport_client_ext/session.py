"""`Lakeport`: the generated client with token auth and retries, plus the calls integrations repeat —
submit a run with an idempotency key, wait for it with progress, apply a catalogs document, rotate a token."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from io import BytesIO
from typing import Any, TypeVar

import httpx
from lakeport_client import AuthenticatedClient
from lakeport_client.api.catalogs import catalogs_apply
from lakeport_client.api.runs import runs_get, runs_result_get, runs_submit
from lakeport_client.api.tokens import tokens_create, tokens_list, tokens_revoke
from lakeport_client.models import (
    ApiError,
    ApplyInputRequest,
    ApplyResult,
    RunOutput,
    RunResultOutput,
    TokenListApiInputRequest,
)
from lakeport_client.types import File, Response

from lakeport_client_ext.errors import LakeportError, error_from_response
from lakeport_client_ext.retries import RetryTransport

T = TypeVar("T")
TERMINAL_STATUSES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
MAX_SERVER_WAIT = 30.0  # the API's `?wait=` bound


class RunTimeout(TimeoutError):
    """The run was still queued or running when `wait_for_run` gave up; `run` is its last state."""

    def __init__(self, run: RunOutput, waited: float) -> None:
        super().__init__(f"run {run.id} still {run.status} after {waited:.0f}s")
        self.run = run


def unwrap(response: Response[ApiError | T]) -> T:
    """The parsed body of a successful answer, or the typed error (`NotFound`, `Conflict`, …) of a failed one."""
    status = int(response.status_code)
    if status >= 400:
        raise error_from_response(status, response.content, response.headers)
    if isinstance(response.parsed, ApiError):  # a success status never carries the envelope; keep mypy honest
        raise LakeportError(status, response.parsed.error.code, response.parsed.error.message)
    return response.parsed  # type: ignore[return-value]  # None only for bodiless answers (204)


class Lakeport:
    """A token-authenticated session: `client` for every generated call, helpers for the common flows.

    >>> lp = Lakeport("https://lakeport.example.com", token="lp_…")
    >>> run = lp.wait_for_run("acme", lp.submit_run("acme", job_id=7).id)
    """

    def __init__(self, base_url: str, token: str, *, retries: int = 4, timeout: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.client = AuthenticatedClient(
            base_url=base_url.rstrip("/"), token=token, raise_on_unexpected_status=False,
            timeout=httpx.Timeout(timeout), httpx_args={"transport": RetryTransport(transport, retries=retries)},
        )

    def close(self) -> None:
        self.client.get_httpx_client().close()

    def __enter__(self) -> Lakeport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- runs --------------------------------------------------------------------------------------------
    def submit_run(self, team: str, job_id: int, *, idempotency_key: str | None = None) -> RunOutput:
        """Submit a run of job `job_id`. The idempotency key (a new UUID unless given) makes a retried submit
        return the same run instead of starting a second one."""
        key = idempotency_key or str(uuid.uuid4())
        return unwrap(runs_submit.sync_detailed(team, job_id, client=self.client, idempotency_key=key))

    def wait_for_run(self, team: str, run_id: int, *, timeout: float = 600.0, poll: float = 1.0,
                     on_progress: Callable[[RunOutput], None] | None = None) -> RunOutput:
        """Wait until run `run_id` is SUCCEEDED, FAILED or CANCELLED and return it; `on_progress` gets each state
        that differs from the last, read every `poll` seconds. Each read waits on the server (`?wait=`), so the
        run is returned as soon as it ends, not at the next poll. Raises `RunTimeout` after `timeout` seconds."""
        started = time.monotonic()
        last: tuple[Any, ...] | None = None
        while True:
            asked = time.monotonic()
            wait = max(0.0, min(poll, MAX_SERVER_WAIT, timeout - (asked - started)))
            run = unwrap(runs_get.sync_detailed(team, run_id, client=self.client, wait=wait))
            seen = (run.status, tuple(sorted(run.progress.additional_properties.items())))
            if on_progress is not None and seen != last:
                on_progress(run)
            last = seen
            if run.status in TERMINAL_STATUSES:
                return run
            waited = time.monotonic() - started
            if waited > timeout:
                raise RunTimeout(run, waited)
            early = wait - (time.monotonic() - asked)
            if early > 0:  # the server answered at once (as many requests as it allows already wait)
                time.sleep(early)

    def run_result(self, team: str, run_id: int) -> RunResultOutput:
        """The bounded preview of a finished run's last query (`Conflict` while it is still running)."""
        return unwrap(runs_result_get.sync_detailed(team, run_id, client=self.client))

    # ---- catalogs ------------------------------------------------------------------------------------------
    def apply(self, team: str, document: ApplyInputRequest | str, *, prune: bool = False,
              dry_run: bool = False) -> ApplyResult:
        """Make the team's catalogs match `document` (a model, or the YAML text of a catalogs file)."""
        body: ApplyInputRequest | File = (
            File(payload=BytesIO(document.encode()), mime_type="application/yaml")
            if isinstance(document, str) else document)
        return unwrap(catalogs_apply.sync_detailed(team, client=self.client, body=body, prune=prune,
                                                   dry_run=dry_run))

    # ---- tokens --------------------------------------------------------------------------------------------
    def current_token_id(self) -> int:
        """The id of the token this session authenticates with (tokens are recognised by their prefix)."""
        page = 1
        while True:
            listing = unwrap(tokens_list.sync_detailed(client=self.client, page=page, page_size=1000))
            for token in listing.results:
                if token.active and self.client.token.startswith(token.prefix):
                    return token.id
            if not listing.next_:
                raise LakeportError(404, "not_found", "The session's token is not among the caller's active tokens.")
            page += 1

    def rotate_token(self, *, name: str, expires_in_days: int | None = None) -> str:
        """Issue a new token for the same user, switch this session to it and revoke the old one. Returns the
        new token's value, shown only this once: put it in your secret store."""
        old_id = self.current_token_id()
        issued = unwrap(tokens_create.sync_detailed(
            client=self.client, body=TokenListApiInputRequest(name=name, expires_in_days=expires_in_days)))
        self.client.token = issued.token
        self.client.get_httpx_client().headers["Authorization"] = f"Bearer {issued.token}"
        unwrap(tokens_revoke.sync_detailed(old_id, client=self.client))
        return issued.token
