"""Starting a team's engine before its first statement (issue 31: "a fast first query").

A member who opens the SQL editor is about to validate and preview: the web process asks an editor worker, once a
minute at most per team (`WARM_EVERY_SECONDS`, per web process), to start the team's engine in the background.
The worker leases the team's engine from its pool and starts it unless it runs; the lease ends at once and the
pool keeps the engine warm for the editor's calls. A statement that arrives while the start is under way waits
for that same start (the pool's start lock), never for a second one; all slots busy means no warm-up, and the
first statement starts the engine as before. `make run` warms team demo's engine once it serves, and signing in
warms the engines of the user's most recent teams where they may run SQL (`warm_on_sign_in`).
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from core.enqueue import task_send
from core.queues import EDITOR_QUEUE
from jobs.engines import engine_key
from jobs.engines.pool import engine_pool
from jobs.engines.process import EngineError
from teams.models import Membership, Role, Team

logger = logging.getLogger("lakeport.jobs")

WARM_EVERY_SECONDS = 60
# Signing in warms at most this many teams' engines: a member of many teams must not start an engine in each.
SIGN_IN_TEAMS = 2


def engine_warm_request(*, team: Team) -> bool:
    """Ask an editor worker to start `team`'s engine; False when it was asked within the last minute (or the broker
    could not take it: the first statement then starts the engine, as without a warm-up)."""
    if not cache.add(f"lakeport:engine-warm:{team.id}", True, timeout=WARM_EVERY_SECONDS):
        return False
    return task_send("jobs.engine_warm", args=[team.id], queue=EDITOR_QUEUE, logger=logger,
                     event="engine.warm_not_sent", extra={"team_id": team.id})


def engine_warm(*, team_id: int) -> bool:
    """Worker side: start the team's engine unless it runs; True if it runs now."""
    team = Team.objects.filter(id=team_id).first()
    if team is None:
        return False
    pool = engine_pool()
    with pool.lease(engine_key(team=team.name, script="")) as engine:
        if engine is None:
            logger.info("engine.warm_skipped", extra={"team": team.name, "reason": "no free engine slot"})
            return False
        try:
            pool.start(engine)
        except EngineError as exc:  # the team's first statement reports it, as it would have without a warm-up
            logger.warning("engine.warm_failed", extra={"team": team.name, "error": str(exc)[:200]})
            return False
    logger.info("engine.warm", extra={"team": team.name})
    return True


def warm_on_sign_in(*, user_id: int) -> list[str]:
    """Ask for the engines of the signed-in user's teams where they write SQL (developer or admin; the most recently
    joined first, at most SIGN_IN_TEAMS); the names of the teams asked for."""
    memberships = (Membership.objects.select_related("team").filter(user_id=user_id,
                                                                     role__in=[Role.DEVELOPER, Role.ADMIN])
                   .order_by("-created_at")[:SIGN_IN_TEAMS])
    return [m.team.name for m in memberships if engine_warm_request(team=m.team)]
