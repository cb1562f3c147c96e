"""`manage.py stream --team T --job NAME status|start|stop|restart|reset`: operate a streaming job from a shell."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs.models import SqlJob
from streams.management.operate import operate_stream
from streams.permissions import stream_action_role
from teams.management.actor import add_as_argument, cli_actor
from teams.models import Team

ACTIONS = ("status", "start", "stop", "restart", "reset")


class Command(BaseCommand):
    help = ("Show or change the state of a streaming job (the same services as the API's stream/ endpoints). "
            "`manage.py runjob --team T --job NAME [--stop]` starts or stops one and waits for it.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("--team", required=True, help="Team name.")
        parser.add_argument("--job", required=True, help="Name of the streaming job.")
        parser.add_argument("--yes", action="store_true",
                            help="Confirm a reset: the next start replays every source from its beginning.")
        parser.add_argument("--wait", action="store_true",
                            help="After start or stop, wait until the stream is RUNNING or STOPPED (FAILED: exit 1 "
                                 "with its error).")
        parser.add_argument("--timeout", type=float, default=300.0, help="Seconds --wait waits at most.")
        add_as_argument(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        team = Team.objects.filter(name=opts["team"]).first()
        job = SqlJob.objects.filter(team=team, name=opts["job"]).select_related("team").first() if team else None
        if job is None:
            raise CommandError(f"No job named '{opts['job']}' in team '{opts['team']}'.")
        action = opts["action"]
        actor = cli_actor(username=opts["as_user"], team=job.team, required=stream_action_role(action),
                          doing=f"stream {action}")
        operate_stream(job=job, action=action, actor=actor, out=self.stdout, err=self.stderr, wait=opts["wait"],
                       timeout=opts["timeout"], confirm=opts["yes"])
