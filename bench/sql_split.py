"""Benchmark: splitting a script into statements (what `sql/validate`, `sql/preview` and every run do first in the
web or worker process), side by side with sqlglot's Spark tokenizer alone on the same text.

Scripts of 0.1, 0.5 and 1 MiB of statements with strings, `/* */` and `--` comments. The ratio to the tokenizer
alone must stay flat as the script grows: it was quadratic (each `/* */` comment scanned every literal, each
statement counted its lines from the top), 18.7 s for 1 MiB at load 8.

    .venv/bin/python bench/sql_split.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import interleaved, print_header, print_row  # noqa: E402
from sqlglot.dialects.spark import Spark  # noqa: E402

from lakeport_engine.sqltext import split_statements  # noqa: E402

STATEMENT = ("SELECT a.id, b.name, 'it''s; fine' AS s, /* a; comment */ count(*)\n"
             "FROM cat.db.t1 a JOIN cat.db.t2 b ON a.id = b.id -- trailing; comment\n"
             "WHERE a.v > 10 GROUP BY 1, 2;\n")


def timed(work: Callable[[], object]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        work()
        return time.perf_counter() - start
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"# load average {os.getloadavg()[0]:.1f}; ratio = split_statements / sqlglot Spark tokenizer alone")
    print_header()
    for kib in (100, 512, 1024):
        script = STATEMENT * (kib * 1024 // len(STATEMENT))
        result = interleaved(timed(lambda s=script: split_statements(s)),
                             timed(lambda s=script: Spark.Tokenizer().tokenize(s)), rounds=args.rounds)
        print_row(f"split {kib} KiB ({script.count(';')} statements)", result)


if __name__ == "__main__":
    main()
