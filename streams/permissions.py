"""The role a stream action needs in the job's team: the API's stream views and `manage.py stream|runjob --as`
both ask here, so a shell cannot do what the API would refuse."""

from __future__ import annotations

from teams.models import Role

STREAM_READ_ROLE: str = Role.VIEWER  # status, metrics
STREAM_WRITE_ROLE: str = Role.DEVELOPER  # start, stop, restart, reset


def stream_action_role(action: str) -> str:
    """The least role that may carry out `action` (`status` only reads)."""
    return STREAM_READ_ROLE if action == "status" else STREAM_WRITE_ROLE
