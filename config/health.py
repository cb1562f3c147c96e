"""`/healthz`: database, broker and worker heartbeat; 200 only when all three are up.

Anyone (a load balancer, an orchestrator) gets the status; only a platform admin (session or bearer token) gets
the checks' detail, which names the workers' hosts and the broker transport.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from config.celery import app as celery_app
from jobs.heartbeat import live_workers
from teams.authentication import BearerTokenAuthentication


def _check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "message": f"database unreachable ({type(exc).__name__})"}


def _check_broker() -> dict[str, Any]:
    try:
        # The URL from settings, explicitly: Celery would otherwise prefer a CELERY_BROKER_URL from the environment.
        with celery_app.connection_for_write(url=settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
        return {"ok": True, "transport": conn.transport_cls if isinstance(conn.transport_cls, str) else "custom"}
    except Exception as exc:
        return {"ok": False, "message": f"broker unreachable ({type(exc).__name__})"}


def _check_workers(database_ok: bool) -> dict[str, Any]:
    if not database_ok:
        return {"ok": False, "message": "unknown: the database is down"}
    workers = live_workers()
    if not workers:
        return {"ok": False, "message": "no worker heartbeat in the last 3 intervals"}
    return {"ok": True, "workers": [{"hostname": w.hostname, "last_seen": w.last_seen.isoformat()} for w in workers]}


def _is_platform_admin(request: HttpRequest) -> bool:
    """A signed-in (session) or bearer-token platform admin; a bad token is simply not one."""
    try:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return bool(user.is_superuser)
        found = BearerTokenAuthentication().authenticate(Request(request))
    except (AuthenticationFailed, DatabaseError):
        return False
    return bool(found and found[0].is_superuser)


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Report each dependency (detail for platform admins only); any failure makes the answer 503."""
    database = _check_database()
    checks = {"database": database, "broker": _check_broker(), "worker": _check_workers(database["ok"])}
    ok = all(c["ok"] for c in checks.values())
    body: dict[str, Any] = {"status": "ok" if ok else "unavailable"}
    if database["ok"] and _is_platform_admin(request):  # who asks is in the database
        body["checks"] = checks
    return JsonResponse(body, status=200 if ok else 503)


@require_GET
def livez(request: HttpRequest) -> JsonResponse:
    """Liveness of this web process alone (container health checks); /healthz is the whole system."""
    return JsonResponse({"status": "ok"})
