"""`manage.py create_demo_data` — what `make run` shows in its first minute: a Delta catalog `demo_lake` with small
tables (shop.orders, shop.customers, shop.events) in team demo's own warehouse, a job joining them, and a paused
schedule of it. Idempotent: what exists is left as it is (a user's edits survive the next `make run`)."""

from __future__ import annotations

import os
import pwd
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
from deltalake import write_deltalake
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalogs.models import Catalog
from core.errors import DomainError
from declarative.services import document_apply
from jobs.engines.process import prepare_team_data
from jobs.engines.users import engine_user
from jobs.models import SqlJob
from schedules.models import Schedule
from teams.models import Team

CATALOG = "demo_lake"
DATABASE = "shop"
JOB = "customer revenue"
SCHEDULE = "nightly revenue"
JOB_SQL = """-- Revenue and activity per customer: the three demo tables joined.
-- ${ds} is the run's logical date (a schedule's tick); ${min_amount} a parameter with a default.
SELECT c.name, c.country, ${ds} AS report_day,
       count(DISTINCT o.order_id) AS orders,
       round(sum(o.amount), 2) AS revenue,
       count(DISTINCT e.event_id) AS events,
       max(e.at) AS last_seen
FROM demo_lake.shop.customers c
JOIN demo_lake.shop.orders o ON o.customer_id = c.customer_id
LEFT JOIN demo_lake.shop.events e ON e.customer_id = c.customer_id
WHERE o.amount >= ${min_amount}
GROUP BY c.name, c.country
ORDER BY revenue DESC
"""


def demo_tables() -> dict[str, pa.Table]:
    """Small deterministic tables: 6 customers, 40 orders, 60 events with timestamps."""
    start = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
    names = ["Ada", "Bruno", "Chioma", "Dmitri", "Elif", "Farah"]
    countries = ["DE", "BR", "NG", "PL", "TR", "AE"]
    customers = pa.table({"customer_id": pa.array(range(1, 7), pa.int64()), "name": names, "country": countries})
    orders = pa.table({
        "order_id": pa.array(range(1, 41), pa.int64()),
        "customer_id": pa.array([i % 6 + 1 for i in range(40)], pa.int64()),
        "amount": pa.array([round(5 + (i * 37 % 190) + (i % 7) * 0.25, 2) for i in range(40)], pa.float64()),
        "ordered_at": pa.array([start + timedelta(hours=7 * i) for i in range(40)], pa.timestamp("us", tz="UTC")),
    })
    kinds = ["page_view", "add_to_cart", "checkout", "search"]
    events = pa.table({
        "event_id": pa.array(range(1, 61), pa.int64()),
        "customer_id": pa.array([i * 5 % 6 + 1 for i in range(60)], pa.int64()),
        "kind": [kinds[i % 4] for i in range(60)],
        "at": pa.array([start + timedelta(minutes=95 * i) for i in range(60)], pa.timestamp("us", tz="UTC")),
    })
    return {"customers": customers, "orders": orders, "events": events}


def team_warehouse(team: str) -> Path:
    """The team's own Delta warehouse: `warehouse/` under its first data root (LAKEPORT_TEAM_DATA_ROOTS)."""
    return Path(str(settings.LAKEPORT_TEAM_DATA_ROOTS[0]).replace("{team}", team)).resolve() / "warehouse"


def _give_to(path: Path, user: str | None) -> None:
    # Engines of the team run as the engine user and must read (and may write) the team's warehouse.
    if user is None:
        return
    pw = pwd.getpwnam(user)
    for root, dirs, files in os.walk(path):
        os.chown(root, pw.pw_uid, pw.pw_gid)
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), pw.pw_uid, pw.pw_gid)


class Command(BaseCommand):
    help = ("Create, once, team demo's Delta catalog demo_lake (shop.orders, shop.customers, shop.events), the job "
            "'customer revenue' joining them and its paused schedule 'nightly revenue'.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--team", default="demo", help="The team to create the demo in (default: demo).")

    def handle(self, *args: Any, **options: Any) -> None:
        team = Team.objects.filter(name=options["team"]).first()
        if team is None:
            raise CommandError(f"No team named '{options['team']}' (manage.py bootstrap_demo creates 'demo').")
        user = engine_user(team.name)
        prepare_team_data(team.name, user)
        warehouse = team_warehouse(team.name)
        written = []
        for name, table in demo_tables().items():
            path = warehouse / DATABASE / name
            if not (path / "_delta_log").is_dir():
                path.mkdir(parents=True, exist_ok=True)
                write_deltalake(str(path), table)
                written.append(name)
        _give_to(warehouse, user)
        catalogs = [] if Catalog.objects.filter(team=team, catalog_name=CATALOG).exists() else [{
            "catalog_name": CATALOG, "catalog_type": "delta", "description": "Demo shop data (make run)",
            "configuration": {"warehouse": str(warehouse), "default-database": DATABASE}}]
        pipelines: dict[str, Any] = {}
        if not SqlJob.objects.filter(team=team, name=JOB).exists():
            pipelines["jobs"] = [{"name": JOB, "sql": JOB_SQL, "default_catalog": CATALOG,
                                  "parameters": {"min_amount": {"type": "decimal", "default": "0"}}}]
        if not Schedule.objects.filter(team=team, name=SCHEDULE).exists():
            pipelines["schedules"] = [{"name": SCHEDULE, "job": JOB, "cron": "0 6 * * *", "time_zone": "UTC",
                                       "enabled": False, "parameters": {"min_amount": "10"}}]
        if catalogs or pipelines:
            try:
                document_apply(team=team, actor=None, document={"catalogs": catalogs, **pipelines},
                               actor_name="create_demo_data")
            except DomainError as exc:  # e.g. a catalog path outside the team's data roots
                raise CommandError(exc.summary()) from None
        created = [*written, *(c["catalog_name"] for c in catalogs), *(e["name"] for s in pipelines.values() for e in s)]
        self.stdout.write(f"demo data: created {', '.join(created)}" if created else "demo data: already there")
