"""The streaming half of `manage.py runjob` (jobs/management/commands/runjob.py): a streaming job is started on
the workers, as the API's stream/start/ does, and followed until it is RUNNING; `--stop` stops it gracefully and
waits until it is STOPPED."""

from __future__ import annotations

from jobs.management.kinds import RunjobCall
from streams.management.operate import operate_stream
from streams.models import StreamAction


def runjob_streaming(call: RunjobCall) -> None:
    """Start (or with --stop, stop) the job's stream and follow it until it settles; CommandError otherwise."""
    action = StreamAction.STOP if call.stop else StreamAction.START
    operate_stream(job=call.job, action=action, actor=call.actor, out=call.out, err=call.err, wait=True,
                   timeout=call.timeout)
