"""The lineage API works on `make run`'s default database, and the platform's raw SQL stays portable.

`make run` stores the platform in SQLite; the suite's database is PostgreSQL. The lineage body tests
(tests/lineage/test_bodies.py: datasets, upstream, downstream, impact, column lineage, job and run lineage) run
again here in a pytest of their own on a fresh SQLite file. A static check reads every raw query the platform
sends to its own database (`cursor.execute`, `.raw`, `RawSQL`, `.extra`) in every package but the Spark runtimes,
the benchmarks and the clients, the ORM's `.distinct(fields)` and `django.contrib.postgres` imports, and fails on
PostgreSQL-only SQL unless the function checks `connection.vendor`.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from django.db import connection

REPO = Path(__file__).resolve().parents[2]
# Every top-level package but these talks to the platform database (a new app is checked without a list to update):
# the Spark runtimes never open it, the benchmarks, the generated clients and the tests are not the platform, and
# catalogs/types/ queries the team's own servers, whose vendor the catalog type names.
NOT_PLATFORM = {"lakeport_engine", "lakeport_kernel", "bench", "clients", "tests", "frontend", "platform", "docs"}
PLATFORM = sorted(p.parent.name for p in REPO.glob("*/__init__.py") if p.parent.name not in NOT_PLATFORM)
NOT_PLATFORM_DB = ["catalogs/types/"]
VENDOR_ONLY = {
    "a :: cast": re.compile(r"::\s*[A-Za-z_]"),
    "ILIKE": re.compile(r"\bILIKE\b", re.IGNORECASE),
    "DISTINCT ON": re.compile(r"\bDISTINCT\s+ON\b", re.IGNORECASE),
    "= ANY(…)": re.compile(r"\b(ANY|ALL)\s*\(", re.IGNORECASE),
    "an array": re.compile(r"\bARRAY\s*\[|\b(array_agg|unnest|string_agg|array_length)\s*\(", re.IGNORECASE),
    "a JSONB operator": re.compile(r"->>|#>|@>|<@|\bjsonb?_\w+\s*\(", re.IGNORECASE),
    "ON CONFLICT / RETURNING": re.compile(r"\bON\s+CONFLICT\b|\bRETURNING\b", re.IGNORECASE),
    "a pg_ function": re.compile(r"\bpg_\w+\s*\(", re.IGNORECASE),
}
RAW_CALLS = {"execute", "executemany", "raw", "RawSQL", "extra"}


def vendor_only_sql(source: str, filename: str = "<source>") -> list[str]:
    """`file:line: <construct>` for each raw query in `source` using SQL only PostgreSQL has, outside a function that
    checks `connection.vendor`."""
    tree = ast.parse(source, filename)
    found: list[str] = []

    def visit(node: ast.AST, vendor_checked: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            vendor_checked = any(isinstance(n, ast.Attribute) and n.attr == "vendor" for n in ast.walk(node))
        if isinstance(node, ast.Call) and not vendor_checked:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in RAW_CALLS:
                text = " ".join(_strings(node))
                found.extend(f"{filename}:{node.lineno}: {construct}" for construct, pattern in VENDOR_ONLY.items()
                             if pattern.search(text))
            elif name == "distinct" and node.args:  # the ORM's DISTINCT ON (fields)
                found.append(f"{filename}:{node.lineno}: DISTINCT ON")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django.contrib.postgres"):
            found.append(f"{filename}:{node.lineno}: django.contrib.postgres")
        for child in ast.iter_child_nodes(node):
            visit(child, vendor_checked)

    visit(tree, False)
    return found


def _strings(call: ast.Call) -> Iterator[str]:
    """The SQL text of a call: its string constants and the literal parts of its f-strings."""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for node in ast.walk(arg):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield node.value


def platform_sources() -> Iterator[Path]:
    for package in PLATFORM:
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if "/migrations/" not in relative and not any(relative.startswith(p) for p in NOT_PLATFORM_DB):
                yield path


def test_the_check_catches_what_broke_lineage_on_sqlite() -> None:
    before = '''
def reach(cursor):
    cursor.execute(f"""WITH RECURSIVE walk(d) AS (SELECT %(start)s::bigint UNION SELECT 1 FROM {t})""", {})
    cursor.execute("SELECT id FROM t WHERE name ILIKE %s AND id = ANY(%s)", [])
    Dataset.objects.raw("SELECT DISTINCT ON (name) * FROM t")
    Dataset.objects.order_by("name").distinct("name")
from django.contrib.postgres.aggregates import ArrayAgg
'''
    assert vendor_only_sql(before) == ["<source>:3: a :: cast", "<source>:4: ILIKE", "<source>:4: = ANY(…)",
                                       "<source>:5: DISTINCT ON", "<source>:6: DISTINCT ON",
                                       "<source>:7: django.contrib.postgres"]
    branched = '''
def notify(cursor):
    if connection.vendor != "postgresql":
        return
    cursor.execute("SELECT pg_notify(%s, %s)", [])
'''
    assert vendor_only_sql(branched) == []
    assert vendor_only_sql('cursor.execute("SELECT id FROM t WHERE name LIKE %s")\nq.distinct()') == []


def test_the_check_reads_every_app_and_library_of_the_platform() -> None:
    from django.conf import settings

    apps = {app.split(".")[0] for app in settings.INSTALLED_APPS if (REPO / app.split(".")[0]).is_dir()}
    assert apps <= set(PLATFORM), apps - set(PLATFORM)
    assert {"config", "core", "declarative"} <= set(PLATFORM)  # the composition root, the library, apply -f


def test_no_vendor_only_sql_in_the_platforms_raw_queries() -> None:
    sources = list(platform_sources())
    assert REPO / "lineage" / "selectors.py" in sources
    found = [hit for path in sources
             for hit in vendor_only_sql(path.read_text(), path.relative_to(REPO).as_posix())]
    assert found == [], "PostgreSQL-only SQL outside a connection.vendor check (make run uses SQLite):\n" + "\n".join(
        found)


def test_the_database_is_the_one_asked_for() -> None:
    """Run by the SQLite pass below with LAKEPORT_EXPECT_VENDOR=sqlite: proves that pass really ran on SQLite."""
    assert connection.vendor == os.environ.get("LAKEPORT_EXPECT_VENDOR", connection.vendor)


def test_the_lineage_api_answers_on_sqlite(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LAKEPORT_TEST_DB")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'lakeport.sqlite3'}", LAKEPORT_TEST_DB=str(tmp_path / "test.sqlite3"),
               LAKEPORT_EXPECT_VENDOR="sqlite")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--create-db", "-q",
         "tests/lineage/test_bodies.py", f"{Path(__file__).relative_to(REPO)}::test_the_database_is_the_one_asked_for"],
        cwd=REPO, env=env, capture_output=True, text=True)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert re.fullmatch(r"4 passed in [\d.]+s", summary), summary  # none skipped, none deselected
