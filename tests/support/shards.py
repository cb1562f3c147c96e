"""`--shard I/N`: run one of N balanced parts of the suite (platform/scripts/test.sh runs them side by side).

Most of the suite's time is waiting: for a JVM to start, a worker to pick a task, a stream to commit, a browser to
draw. Two pytest processes overlap those waits on the machine's two cores. Each shard is a whole session of its own
(its own test database, broker database, scratch directory, Hive Metastore, SparkSession and leak scan), so the
shards share nothing a test can see; the leak scan's final test runs in every shard, over that shard's session.

Files are the unit (a module's fixtures are set up once), dealt greedily by the seconds a file took in a recorded
run (`tests/shard-weights.json`, written by `platform/scripts/shard-weights.py` from a JUnit XML report); a file
not recorded weighs DEFAULT_WEIGHT. Files in one CO_LOCATED group always go to the same shard.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

WEIGHTS = Path(__file__).resolve().parent.parent / "shard-weights.json"
DEFAULT_WEIGHT = 20.0
# Files that touch one machine-wide thing (OS users named after team ids) stay in one shard.
CO_LOCATED = (
    ("tests/security/test_engine_isolation.py", "tests/jobs/test_engine_users.py"),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--shard", default="", help="I/N: run the I-th (1-based) of N balanced parts of the suite")


def parse_shard(value: str) -> tuple[int, int]:
    """"2/3" → (2, 3); a malformed value is a usage error."""
    try:
        index, count = (int(part) for part in value.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard takes I/N (for example 1/2), not {value!r}") from None
    if not 1 <= index <= count:
        raise pytest.UsageError(f"--shard {value}: I must be between 1 and N")
    return index, count


def deal(files: dict[str, float], count: int) -> dict[str, int]:
    """Assign each file (path → seconds) to one of `count` shards (0-based): the heaviest unit first, each to the
    lightest shard so far; co-located files are one unit. Deterministic for the same input."""
    units: dict[str, list[str]] = {}
    for path in files:
        group = next((g[0] for g in CO_LOCATED if path in g), path)
        units.setdefault(group, []).append(path)
    loads = [0.0] * count
    assignment: dict[str, int] = {}
    for _key, members in sorted(units.items(), key=lambda kv: (-sum(files[m] for m in kv[1]), kv[0])):
        target = min(range(count), key=lambda i: (loads[i], i))
        loads[target] += sum(files[m] for m in members)
        for member in members:
            assignment[member] = target
    return assignment


def recorded_weights() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(WEIGHTS.read_text()).items()}
    except FileNotFoundError:
        return {}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    value = str(config.getoption("--shard") or "")
    if not value:
        return
    index, count = parse_shard(value)
    weights = recorded_weights()
    files = {item.nodeid.split("::", 1)[0] for item in items}
    assignment = deal({f: weights.get(f, DEFAULT_WEIGHT) for f in sorted(files)}, count)
    keep, drop = [], []
    for item in items:
        # the leak scan's own tests (its final one scans this shard's session) run in every shard
        every_shard = item.nodeid.startswith("tests/security/test_leak_scan.py")
        (keep if every_shard or assignment[item.nodeid.split("::", 1)[0]] == index - 1 else drop).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)
