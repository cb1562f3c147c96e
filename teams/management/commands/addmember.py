"""`manage.py addmember --team T --user U --role R` — add a user to a team (or change their role)."""

from __future__ import annotations

import os
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from teams.models import Role, Team
from teams.services import membership_set, user_get_or_create


class Command(BaseCommand):
    help = "Add a user to a team with a role; --create makes the user if missing (password from LAKEPORT_NEW_USER_PASSWORD)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--team", required=True)
        parser.add_argument("--user", required=True)
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument("--create", action="store_true", help="create the user when missing")

    def handle(self, *args: Any, **options: Any) -> None:
        team = Team.objects.filter(name=options["team"]).first()
        if team is None:
            raise CommandError(f"No team named '{options['team']}'.")
        user = User.objects.filter(username=options["user"]).first()
        if user is None:
            if not options["create"]:
                raise CommandError(f"No user named '{options['user']}' (pass --create to make one).")
            # The password comes from the environment, never from argv where `ps` would show it.
            user = user_get_or_create(username=options["user"], password=os.environ.get("LAKEPORT_NEW_USER_PASSWORD"))
        try:
            membership_set(team=team, user=user, role=options["role"])
        except DomainError as exc:  # the team's last admin demoted
            raise CommandError(exc.message) from exc
        self.stdout.write(f"{user.username} is {options['role']} in {team.name}")
