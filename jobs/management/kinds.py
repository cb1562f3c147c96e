"""How `manage.py runjob` runs a job of a kind other than batch: a handler the app of that kind registers
(streams/apps.py registers the streaming one, which starts or stops the stream on the workers). A kind without a
handler runs as a batch run in runjob itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.core.management.base import OutputWrapper

from jobs.models import SqlJob
from teams.management.actor import CliActor


@dataclass(frozen=True)
class RunjobCall:
    """What runjob hands a kind's handler: the job (created or updated from --file), who acts, the options that
    concern a non-batch kind, and the command's outputs."""

    job: SqlJob
    actor: CliActor
    stop: bool
    timeout: float
    out: OutputWrapper
    err: OutputWrapper


RunjobHandler = Callable[[RunjobCall], None]

_HANDLERS: dict[str, RunjobHandler] = {}


def register_runjob_handler(kind: str, handler: RunjobHandler) -> None:
    """Make `handler` run runjob's jobs of `kind` (it raises CommandError for a non-zero exit)."""
    _HANDLERS[kind] = handler


def runjob_handler(kind: str) -> RunjobHandler | None:
    """The handler of `kind`, or None when runjob runs it as a batch run."""
    return _HANDLERS.get(kind)
