"""What lazy catalog resolution costs: 50 JDBC catalogs resolved and registered while a script runs, against the
same script on catalogs registered before the clock starts (warm SparkContext, a fresh child session per run).

    .venv/bin/python bench/catalog_resolution.py [--rounds 5] [--catalogs 50]

Contender: `ScriptRunner.run(script)` — split, syntax and unknown-catalog checks, a store lookup per statement,
registering each catalog just before its first statement, and the result preview.
Baseline: the same statements through plain `spark.sql(...).limit(1001).collect()` on the same catalogs,
registered (untimed) beforehand. Both hit the same PostgreSQL table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from _common import REPO, interleaved, print_header, print_row

sys.path.insert(0, str(REPO))
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

import psycopg  # noqa: E402

from lakeport_engine.resolver import CatalogResolver  # noqa: E402
from lakeport_engine.script import ScriptRunner  # noqa: E402
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore  # noqa: E402

PG = os.environ.get("LAKEPORT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
DB = "lp_bench_catalog_resolution"
JARS = "/usr/share/java/postgresql.jar,/usr/share/java/mariadb-java-client.jar"


def setup_database() -> None:
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    with psycopg.connect(PG.rsplit("/", 1)[0] + f"/{DB}", autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop; CREATE TABLE shop.orders (customer text, amount numeric(10,2))")
        conn.execute("INSERT INTO shop.orders SELECT 'c' || g, g FROM generate_series(1, 100) g")


def drop_database() -> None:
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")


def config() -> dict[str, str]:
    return {"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": DB,
            "username": "postgres", "password": "bench-password"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--catalogs", type=int, default=50)
    args = parser.parse_args()
    n = args.catalogs

    from pyspark.sql import SparkSession

    setup_database()
    spark = (SparkSession.builder.master("local[1]").appName("bench-catalog-resolution")
             .config("spark.jars", JARS).config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    store = InMemoryCatalogStore([CatalogEntry(f"cat_{i:02d}", "jdbc", config()) for i in range(n)], team="bench")
    statements = [f"SELECT count(*) AS n, sum(amount) AS total FROM cat_{i:02d}.shop.orders" for i in range(n)]
    script = ";\n".join(statements)

    def contender() -> float:
        session = spark.newSession()  # nothing registered yet
        runner = ScriptRunner(session, store, team="bench")
        start = time.perf_counter()
        result = runner.run(script)
        elapsed = time.perf_counter() - start
        assert result.succeeded and len(result.catalogs_used) == n, result.error
        return elapsed

    def baseline() -> float:
        session = spark.newSession()
        resolver = CatalogResolver(session, store, team="bench")
        for i in range(n):  # registered before the clock starts
            resolver.bind(f"cat_{i:02d}")
        start = time.perf_counter()
        for sql in statements:
            rows = session.sql(sql).limit(1001).collect()
            assert rows[0].n == 100
        return time.perf_counter() - start

    def bind_new() -> float:
        resolver = CatalogResolver(spark.newSession(), store, team="bench")
        start = time.perf_counter()
        for i in range(n):  # store lookup + JdbcTableCatalog instance + conf entries
            resolver.bind(f"cat_{i:02d}")
        return time.perf_counter() - start

    def bind_again() -> float:
        resolver = CatalogResolver(spark.newSession(), store, team="bench")
        for i in range(n):
            resolver.bind(f"cat_{i:02d}")
        start = time.perf_counter()
        for i in range(n):  # what every later statement pays: store lookup + fingerprint check
            resolver.bind(f"cat_{i:02d}")
        return time.perf_counter() - start

    try:
        interleaved(contender, baseline, rounds=2)  # warm-up: JIT, driver classes, connection paths
        result = interleaved(contender, baseline, rounds=args.rounds)
        interleaved(bind_new, bind_again, rounds=2)
        binds = interleaved(bind_new, bind_again, rounds=args.rounds)
    finally:
        spark.stop()
        drop_database()

    print_header()
    print_row(f"script of {n} statements on {n} JDBC catalogs", result)
    print_row(f"bind {n} new catalogs vs {n} already bound", binds)
    added = [(c - b) / n * 1000 for c, b in zip(result.contender, result.baseline, strict=True)]
    print(f"script: added per catalog: median {statistics.median(added):.2f} ms, min {min(added):.2f} ms, "
          f"max {max(added):.2f} ms (budget 10 ms)")
    per_bind = [c / n * 1000 for c in binds.contender]
    print(f"registration alone: median {statistics.median(per_bind):.2f} ms per catalog, "
          f"max {max(per_bind):.2f} ms")


if __name__ == "__main__":
    main()
