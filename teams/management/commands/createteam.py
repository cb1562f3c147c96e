"""`manage.py createteam NAME` — create a team."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from teams.services import team_create


class Command(BaseCommand):
    help = "Create a team (name: lowercase letters, digits and '-')."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--description", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            team = team_create(name=options["name"], description=options["description"])
        except DomainError as exc:  # a taken name (its message), a bad one (each field's message)
            raise CommandError("; ".join(exc.messages())) from exc
        self.stdout.write(f"created team {team.name}")
