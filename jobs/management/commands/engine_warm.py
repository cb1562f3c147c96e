"""`manage.py engine_warm --team demo` — ask an editor worker to start a team's engine now (`make run` does it for
team demo once it serves, so the first preview does not wait for an engine start)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs.services.warmup import engine_warm_request
from teams.models import Team


class Command(BaseCommand):
    help = "Start a team's engine in the background (jobs/services/warmup.py)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--team", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        team = Team.objects.filter(name=options["team"]).first()
        if team is None:
            raise CommandError(f"No team '{options['team']}'.")
        sent = engine_warm_request(team=team)
        self.stdout.write(f"engine start of team {team.name} {'requested' if sent else 'not sent (broker down)'}")
