"""A gate in a source PostgreSQL database: a view whose one row waits until the test opens the gate.

A run reading `public.released` (through a JDBC catalog) stays RUNNING, with its Spark stage active, for as long
as the test needs to attack it; opening the gate lets it finish normally. No sleeps, no timing assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from tests.support.servers import wait_until

GATE_VIEW = "public.released"  # one row, ('released',), once the gate is open


@dataclass(frozen=True)
class Gate:
    """The gate of one database (`dsn`); `install()` it once, then `waiting()`, `open()`."""

    dsn: str

    def install(self) -> Gate:
        """Create the closed gate and the view `public.released` behind it."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE public.gate (closed boolean NOT NULL)")
            conn.execute("INSERT INTO public.gate VALUES (true)")
            # VOLATILE plpgsql: each loop's SELECT takes a new snapshot, so it sees the test opening the gate.
            conn.execute(
                "CREATE FUNCTION public.wait_for_gate() RETURNS text LANGUAGE plpgsql VOLATILE AS $$ BEGIN "
                "WHILE (SELECT closed FROM public.gate) LOOP PERFORM pg_sleep(0.1); END LOOP; "
                "RETURN 'released'; END $$")
            conn.execute("CREATE VIEW public.released AS SELECT public.wait_for_gate() AS state")
        return self

    def waiting(self) -> int:
        """How many queries are blocked at the gate right now (Spark's tasks reading the view)."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state = 'active' AND query ILIKE '%released%'").fetchone()
        return int(row[0]) if row else 0

    def wait_for(self, count: int = 1) -> None:
        """Block until `count` queries wait at the gate: the runs reading it are mid-stage."""
        wait_until(lambda: self.waiting() >= count, what=f"{count} queries to wait at the gate")

    def open(self) -> None:
        """Let every waiting and later query through."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("UPDATE public.gate SET closed = false")
