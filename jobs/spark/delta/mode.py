"""Which Delta path a Spark session uses: the embedded connector (default) or the JVM delta-spark catalog."""

from __future__ import annotations

import os
from typing import Literal

from jobs.spark.delta.errors import DeltaConnectorError

DeltaMode = Literal["embedded", "jvm"]
ENV_VAR = "LAKEPORT_DELTA_MODE"


def delta_mode() -> DeltaMode:
    """Read `LAKEPORT_DELTA_MODE`: "embedded" (default, no delta-spark jars needed) or "jvm" (delta-spark jars)."""
    value = os.environ.get(ENV_VAR, "").strip().lower() or "embedded"
    if value not in ("embedded", "jvm"):
        raise DeltaConnectorError(f"{ENV_VAR} must be 'embedded' or 'jvm', not {value!r}.")
    return value  # type: ignore[return-value]
