"""`manage.py create_api_token --user U` — issue a bearer token and print it alone on stdout."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from teams.services import api_token_create


class Command(BaseCommand):
    help = "Issue an API token for a user; prints only the token, for scripts to capture."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True)
        parser.add_argument("--name", default="cli")
        parser.add_argument("--expires-in-days", type=int, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"No user named '{options['user']}'.")
        issued = api_token_create(user=user, name=options["name"], expires_in_days=options["expires_in_days"])
        self.stdout.write(issued.raw)
