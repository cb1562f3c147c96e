"""`manage.py bootstrap_demo` — the demo team and its admin for `make run`; prints the password once."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from teams.models import Role, Team
from teams.services import membership_set, team_create, user_get_or_create


class Command(BaseCommand):
    help = "Create team 'demo' with user 'admin' (admin role); the first run prints the generated password."

    def handle(self, *args: Any, **options: Any) -> None:
        team = Team.objects.filter(name="demo").first() or team_create(name="demo", description="Demo team")
        if User.objects.filter(username="admin").exists():
            user = User.objects.get(username="admin")
            self.stdout.write("demo team ready; user 'admin' exists (password as printed on first run; "
                              "reset with `manage.py changepassword admin`)")
        else:
            password = secrets.token_urlsafe(12)
            user = user_get_or_create(username="admin", password=password)
            self.stdout.write(f"demo team ready; sign in as admin / {password}")
        membership_set(team=team, user=user, role=Role.ADMIN)
