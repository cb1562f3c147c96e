"""An engine process starts without the heavy native packages it may never need (its idle-memory budget).

pyarrow and deltalake are ~65 MiB of an engine's Python when loaded; they load when a run first reads Delta or
a stream source, not at start. One eager import in a module every engine loads undid that once (bench/
engine_roundtrip.py --memory: 396 → 492 MiB idle).
"""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_engine_loads_no_arrow_delta_or_pandas() -> None:
    probe = ("import sys, lakeport_engine.engine; "
             "print(','.join(m for m in ('pyarrow', 'deltalake', 'pandas', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
