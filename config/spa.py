"""The browser app: `frontend/dist/index.html` for `/` and every client-side route (not /api/, /static/, /healthz).

The built JS/CSS live under /static/ and are served by whitenoise; this view only hands out the HTML shell,
so a reload on /t/acme/runs/7 opens the same screen.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import re_path
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

_NOT_BUILT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lakeport</title></head>
<body><h1>Lakeport</h1><p>The web UI has not been built. Run <code>bash platform/scripts/build-frontend.sh</code>
(or <code>make run</code>), then reload. The REST API is at <a href="/api/docs/">/api/docs/</a>.</p></body></html>"""

_cache: dict[str, tuple[float, bytes]] = {}


def _index_html() -> bytes | None:
    """index.html from the build, re-read only when the file changes (a rebuild while the server runs)."""
    path = Path(settings.FRONTEND_DIST) / "index.html"
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    cached = _cache.get("index")
    if cached and cached[0] == mtime:
        return cached[1]
    body = path.read_bytes()
    _cache["index"] = (mtime, body)
    return body


@require_safe
@never_cache  # the shell names the hashed asset files of the current build, so it must never be stale
@ensure_csrf_cookie  # the first write from the app then has a token to send
def spa_index(request: HttpRequest) -> HttpResponse:
    """Serve the single-page app's HTML shell."""
    body = _index_html()
    if body is None:
        return HttpResponse(_NOT_BUILT, status=503, content_type="text/html; charset=utf-8")
    return HttpResponse(body, content_type="text/html; charset=utf-8")


# Everything except the API, static files and the health check; appended last in config/urls.py.
urlpatterns = [
    re_path(r"^(?!api(?:/|$)|static(?:/|$)|healthz(?:/|$)).*$", spa_index, name="spa"),
]
