"""Browsing a 2,000-table PostgreSQL schema through the metadata service vs raw psycopg, side by side.

    DJANGO_SETTINGS_MODULE=config.settings.test .venv/bin/python bench/metadata_browse.py [--tables 2000] [--rounds 15]

Creates a scratch database (`lp_bench_<hex>`) on the local PostgreSQL with schema `bench` of N tables
(8 columns each, every 10th one range-partitioned with one partition), then measures:

- `list tables`: `catalog_tables_list` (open the sealed configuration, deadline thread, connect, one query)
  against raw psycopg running the same catalog query on a fresh connection;
- `describe 50 tables`: 50 × `catalog_table_describe` against 50 × the same query with raw psycopg,
  also one fresh connection per table (the service does not pool connections);
- the same 50 describes against raw psycopg on one warm connection: not the same work, but it shows what
  per-call connections cost and what a pool could save.

A ratio near 1.0 means the service adds little over the minimum the same queries cost. The database is
dropped at the end, also on failure.
"""

from __future__ import annotations

import argparse
import os
import secrets
import time

from _common import interleaved, print_header, print_row, timed

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

import psycopg  # noqa: E402

from catalogs.metadata import catalog_databases_list, catalog_table_describe, catalog_tables_list  # noqa: E402
from catalogs.models import Catalog  # noqa: E402
from catalogs.secrets import seal_configuration  # noqa: E402
from catalogs.types import jdbc  # noqa: E402
from lakeport_engine.catalog_types.jdbc import JdbcConfig  # noqa: E402

ADMIN_DSN = os.environ.get("LAKEPORT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
TIMEOUT = 30.0


def create_schema(dsn: str, tables: int) -> None:
    """`bench` schema with `tables` tables; built server-side in one DO block."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA bench")
        conn.execute(f"""
            DO $$
            BEGIN
              FOR i IN 0..{tables - 1} LOOP
                IF i % 10 = 0 THEN
                  EXECUTE format('CREATE TABLE bench.t%s (id bigint NOT NULL, name text, amount numeric(12,2),
                    created timestamptz, flag boolean, tags text[], payload jsonb, day date NOT NULL)
                    PARTITION BY RANGE (day)', lpad(i::text, 4, '0'));
                  EXECUTE format('CREATE TABLE bench.t%s_p2024 PARTITION OF bench.t%s
                    FOR VALUES FROM (''2024-01-01'') TO (''2025-01-01'')', lpad(i::text, 4, '0'), lpad(i::text, 4, '0'));
                ELSE
                  EXECUTE format('CREATE TABLE bench.t%s (id bigint PRIMARY KEY, name text, amount numeric(12,2),
                    created timestamptz, flag boolean, tags text[], payload jsonb, day date)', lpad(i::text, 4, '0'));
                END IF;
              END LOOP;
            END $$;
        """)


def raw_databases(dsn: str) -> list[tuple[str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(jdbc._PG_DATABASES).fetchall()


def raw_list(config: JdbcConfig) -> list[tuple[str, str, bool]]:
    with psycopg.connect(host=config.host, port=config.port, dbname=config.default_database,
                         user=config.username, password=config.password.get_secret_value(), autocommit=True) as conn:
        return conn.execute(jdbc._PG_TABLES, {"schema": "bench"}).fetchall()


def raw_describe(config: JdbcConfig, table: str) -> list[tuple]:
    with psycopg.connect(host=config.host, port=config.port, dbname=config.default_database,
                         user=config.username, password=config.password.get_secret_value(), autocommit=True) as conn:
        return conn.execute(jdbc._PG_DESCRIBE, {"schema": "bench", "table": table}).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    name = f"lp_bench_{secrets.token_hex(4)}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        dsn = ADMIN_DSN.rsplit("/", 1)[0] + f"/{name}"
        started = time.perf_counter()
        create_schema(dsn, args.tables)
        print(f"# scratch database {name}: {args.tables} tables in schema bench "
              f"(built in {time.perf_counter() - started:.1f}s)")

        config = JdbcConfig.model_validate({
            "type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": name,
            "username": "postgres", "password": "bench-password",
        })
        # An unsaved row is enough: the services only read its type and sealed configuration.
        catalog = Catalog(catalog_type="jdbc", catalog_name="bench", configuration=seal_configuration(config))

        listed = catalog_tables_list(catalog=catalog, database="bench", timeout=TIMEOUT)
        top_level = [t.name for t in listed if t.kind != "partition"]
        assert len(top_level) == args.tables, len(top_level)
        assert len(raw_list(config)) == len(listed)
        sample = top_level[:: max(1, len(top_level) // 50)][:50]
        detail = catalog_table_describe(catalog=catalog, database="bench", table=sample[0], timeout=TIMEOUT)
        assert detail.partition_columns == ["day"] and len(detail.columns) == 8

        print_header()
        result = interleaved(
            lambda: timed(lambda: catalog_databases_list(catalog=catalog, timeout=TIMEOUT)),
            lambda: timed(lambda: raw_databases(dsn)),
            rounds=args.rounds,
        )
        print_row("list databases (schemas)", result)
        result = interleaved(
            lambda: timed(lambda: catalog_tables_list(catalog=catalog, database="bench", timeout=TIMEOUT)),
            lambda: timed(lambda: raw_list(config)),
            rounds=args.rounds,
        )
        print_row(f"list {len(listed)} tables", result)
        result = interleaved(
            lambda: timed(lambda: catalog_tables_list(catalog=catalog, database="bench", search="t19",
                                                      timeout=TIMEOUT)),
            lambda: timed(lambda: raw_list(config)),
            rounds=args.rounds,
        )
        print_row("list tables ?search=t19", result)
        result = interleaved(
            lambda: timed(lambda: [catalog_table_describe(catalog=catalog, database="bench", table=t, timeout=TIMEOUT)
                                   for t in sample]),
            lambda: timed(lambda: [raw_describe(config, t) for t in sample]),
            rounds=max(3, args.rounds // 3),
        )
        print_row(f"describe {len(sample)} tables", result)
        with psycopg.connect(dsn, autocommit=True) as pooled:
            # Not the same work: one warm connection for all 50, what a connection pool could at best reach.
            result = interleaved(
                lambda: timed(lambda: [catalog_table_describe(catalog=catalog, database="bench", table=t,
                                                              timeout=TIMEOUT) for t in sample]),
                lambda: timed(lambda: [pooled.execute(jdbc._PG_DESCRIBE, {"schema": "bench", "table": t}).fetchall()
                                       for t in sample]),
                rounds=max(3, args.rounds // 3),
            )
        print_row(f"describe {len(sample)} tables vs one warm raw connection", result)
    finally:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
