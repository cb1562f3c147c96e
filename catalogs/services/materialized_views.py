"""Materialized view definitions in the platform database: the team-scoped `ViewStore` engines ask over their
channel, and what the API shows (definition, freshness) — the Delta side lives in lakeport_engine/delta."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from catalogs.hooks import view_details, view_saved
from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import secret_box
from lakeport_engine.matviews import REFRESH_MODES, VIEW_CATALOG_TYPES, ViewDefinition, ViewStoreError

# A Delta database or table name as the runtime allows it (lakeport_engine/delta/catalog.py check_name): the
# engine's word is not trusted for paths the web process later reads (freshness).
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_$-]{0,254}$")


def _next_refresh(row: MaterializedView) -> str | None:
    """The view's next scheduled refresh (from the view hooks: its schedule's next tick), ISO 8601."""
    moment = view_details(view=row).get("next_refresh")
    return moment.isoformat() if isinstance(moment, datetime) else None


def _definition(row: MaterializedView) -> ViewDefinition:
    return ViewDefinition(
        catalog=row.catalog.catalog_name, database=row.database, name=row.name, query=row.query,
        refresh_mode=row.refresh_mode, schedule_cron=row.schedule_cron or None,
        schedule_timezone=row.schedule_timezone or None, partition_by=list(row.partition_by or []),
        properties=dict(row.properties or {}), comment=row.comment or None,
        sources={str(k): int(v) for k, v in (row.sources or {}).items()}, table_version=row.table_version,
        last_refresh=row.last_refresh, state=row.state, next_refresh=_next_refresh(row))


class DjangoViewStore:
    """The `t_materialized_view` rows of one team's catalogs (another team's view is simply not there)."""

    def __init__(self, team: str) -> None:
        self.team = team

    def _rows(self, catalog: str) -> Any:
        return MaterializedView.objects.select_related("catalog").filter(
            catalog__team__name=self.team, catalog__catalog_name=catalog.lower())

    def get_view(self, catalog: str, database: str, name: str) -> ViewDefinition | None:
        """The team's view, or None."""
        row = self._rows(catalog).filter(database=database, name=name).first()
        return _definition(row) if row is not None else None

    def list_views(self, catalog: str, database: str | None = None) -> list[ViewDefinition]:
        """The views of the team's catalog (and database), sorted."""
        rows = self._rows(catalog)
        if database is not None:
            rows = rows.filter(database=database)
        return [_definition(r) for r in rows.order_by("database", "name")]

    def save_view(self, definition: ViewDefinition) -> None:
        """Create or replace; only into one of this team's Delta catalogs, with a known refresh mode."""
        catalog = Catalog.objects.filter(team__name=self.team, catalog_name=definition.catalog.lower()).first()
        if catalog is None:
            raise ViewStoreError(f"catalog '{definition.catalog}' is not a catalog of team '{self.team}'.")
        if catalog.catalog_type not in VIEW_CATALOG_TYPES:
            raise ViewStoreError(f"catalog '{catalog.catalog_name}' is a {catalog.catalog_type} catalog; "
                                 "materialized views live in Delta catalogs.")
        team_catalogs = set(Catalog.objects.filter(team__name=self.team).values_list("catalog_name", flat=True))
        for source in definition.sources:
            parts = source.split(".")
            if len(parts) != 3 or parts[0] not in team_catalogs or not all(_NAME.match(p) for p in parts[1:]):
                raise ViewStoreError(f"source '{source[:200]}' is not a table of this team's catalogs.")
        if not (_NAME.match(definition.database) and _NAME.match(definition.name)):
            raise ViewStoreError("a materialized view's database and name must be plain Delta names.")
        if definition.refresh_mode not in REFRESH_MODES:
            raise ViewStoreError(f"refresh mode '{definition.refresh_mode}' is not one of {', '.join(REFRESH_MODES)}.")
        fields = {
            "query": definition.query, "refresh_mode": definition.refresh_mode,
            "schedule_cron": definition.schedule_cron or "", "schedule_timezone": definition.schedule_timezone or "",
            "partition_by": list(definition.partition_by), "properties": dict(definition.properties),
            "comment": definition.comment or "", "sources": dict(definition.sources),
            "table_version": definition.table_version, "last_refresh": definition.last_refresh,
            "state": definition.state, "update_time": timezone.now(),
        }
        with transaction.atomic():
            row, _ = MaterializedView.objects.update_or_create(catalog=catalog, database=definition.database,
                                                               name=definition.name, defaults=fields)
            view_saved(view=row)  # e.g. the view's refresh schedule; an error here rolls the save back

    def drop_view(self, catalog: str, database: str, name: str) -> None:
        """Forget the team's view."""
        self._rows(catalog).filter(database=database, name=name).delete()


def freshness(row: MaterializedView) -> dict[str, Any]:
    """Per source: the version the view reflects, the source's latest Delta version (read from its log), how many
    versions behind and `since` (when the first commit the view does not reflect landed); `stale` when any source
    has commits the view does not reflect, `behind` (versions, summed over the sources) and `stale_since` (the
    oldest `since`)."""
    from deltalake import DeltaTable  # the log only: no Spark in the web process

    from lakeport_engine.delta.catalog import TableRef
    from lakeport_engine.delta.history import commit_history

    config = secret_box().open_config(json.loads(row.catalog.configuration))
    warehouse = str(config.get("warehouse") or "").removeprefix("file://").rstrip("/")
    options = {str(k): str(v) for k, v in dict(config.get("storage-options") or {}).items()} or None
    sources: dict[str, dict[str, Any]] = {}
    for source, version in sorted((row.sources or {}).items()):
        catalog, database, table = source.split(".", 2)
        latest: int | None = None
        since: str | None = None
        if catalog == row.catalog.catalog_name:  # sources in another catalog: only versions reflected are shown
            try:
                log = DeltaTable(f"{warehouse}/{database}/{table}", storage_options=options)
                latest = log.version()
                if latest > int(version):  # when the first commit the view misses landed
                    first = next((c for c in commit_history(log, TableRef(catalog, database, table))
                                  if c.get("version") == int(version) + 1), None)
                    latest = log.version()  # commit_history read the log as it is now
                    if first is not None and first.get("timestamp") is not None:
                        since = datetime.fromtimestamp(int(first["timestamp"]) / 1000, tz=UTC).isoformat()
            except Exception:  # noqa: BLE001 — a source dropped or unreadable: unknown, said as null
                latest = None
        sources[source] = {"reflected": int(version), "latest": latest,
                           "behind": None if latest is None else latest - int(version), "since": since}
    stale = any(s["behind"] for s in sources.values())
    moments = sorted(s["since"] for s in sources.values() if s["since"])
    return {"stale": stale, "sources": sources, "behind": sum(s["behind"] or 0 for s in sources.values()),
            "stale_since": moments[0] if moments else None}


def view_rows(*, catalog: Catalog) -> Any:
    """The catalog's views, sorted."""
    return MaterializedView.objects.select_related("catalog").filter(catalog=catalog).order_by("database", "name")


def view_refresh_set(*, view: MaterializedView, refresh_mode: str, schedule_cron: str, schedule_timezone: str) -> None:
    """Change how a view is refreshed (what `ALTER MATERIALIZED VIEW … SCHEDULE | REFRESH …` does, for `apply -f`):
    the row and, through the view hooks, its schedule, in one transaction. The caller has checked the cron and the
    time zone; a schedule the team's rules refuse raises ViewStoreError and nothing is saved."""
    if refresh_mode not in REFRESH_MODES:
        raise ViewStoreError(f"refresh mode '{refresh_mode}' is not one of {', '.join(REFRESH_MODES)}.")
    with transaction.atomic():
        view.refresh_mode, view.schedule_cron, view.schedule_timezone = refresh_mode, schedule_cron, schedule_timezone
        view.update_time = timezone.now()
        view.save(update_fields=["refresh_mode", "schedule_cron", "schedule_timezone", "update_time"])
        view_saved(view=view)
