"""Write tests/shard-weights.json (seconds per test file) from JUnit XML reports of a whole-suite run.

    .venv/bin/python platform/scripts/shard-weights.py /tmp/lakeport-test-logs.*/shard-*.xml

`make test` deals files to its shards by these weights (tests/support/shards.py); refresh them when the suite's
shape changes a lot (a file not listed weighs a default).
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "shard-weights.json"


def file_seconds(reports: list[str]) -> dict[str, float]:
    """Seconds per test file (setup, call and teardown of its tests), summed over `reports`."""
    seconds: dict[str, float] = defaultdict(float)
    for report in reports:
        for case in ET.parse(report).getroot().iter("testcase"):
            module = case.get("classname", "").split(".")
            # classname is tests.pkg.test_mod[.TestClass]: the file is the dotted prefix ending in test_*
            parts = [p for p in module]
            while parts and not parts[-1].startswith("test_"):
                parts.pop()
            if parts:
                seconds["/".join(parts) + ".py"] += float(case.get("time") or 0)
    return dict(seconds)


if __name__ == "__main__":
    weights = {path: round(value, 1) for path, value in sorted(file_seconds(sys.argv[1:]).items())}
    OUT.write_text(json.dumps(weights, indent=1) + "\n")
    print(f"{len(weights)} files, {sum(weights.values()):.0f} s in all → {OUT}")
