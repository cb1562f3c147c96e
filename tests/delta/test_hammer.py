"""N writers hammering one embedded Delta table: the result is a serial replay of exactly the commits that landed.

Each writer is its own engine as far as Delta is concerned: its own Spark session (its own SQL conf and temp
views) and its own `EmbeddedDelta` connector, running a seeded, generated loop of appends, DELETE, UPDATE,
MERGE and OPTIMIZE on one partitioned table, with no coordination between writers. Every statement labels its
commit with Delta's `spark.databricks.delta.commitInfo.userMetadata`, so the log says which statement each
version is. At the end:

* every statement that returned committed exactly once, and every statement that failed did so with a
  `DeltaConflictError` naming the table, and committed nothing;
* no version in the log is unaccounted for;
* the table delta-rs reads equals a Python model that replays the landed statements in log order, with Delta's
  WriteSerializable allowance only: a blind append that committed between a DML statement's read version and its
  own version is serialized after it (its rows are invisible to that statement's condition);
* the connector reads the same rows, and no data file on disk is outside the log.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lakeport_engine.delta import DeltaConflictError, EmbeddedDelta
from lakeport_engine.delta.connector import USER_METADATA_CONF
from tests.delta.conftest import Lake, data_files

pytestmark = pytest.mark.spark

TABLE = "lake.default.t"
GROUPS = 4
INITIAL = 160  # ids 0..159; MERGE keys come from 0..239, so MERGEs both update and (re-)insert
Row = tuple[int, int, int]  # (id, grp, v)


@dataclass
class Op:
    """One generated statement and how the model applies it."""

    kind: str
    sql: str
    apply: Callable[[list[Row], set[int]], list[Row]]  # (rows, ids hidden from it) -> rows after it
    appended: list[int] = field(default_factory=list)  # ids a blind append adds


def _append(rng: random.Random, uid: int) -> Op:
    rows = [(1_000_000 + uid * 10 + j, rng.randrange(GROUPS), rng.randrange(1000)) for j in range(rng.randint(1, 3))]
    values = ", ".join(f"({i}, {g}, {v})" for i, g, v in rows)
    return Op("append", f"INSERT INTO {TABLE} VALUES {values}", lambda state, _h: [*state, *rows],
              appended=[r[0] for r in rows])


def _delete(rng: random.Random) -> Op:
    m, r = rng.choice([5, 7, 11]), rng.randrange(3)
    if rng.random() < 0.5:
        g = rng.randrange(GROUPS)
        return Op("delete", f"DELETE FROM {TABLE} WHERE grp = {g} AND v % {m} = {r}",
                  lambda s, h: [x for x in s if x[0] in h or not (x[1] == g and x[2] % m == r)])
    return Op("delete", f"DELETE FROM {TABLE} WHERE v % {m} = {r}",
              lambda s, h: [x for x in s if x[0] in h or x[2] % m != r])


def _update(rng: random.Random) -> Op:
    m, r, d = rng.choice([3, 5, 13]), rng.randrange(3), rng.randint(1, 50)
    if rng.random() < 0.5:
        g = rng.randrange(GROUPS)
        return Op("update", f"UPDATE {TABLE} SET v = v + {d} WHERE grp = {g} AND id % {m} = {r}",
                  lambda s, h: [(i, gg, v + d) if i not in h and gg == g and i % m == r else (i, gg, v)
                                for i, gg, v in s])
    return Op("update", f"UPDATE {TABLE} AS t SET v = t.v * 2 + {d} WHERE t.id % {m} = {r}",
              lambda s, h: [(i, g, v * 2 + d) if i not in h and i % m == r else (i, g, v) for i, g, v in s])


def _merge(rng: random.Random) -> Op:
    source = {k: rng.randrange(1000) for k in rng.sample(range(INITIAL + 80), rng.randint(1, 4))}
    values = ", ".join(f"({k}, {k % GROUPS}, {v})" for k, v in source.items())

    def apply(state: list[Row], hidden: set[int]) -> list[Row]:
        visible = {i for i, _g, _v in state if i not in hidden}
        out = [(i, g, source[i]) if i in source and i not in hidden else (i, g, v) for i, g, v in state]
        return out + [(k, k % GROUPS, v) for k, v in source.items() if k not in visible]

    return Op("merge", f"MERGE INTO {TABLE} AS t USING (SELECT * FROM VALUES {values} AS src(id, grp, v)) AS s "
                       "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *", apply)


def _optimize(rng: random.Random) -> Op:
    where = f" WHERE grp = {rng.randrange(GROUPS)}" if rng.random() < 0.5 else ""
    return Op("optimize", f"OPTIMIZE {TABLE}{where}", lambda s, _h: s)


def _generate(seed: int, writers: int, per_writer: int) -> list[list[Op]]:
    rng = random.Random(seed)
    makers = [("append", 3), ("delete", 2), ("update", 2), ("merge", 3), ("optimize", 1)]
    plans = []
    for w in range(writers):
        ops = []
        for k in range(per_writer):
            kind = rng.choices([m for m, _ in makers], weights=[wt for _, wt in makers])[0]
            if kind == "append":
                ops.append(_append(rng, w * 1000 + k))
            else:
                ops.append({"delete": _delete, "update": _update, "merge": _merge, "optimize": _optimize}[kind](rng))
        plans.append(ops)
    return plans


@dataclass
class Attempt:
    label: str
    op: Op
    error: BaseException | None = None


class HammerWriter(threading.Thread):
    """One engine: its own Spark session and connector, running its statements in order; a statement refused with
    `DeltaConflictError` is run again (a new attempt, a new label) up to `retries` times."""

    def __init__(self, lake: Lake, index: int, ops: list[Op], retries: int = 2) -> None:
        super().__init__(daemon=True, name=f"hammer-{index}")
        self.session = lake.spark.newSession()
        self.delta = EmbeddedDelta(self.session)
        self.delta.register("lake", {"warehouse": str(lake.warehouse), "default-database": "default"})
        self.index, self.ops, self.retries = index, ops, retries
        self.attempts: list[Attempt] = []
        self.unexpected: BaseException | None = None
        self.trace = ""

    def run(self) -> None:
        try:
            for k, op in enumerate(self.ops):
                for n in range(self.retries + 1):
                    attempt = Attempt(f"w{self.index}-{k}-a{n}", op)
                    self.attempts.append(attempt)
                    self.session.conf.set(USER_METADATA_CONF, attempt.label)
                    try:
                        assert self.delta.handles(op.sql, current_catalog=None, current_database=None)
                        frame = self.delta.execute(op.sql, current_catalog=None, current_database=None)
                        if frame is not None:
                            frame.collect()
                        break
                    except DeltaConflictError as exc:
                        attempt.error = exc
        except BaseException as exc:  # noqa: BLE001 — the test reports it
            import traceback

            self.unexpected = exc
            self.trace = traceback.format_exc()


def _table_rows(lake: Lake) -> list[Row]:
    return sorted((r["id"], r["grp"], r["v"]) for r in lake.arrow("default", "t").to_pylist())


@pytest.mark.parametrize("seed", [29])
def test_n_writers_equal_a_serial_replay_of_the_landed_commits(lake: Lake, seed: int) -> None:
    lake.sql(f"CREATE TABLE {TABLE} (id BIGINT, grp INT, v BIGINT) PARTITIONED BY (grp)")
    initial: list[Row] = [(i, i % GROUPS, (i * 37) % 1000) for i in range(INITIAL)]
    for chunk in range(4):  # several files per partition, so OPTIMIZE has work and DML touches some files only
        part = initial[chunk::4]
        lake.sql(f"INSERT INTO {TABLE} VALUES " + ", ".join(f"({i}, {g}, {v})" for i, g, v in part))
    start = lake.table("default", "t").version()

    writers = [HammerWriter(lake, w, ops) for w, ops in enumerate(_generate(seed, writers=4, per_writer=5))]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    for writer in writers:
        assert writer.unexpected is None, f"{writer.name}: {writer.trace}"

    attempts = {a.label: a for w in writers for a in w.attempts}
    table = lake.table("default", "t")
    history = sorted((h for h in table.history() if int(h["version"]) > start), key=lambda h: int(h["version"]))
    landed = [(int(h["version"]), h.get("userMetadata"), h) for h in history]

    # every version is one statement's commit; every statement that returned landed once, every loser not at all
    labels = [label for _v, label, _h in landed]
    assert all(label in attempts for label in labels), f"unlabelled or unknown commits: {labels}"
    assert len(labels) == len(set(labels)), f"a statement committed twice: {labels}"
    for label, attempt in attempts.items():
        if attempt.error is not None:
            assert label not in labels, f"{label} failed ({attempt.error}) but committed"
            assert "lake.default.t" in str(attempt.error), attempt.error
        elif attempt.op.kind in ("append", "merge"):  # these always change the table (merge sources are non-empty)
            assert label in labels, f"{label} returned but did not commit"
    conflicts = sum(1 for a in attempts.values() if a.error is not None)

    # serial replay in log order (blind appends concurrent with a DML statement serialized after it)
    state = sorted(initial)
    appended_at: dict[int, list[int]] = {}
    for version, label, info in landed:
        op = attempts[label].op
        hidden: set[int] = set()
        if op.kind in ("delete", "update", "merge"):
            read = int(info["readVersion"])
            hidden = {i for v in range(read + 1, version) for i in appended_at.get(v, [])}
        if op.kind == "append":
            appended_at[version] = op.appended
        state = op.apply(state, hidden)
    assert _table_rows(lake) == sorted(state), (
        f"seed {seed}: the table is not the serial replay of {labels} ({conflicts} conflicts)")
    assert sorted(lake.rows(f"SELECT id, grp, v FROM {TABLE}")) == sorted(state)

    # no orphans: every data file on disk is in the log, no staging directory is left
    root = Path(lake.path("default", "t"))
    logged = "".join(p.read_text() for p in (root / "_delta_log").glob("*.json"))
    assert all(f.name in logged for f in data_files(str(root)))
    assert not [p for p in root.iterdir() if p.name.startswith("_lakeport")]
    print(f"seed {seed}: {len(labels)} commits, {conflicts} conflicts, kinds "
          f"{sorted({attempts[x].op.kind for x in labels})}")
