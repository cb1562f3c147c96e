"""`manage.py apply -f catalogs.yaml --team T [--prune] [--dry-run] [--as ADMIN]` — declarative catalogs, jobs and
schedules for one team."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalogs.services.spec import field_paths
from core.errors import DomainError
from declarative.documents import DocumentError, load_document
from declarative.services import document_apply
from teams.management.actor import add_as_argument, cli_actor
from teams.models import Role, Team


def _flatten(details: Any, prefix: str = "") -> list[str]:
    lines: list[str] = []
    if isinstance(details, dict):
        for key, value in details.items():
            lines.extend(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(details, list):
        lines.extend(f"  {prefix}: {item}" for item in details)
    else:
        lines.append(f"  {prefix}: {details}")
    return lines


class Command(BaseCommand):
    help = (
        "Make a team's catalogs match a YAML/JSON file (a list of catalog bodies, or {catalogs: [...], jobs: [...], "
        "schedules: [...], materialized_views: [...], alert_channels: [...], alert_rules: [...], groups: [...], "
        "grants: [...], row_filters: [...], column_masks: [...]}): create "
        "and update them, and with --prune delete the ones not listed. All or nothing. ${VAR} in configurations "
        "is read from the environment, so the file need not hold secrets; an entry without a secret keeps the "
        "stored one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("-f", "--file", required=True, help="The catalogs file; '-' reads standard input.")
        parser.add_argument("--team", required=True, help="The team whose catalogs to manage.")
        parser.add_argument("--prune", action="store_true", help="Delete the team's catalogs the file does not list.")
        parser.add_argument("--dry-run", action="store_true", help="Show what would change; change nothing.")
        add_as_argument(parser, "--actor")  # --actor: its name before `--as` was shared with the stream commands
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        team = Team.objects.filter(name=options["team"]).first()
        if team is None:
            raise CommandError(f"No team named '{options['team']}'.")
        # the API's rule for apply: a team admin (catalogs, jobs and schedules alike)
        actor = cli_actor(username=options["as_user"], team=team, required=Role.ADMIN, doing="apply")
        path = options["file"]
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
            document = load_document(text)
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}.") from exc
        except DocumentError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        try:
            result = document_apply(
                team=team, actor=actor.user, document=document, prune=options["prune"], dry_run=options["dry_run"],
                environ=os.environ, actor_name=None if actor.user else actor.name,
            )
        except DomainError as exc:  # a bad entry (each field named), a conflict with the stored state
            lines = "\n".join(_flatten(exc.details))
            raise CommandError(f"{exc.message}\n{lines}" if field_paths(exc.details) else exc.message) from exc
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict(), sort_keys=True))
            return
        prefix = "would be " if result.dry_run else ""
        for label, names in (("created", result.created), ("updated", result.updated), ("deleted", result.deleted),
                             ("unchanged", result.unchanged)):
            self.stdout.write(f"{prefix}{label}: {', '.join(names) if names else '-'}")
        for section in ("jobs", "schedules", "materialized_views", "alert_channels", "alert_rules", "groups", "grants",
                        "row_filters", "column_masks"):
            counts = getattr(result, section)
            if counts is not None:
                self.stdout.write(f"{section}: " + "; ".join(
                    f"{prefix}{label} {', '.join(names) if names else '-'}" for label, names in counts.items()))
