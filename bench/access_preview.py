"""Benchmark: editor preview of a one-table query under 10 grants, a row filter and a column mask vs without any.

A scratch platform database (`submit_to_first_row.scratch_platform`) gets a Delta catalog `lake` over a local
warehouse with `sales.orders` (10,000 rows, 3 regions). The contender is team `bench`'s developer `dev`, who holds
10 grants (SELECT on the table among them, some through groups), under a row filter (`region = 'EU' OR
is_member('auditors')`) and a mask on `email`: each round computes the caller's `AccessDocument` as the web does
(grants, groups, filters and masks, bound for the caller) and asks the warm team engine for the preview
(`interactive_execute`, the worker's path in this process, without the broker hop both sides would pay alike).
The baseline is the same query by the same user on the same engine in a world without grants, filters or masks: the
platform computes the document, finds nothing, and sends none (what `sql_preview` does then). Rounds alternate.
Target: p50 ≤ 1.1×.

    .venv/bin/python bench/access_preview.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
from _common import SideBySide, percentile, print_header, print_row
from deltalake import write_deltalake
from submit_to_first_row import scratch_platform

QUERY = "SELECT id, region, email, amount FROM lake.sales.orders WHERE amount > 100 ORDER BY id LIMIT 50"
ROWS = 10_000


def _world(team: Any, warehouse: Path) -> tuple[Any, Any]:
    """The Delta catalog, the users, and — for the contender — 10 grants, a row filter and a mask."""
    from django.contrib.auth.models import User

    from catalogs.models import Catalog
    from catalogs.secrets import seal_configuration
    from grants.models import ColumnMask, Grant, Group, RowFilter
    from lakeport_engine.catalog_types.delta import DeltaConfig
    from teams.models import Membership, Role

    ids = list(range(ROWS))
    write_deltalake(str(warehouse / "sales" / "orders"), pa.table({
        "id": pa.array(ids, pa.int64()), "region": [("EU", "US", "APAC")[i % 3] for i in ids],
        "email": [f"user{i}@example.com" for i in ids], "amount": pa.array([i % 997 for i in ids], pa.int64())}))
    for path in [warehouse, *warehouse.rglob("*")]:  # the team's engine runs as its own OS user: it must read them
        path.chmod(0o755 if path.is_dir() else 0o644)
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "default-database": "sales"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    dev = User.objects.create(username="dev")
    Membership.objects.create(team=team, user=dev, role=Role.DEVELOPER)
    groups = [Group.objects.create(team=team, name=name) for name in ("analysts", "auditors", "finance")]
    groups[0].members.add(dev)
    grants = [("lake.sales.orders", "SELECT", dev, None), ("lake.sales", "BROWSE", dev, None),
              ("lake.scratch", "CREATE", dev, None), ("lake.scratch.*", "MODIFY", dev, None),
              ("lake.scratch.*", "SELECT", dev, None), ("lake.hr", "BROWSE", None, groups[0]),
              ("lake.sales.customers", "SELECT", None, groups[0]), ("lake.sales.*", "BROWSE", None, groups[1]),
              ("lake.finance", "SELECT", None, groups[2]), ("lake.finance.ledger", "MODIFY", None, groups[2])]
    return dev, lambda: (
        [Grant.objects.create(team=team, securable=s, catalog="lake", privilege=p, user=u, group=g)
         for s, p, u, g in grants],
        RowFilter.objects.create(team=team, table="lake.sales.orders", catalog="lake",
                                 expression="region = 'EU' OR is_member('auditors')"),
        ColumnMask.objects.create(team=team, table="lake.sales.orders", catalog="lake", column="email",
                                  expression="CASE WHEN is_member('finance') THEN email "
                                             "ELSE concat('***@', split_part(email, '@', 2)) END"))


def _preview(team: Any, user: Any) -> tuple[float, list[Any]]:
    """Seconds for one preview as the web and the worker make it (document computed, sent only when it says
    something), and its rows."""
    from grants.selectors import access_document
    from jobs.services.interactive import interactive_execute

    start = time.perf_counter()
    doc = access_document(team=team, user=user)
    sent = doc if (doc.get("rows") or (not doc["admin"] and doc["governed"])) else None
    answer = interactive_execute(team_id=team.id, mode="preview", sql=QUERY, limit=100, access=sent,
                                 give_up_at=time.time() + 900)  # a loaded machine's engine start is not the bench
    elapsed = time.perf_counter() - start
    if not answer.get("succeeded"):
        raise RuntimeError(f"preview failed: {answer.get('error')}")
    return elapsed, list(answer.get("rows") or [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    # the warehouse lives in a temporary directory, which the team's data directories must then include
    roots = {"LAKEPORT_TEAM_DATA_ROOTS": tempfile.gettempdir()}
    with scratch_platform(env=roots) as env, tempfile.TemporaryDirectory(prefix="lp-bench-access-") as tmp:
        from grants.models import ColumnMask, Grant, RowFilter

        team = env["team"]
        dev, protect = _world(team, Path(tmp))
        _preview(team, dev)  # a worker's team engine is warm: the first call pays for its start

        def protected() -> float:
            protect()
            elapsed, rows = _preview(team, dev)
            assert rows and all(r[1] == "EU" and r[2].startswith("***@") for r in rows), rows[:3]
            unprotect()
            return elapsed

        def unprotect() -> None:
            Grant.objects.filter(team=team).delete()
            RowFilter.objects.filter(team=team).delete()
            ColumnMask.objects.filter(team=team).delete()

        def plain() -> float:
            elapsed, rows = _preview(team, dev)
            assert rows and {r[1] for r in rows} == {"EU", "US", "APAC"}, rows[:3]
            return elapsed

        result = SideBySide()
        for i in range(args.rounds):
            if i % 2 == 0:
                b, c = plain(), protected()
            else:
                c, b = protected(), plain()
            result.add(c, b)
        print_header()
        print_row("preview, 10 grants + row filter + mask vs none (p50)", result)
        p90 = percentile(result.contender, 90) / percentile(result.baseline, 90)
        print(f"# p50 ratio of medians {statistics.median(result.contender) / statistics.median(result.baseline):.2f}x,"
              f" p90 {p90:.2f}x")


if __name__ == "__main__":
    main()
