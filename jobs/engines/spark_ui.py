"""The Spark UI of a team engine is for that team only, and only through Lakeport.

Every engine's UI listens on loopback, where other teams' engines (other OS users) could reach it. The platform
jar's `io.lakeport.spark.UiAccessFilter` (platform/jvm) refuses every request without the engine's token; the
engine receives the token in its init message (the private channel: never a command line, the environment or the
Spark conf) and hands it to the filter over py4j. The token is the team's (an HMAC of the team name under the
platform's newest catalog secret key, which the web process and every worker share), so the web process computes it
too, and another team's engine on a port a run once
recorded answers 403: the proxy (jobs/services/spark_ui.py) then says the run's engine is gone.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

from lakeport_engine.platform_jar import platform_jars

UI_FILTER = "io.lakeport.spark.UiAccessFilter"
TOKEN_HEADER = "X-Lakeport-UI-Token"


def ui_token(team: str) -> str:
    """The token team `team`'s engines accept on their Spark UI (the same in the worker and the web process)."""
    key = (list(settings.LAKEPORT_SECRET_KEYS) or [settings.SECRET_KEY])[0]
    return hmac.new(f"lakeport.spark-ui:{key}".encode(), f"team:{team}".encode(), hashlib.sha256).hexdigest()


def ui_static_conf(operator_filters: str = "") -> dict[str, str]:
    """The UI's static conf: behind the access filter, or switched off when the platform jar is not built."""
    if not platform_jars():
        return {"spark.ui.enabled": "false"}  # no filter to guard it: no UI rather than one any local user reads
    filters = ",".join(f for f in (UI_FILTER, *operator_filters.split(",")) if f.strip())
    return {"spark.ui.filters": filters}
