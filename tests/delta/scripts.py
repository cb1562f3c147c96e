"""A seeded generator of multi-statement SQL scripts over a few tables, written twice: for an embedded Delta
catalog and for plain Spark parquet tables (the reference a differential test compares every SELECT against).

Scripts mix CREATE, CTAS, INSERT INTO (values and from queries, the table itself included), INSERT OVERWRITE,
DROP and re-CREATE, temp views over the tables, and SELECTs in between: every way a run reads what it just wrote.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TABLES = ("t0", "t1", "t2")
COLUMNS = "id BIGINT, v STRING, p INT"


@dataclass(frozen=True)
class Step:
    """One statement: `{db}` where the table prefix goes, `{using}` where the reference says `USING parquet`."""

    template: str
    query: bool = False

    def for_delta(self, prefix: str) -> str:
        return self.template.replace("{db}", prefix).replace("{using}", "")

    def for_reference(self, prefix: str) -> str:
        return self.template.replace("{db}", prefix).replace("{using}", " USING parquet")


@dataclass
class _State:
    exists: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(TABLES, False))
    views: dict[str, str] = field(default_factory=dict)  # view → table it reads


def _value(rng: random.Random) -> str:
    ident = "NULL" if rng.random() < 0.1 else str(rng.randint(-3, 20))
    text = rng.choice(["NULL", "'a'", "'b'", "'c d'", "''"])
    part = "NULL" if rng.random() < 0.08 else str(rng.randint(1, 3))
    return f"({ident}, {text}, {part})"


def _condition(rng: random.Random) -> str:
    return rng.choice([f"id > {rng.randint(-1, 15)}", f"p = {rng.randint(1, 3)}", "v IS NOT NULL",
                       f"id % 2 = {rng.randint(0, 1)}", "true", f"coalesce(id, 0) < {rng.randint(0, 12)}"])


def _reads(rng: random.Random, table: str) -> list[Step]:
    name = f"{{db}}.{table}"
    return [rng.choice([
        Step(f"SELECT count(*) AS n, sum(id) AS s, count(v) AS nv, count(DISTINCT p) AS np FROM {name}", query=True),
        Step(f"SELECT id, v, p FROM {name}", query=True),
        Step(f"SELECT p, count(*) AS n, max(id) AS m FROM {name} WHERE {_condition(rng)} GROUP BY p", query=True),
    ])]


def generate(seed: int, *, length: int = 16) -> list[Step]:
    """A script of about `length` statements; the same seed always gives the same script."""
    rng = random.Random(seed)
    state = _State()
    steps: list[Step] = []
    view_number = 0
    while len(steps) < length:
        table = rng.choice(TABLES)
        name = f"{{db}}.{table}"
        existing = [t for t in TABLES if state.exists[t]]
        others = [t for t in existing if t != table]
        roll = rng.random()
        if not state.exists[table]:
            if others and roll < 0.4:
                source = rng.choice(others)
                steps.append(Step(f"CREATE TABLE {name}{{using}} AS SELECT id, v, p FROM {{db}}.{source} "
                                  f"WHERE {_condition(rng)}"))
            else:
                partitioned = " PARTITIONED BY (p)" if rng.random() < 0.5 else ""
                steps.append(Step(f"CREATE TABLE {name} ({COLUMNS}){{using}}{partitioned}"))
            state.exists[table] = True
        elif roll < 0.30:
            rows = ", ".join(_value(rng) for _ in range(rng.randint(1, 4)))
            steps.append(Step(f"INSERT INTO {name} VALUES {rows}"))
        elif roll < 0.42:
            source = rng.choice(existing)  # the table itself too: a run appending what it reads
            steps.append(Step(f"INSERT INTO {name} SELECT coalesce(id, 0) + {rng.randint(1, 5)}, v, p "
                              f"FROM {{db}}.{source} WHERE {_condition(rng)}"))
        elif roll < 0.52 and others:
            source = rng.choice(others)  # plain Spark refuses to overwrite a table its own query reads
            steps.append(Step(f"INSERT OVERWRITE {name} SELECT id, v, p FROM {{db}}.{source} "
                              f"WHERE {_condition(rng)}"))
        elif roll < 0.58 and table not in state.views.values():
            steps.append(Step(f"DROP TABLE {name}"))
            state.exists[table] = False
        elif roll < 0.66:
            view = f"v{view_number}"
            view_number += 1
            steps.append(Step(f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT id, v, p FROM {name} "
                              f"WHERE {_condition(rng)}"))
            state.views[view] = table
        elif roll < 0.74 and state.views:
            view = rng.choice(sorted(state.views))
            steps.append(Step(f"SELECT count(*) AS n, sum(id) AS s FROM {view}", query=True))
        elif roll < 0.80 and others:
            other = rng.choice(others)
            steps.append(Step(f"SELECT a.id, b.v FROM {name} a JOIN {{db}}.{other} b ON a.id = b.id", query=True))
        else:
            steps.extend(_reads(rng, table))
    # Every table that exists at the end is read once more: a last commit is never left unread.
    steps.extend(s for t in TABLES if state.exists[t] for s in _reads(rng, t))
    return steps


def script(steps: list[Step], prefix: str, *, reference: bool = False) -> str:
    """The statements joined as one script (`;` and a line feed between them)."""
    return ";\n".join(s.for_reference(prefix) if reference else s.for_delta(prefix) for s in steps)
