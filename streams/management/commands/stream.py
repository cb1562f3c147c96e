"""`manage.py stream --team T --job NAME status|start|stop|restart|reset`: operate a streaming job from a shell."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.errors import DomainError
from jobs.models import SqlJob
from streams.apis import StreamStateOutput
from streams.selectors import stream_view
from streams.services.lifecycle import stream_reset, stream_restart, stream_start, stream_state, stream_stop
from teams.models import Team

ACTIONS = ("status", "start", "stop", "restart", "reset")


class Command(BaseCommand):
    help = "Show or change the state of a streaming job (the same services as the API's stream/ endpoints)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("--team", required=True, help="Team name.")
        parser.add_argument("--job", required=True, help="Name of the streaming job.")
        parser.add_argument("--yes", action="store_true",
                            help="Confirm a reset: the next start replays every source from its beginning.")

    def handle(self, *args: Any, **opts: Any) -> None:
        team = Team.objects.filter(name=opts["team"]).first()
        job = SqlJob.objects.filter(team=team, name=opts["job"]).first() if team else None
        if job is None:
            raise CommandError(f"No job named '{opts['job']}' in team '{opts['team']}'.")
        action = opts["action"]
        try:
            if action == "start":
                state = stream_start(job=job, user=None)
            elif action == "stop":
                state = stream_stop(job=job, user=None)
            elif action == "restart":
                state = stream_restart(job=job, user=None)
            elif action == "reset":
                state = stream_reset(job=job, user=None, confirm=opts["yes"])
            else:
                state = stream_state(job)
        except DomainError as exc:  # a batch job, or a transition the stream's status does not allow
            raise CommandError(exc.message) from None
        self.stdout.write(json.dumps(StreamStateOutput(stream_view(state)).data, indent=2))  # the API's body
