"""What lineage costs: capture per statement on a cross-catalog script, and graph queries on a 10,000-edge graph.

    .venv/bin/python bench/lineage_cost.py [--rounds 7] [--queries 200] [--skip-capture] [--skip-graph]

capture: `ScriptRunner(lineage=True).run(script)` (contender) against the same script with capture off
(`lineage=False`, baseline), interleaved on one warm SparkContext with a fresh child session per run. The script
crosses PostgreSQL, MariaDB and the embedded Delta connector: a temp view, a JDBC insert, a Delta insert, a join.
graph: `lineage_graph` (recursive CTEs in PostgreSQL) up- and downstream to depth 3 and `impact` (depth 20) from
random datasets of a layered graph of 10,000 job ↔ dataset edges, against a hop-by-hop ORM walk (one query per
hop and direction, what one writes without a CTE) on the same graph; p50 and p95 per side.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, SideBySide, interleaved, percentile, print_header, print_row

sys.path.insert(0, str(REPO))
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

import psycopg  # noqa: E402
import pymysql  # noqa: E402

PG = os.environ.get("LAKEPORT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
JARS = "/usr/share/java/postgresql.jar,/usr/share/java/mariadb-java-client.jar"
SCRIPT = (
    "CREATE TEMPORARY VIEW o AS SELECT customer, amount FROM pg.shop.orders WHERE amount > 0;\n"
    "INSERT INTO pg.shop.totals SELECT customer, sum(amount) FROM o GROUP BY customer;\n"
    "INSERT INTO lake.sales.totals SELECT customer, sum(amount) AS total FROM pg.shop.orders GROUP BY customer;\n"
    "SELECT c.name, c.city, t.total FROM maria.{maria_db}.customers c JOIN lake.sales.totals t ON c.name = t.customer"
)


# ---- capture -------------------------------------------------------------------------------------------------
def capture(rounds: int) -> None:
    from pyspark.sql import SparkSession

    from lakeport_engine.script import ScriptRunner
    from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore

    db = f"lp_bench_lineage_{secrets.token_hex(3)}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {db}")
    maria = pymysql.connect(host="127.0.0.1", port=3306, user="root", password="", autocommit=True)
    lake = Path(tempfile.mkdtemp(prefix="lp_bench_lineage_"))
    try:
        with psycopg.connect(PG.rsplit("/", 1)[0] + f"/{db}", autocommit=True) as conn:
            conn.execute("CREATE SCHEMA shop; CREATE TABLE shop.orders (customer text, amount numeric(10,2))")
            conn.execute("INSERT INTO shop.orders SELECT 'c' || (g % 50), g FROM generate_series(1, 1000) g")
            conn.execute("CREATE TABLE shop.totals (customer text, total numeric(20,2))")
        with maria.cursor() as cur:
            cur.execute(f"CREATE DATABASE {db}")
            cur.execute(f"CREATE TABLE {db}.customers (name VARCHAR(20), city VARCHAR(20))")
            cur.executemany(f"INSERT INTO {db}.customers VALUES (%s, %s)", [(f"c{i}", f"city{i % 7}") for i in range(50)])
        store = InMemoryCatalogStore([
            CatalogEntry("pg", "jdbc", {"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": db, "username": "postgres", "password": "bench"}),
            CatalogEntry("maria", "jdbc", {"type": "mysql", "base-url": "jdbc:mysql://127.0.0.1:3306/",
                                           "default-database": db, "username": "root", "password": ""}),
            CatalogEntry("lake", "delta", {"warehouse": str(lake), "default-database": "sales"}),
        ], team="bench")
        spark = (SparkSession.builder.master("local[2]").config("spark.jars", JARS).config("spark.ui.enabled", "false")
                 .config("spark.sql.shuffle.partitions", "2").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        setup = ScriptRunner(spark.newSession(), store, team="bench").run(
            "CREATE DATABASE IF NOT EXISTS lake.sales;\n"
            "CREATE TABLE lake.sales.totals (customer STRING, total DECIMAL(20,2))")
        assert setup.succeeded, setup.error
        script = SCRIPT.format(maria_db=db)
        statements = len(script.split(";\n"))

        def run(lineage: bool) -> float:
            runner = ScriptRunner(spark.newSession(), store, team="bench", lineage=lineage)
            start = time.perf_counter()
            result = runner.run(script)
            elapsed = time.perf_counter() - start
            assert result.succeeded, result.error
            assert (result.statements[1].lineage is not None) == lineage
            return elapsed

        run(True), run(False)  # warm both paths (JDBC connections, Delta log reads, code paths)
        result = interleaved(lambda: run(True), lambda: run(False), rounds=rounds)
        print_header()
        print_row(f"cross-catalog script ({statements} statements), capture on vs off", result)
        per_statement = [(c - b) / statements for c, b in zip(result.contender, result.baseline, strict=True)]
        print(f"capture cost per statement (median of rounds): {statistics.median(per_statement) * 1000:.1f} ms")
        spark.stop()
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        with maria.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {db}")
        maria.close()
        shutil.rmtree(lake, ignore_errors=True)


# ---- graph ---------------------------------------------------------------------------------------------------
LAYERS, PER_LAYER = 21, 250  # 20 hops of 250 jobs; each job reads 2 datasets of a layer and writes 2 of the next


def graph(queries: int, rounds: int) -> None:
    db = f"lp_bench_lineage_graph_{secrets.token_hex(3)}"
    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false",
                       "DATABASE_URL": f"{PG.rsplit('/', 1)[0]}/{db}", "LOG_LEVEL": "WARNING"})
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0)
        team, datasets, edges = seed_graph()
        print(f"graph: {len(datasets)} datasets, {edges} job ↔ dataset edges")
        from lineage.models import Dataset
        from lineage.selectors import graph_of, impact, lineage_graph

        rng = random.Random(16)
        by_id = {d.id: d for d in Dataset.objects.filter(id__in=datasets)}
        middle = [by_id[i] for i in datasets[PER_LAYER * 5: PER_LAYER * 15]]
        rows = {}
        for label, direction in (("upstream depth 3", "upstream"), ("downstream depth 3", "downstream")):
            p50, p95 = SideBySide(), SideBySide()
            for _ in range(rounds):
                picks = [rng.choice(middle) for _ in range(queries // rounds)]
                cte = [_timed(lambda d=d, w=direction: lineage_graph(team=team, dataset=d, direction=w, depth=3))
                       for d in picks]
                orm = [_timed(lambda d=d, w=direction: graph_of(team=team, start=d.id, direction=w, depth=3,
                                                                  reached=orm_walk(team, d, w, 3))) for d in picks]
                p50.add(percentile(cte, 50), percentile(orm, 50))
                p95.add(percentile(cte, 95), percentile(orm, 95))
            rows[label] = (p50, p95)
        p50, p95 = SideBySide(), SideBySide()
        for _ in range(rounds):
            picks = [rng.choice(middle[-PER_LAYER * 2:]) for _ in range(max(1, queries // (rounds * 4)))]
            cte = [_timed(lambda d=d: impact(team=team, dataset=d, depth=20)) for d in picks]
            orm = [_timed(lambda d=d: graph_of(team=team, start=d.id, direction="downstream", depth=20,
                                               reached=orm_walk(team, d, "downstream", 20))) for d in picks]
            p50.add(percentile(cte, 50), percentile(orm, 50))
            p95.add(percentile(cte, 95), percentile(orm, 95))
        rows["impact (downstream depth 20)"] = (p50, p95)
        print_header()
        for label, (p50, p95) in rows.items():
            print_row(f"{label} p50, CTE vs hop-by-hop ORM", p50)
            print_row(f"{label} p95, CTE vs hop-by-hop ORM", p95)
        connection.close()
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def seed_graph() -> tuple[object, list[int], int]:
    """A layered DAG: LAYERS × PER_LAYER datasets, jobs between neighbouring layers, 4 edges per job."""
    from django.utils import timezone

    from catalogs.models import Catalog
    from jobs.models import SqlJob
    from lineage.models import Dataset, DatasetAlias, JobEdge
    from teams.models import Team

    team = Team.objects.create(name="bench")
    catalog = Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration="{}")
    datasets = Dataset.objects.bulk_create([Dataset(namespace="postgres://127.0.0.1:5432", name=f"db.s.t{i}",
                                                    kind="jdbc-postgresql") for i in range(LAYERS * PER_LAYER)])
    DatasetAlias.objects.bulk_create([DatasetAlias(dataset=d, team=team, catalog=catalog, name=f"pg.s.t{i}")
                                      for i, d in enumerate(datasets)])
    rng = random.Random(7)
    jobs = SqlJob.objects.bulk_create([SqlJob(team=team, name=f"job{i}", sql="SELECT 1")
                                       for i in range((LAYERS - 1) * PER_LAYER // 2)])
    now = timezone.now()
    edges: list[JobEdge] = []
    for index, job in enumerate(jobs):
        layer = index // (PER_LAYER // 2)
        ins = rng.sample(range(layer * PER_LAYER, (layer + 1) * PER_LAYER), 2)
        outs = rng.sample(range((layer + 1) * PER_LAYER, (layer + 2) * PER_LAYER), 2)
        edges += [JobEdge(job=job, team=team, dataset=datasets[i], direction="in", last_status="SUCCEEDED",
                          updated_at=now) for i in ins]
        edges += [JobEdge(job=job, team=team, dataset=datasets[o], direction="out", last_status="SUCCEEDED",
                          updated_at=now) for o in outs]
    JobEdge.objects.bulk_create(edges, batch_size=2000)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return team, [d.id for d in datasets], len(edges)


def orm_walk(team: object, dataset: object, direction: str, depth: int) -> dict[int, int]:
    """The baseline: breadth-first with two ORM queries per hop (jobs near the frontier, then their far datasets)."""
    from lineage.models import JobEdge

    near, far = ("out", "in") if direction == "upstream" else ("in", "out")
    seen = {dataset.id: 0}  # type: ignore[attr-defined]
    frontier = set(seen)
    for hop in range(1, depth + 1):
        jobs = JobEdge.objects.filter(team=team, dataset_id__in=frontier, direction=near).values_list("job_id", flat=True)
        found = set(JobEdge.objects.filter(job_id__in=list(jobs), direction=far).values_list("dataset_id", flat=True))
        frontier = found - set(seen)
        if not frontier:
            break
        seen.update(dict.fromkeys(frontier, hop))
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--queries", type=int, default=210)
    parser.add_argument("--skip-capture", action="store_true")
    parser.add_argument("--skip-graph", action="store_true")
    args = parser.parse_args()
    if not args.skip_graph:
        graph(args.queries, args.rounds)
    if not args.skip_capture:
        capture(args.rounds)


if __name__ == "__main__":
    main()
