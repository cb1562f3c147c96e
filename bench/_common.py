"""Shared benchmark helpers: side-by-side rounds and the standard result row.

Every benchmark prints rows `name, contender, baseline, ratio, rounds, spread`, where `ratio` is
contender / baseline (lower is better when both are times) measured in the same run, and `spread` is how much
the per-round ratio moved: (max - min) / median of the per-round ratios, so a reader sees how noisy it was.

    # bench/x.py runs as `.venv/bin/python bench/x.py`: its own directory is on sys.path.
    from _common import interleaved, print_header, print_row

    result = interleaved(lambda: run_contender(), lambda: run_baseline(), rounds=5)
    print_header()
    print_row("list 50", result)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Benchmarks run as `python bench/x.py` from the repository root; make the project importable.
REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lakeport_engine.platform_jar import platform_jars  # noqa: E402 — importable only from here on

HEADER = ("name", "contender", "baseline", "ratio", "rounds", "spread")


@dataclass
class SideBySide:
    """Per-round measurements of a contender and its baseline (same unit, e.g. seconds)."""

    contender: list[float] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)

    def add(self, contender: float, baseline: float) -> None:
        """Record one round."""
        self.contender.append(contender)
        self.baseline.append(baseline)

    @property
    def rounds(self) -> int:
        return len(self.contender)

    @property
    def ratios(self) -> list[float]:
        return [c / b if b else float("inf") for c, b in zip(self.contender, self.baseline, strict=True)]

    @property
    def ratio(self) -> float:
        """Median of the per-round ratios (robust against one noisy round)."""
        return statistics.median(self.ratios)

    @property
    def spread(self) -> float:
        """(max - min) / median of the per-round ratios; 0 for a single round."""
        ratios = self.ratios
        if len(ratios) < 2:
            return 0.0
        return (max(ratios) - min(ratios)) / statistics.median(ratios)


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100) of `values`, by linear interpolation."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of `fn` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(contender: Callable[[], float], baseline: Callable[[], float], *, rounds: int) -> SideBySide:
    """Run `baseline` and `contender` alternately for `rounds` rounds; each returns its own measurement.

    Alternating (and swapping who goes first each round) keeps drift on a shared machine from favouring one side.
    """
    result = SideBySide()
    for i in range(rounds):
        if i % 2 == 0:
            b = baseline()
            c = contender()
        else:
            c = contender()
            b = baseline()
        result.add(c, b)
    return result


def print_header(out: object = None) -> None:
    """Print the column names of the standard row."""
    print(", ".join(HEADER), file=out or sys.stdout)  # type: ignore[arg-type]


def print_row(name: str, result: SideBySide, *, unit: str = "ms", scale: float = 1000.0, out: object = None) -> None:
    """Print `name, contender, baseline, ratio, rounds, spread` with medians in `unit` (seconds × `scale`)."""
    contender = statistics.median(result.contender) * scale
    baseline = statistics.median(result.baseline) * scale
    print(
        f"{name}, {contender:.2f}{unit}, {baseline:.2f}{unit}, {result.ratio:.2f}x, {result.rounds}, "
        f"{result.spread * 100:.0f}%",
        file=out or sys.stdout,  # type: ignore[arg-type]
    )


def local_spark(app_name: str, cores: int, conf: dict[str, str] | None = None) -> object:
    """A quiet local SparkSession for a Delta benchmark: `local[cores]`, no UI, a 3 GiB driver (and `conf`)."""
    import os

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(f"local[{cores}]").appName(app_name)
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "3g")
             .config("spark.jars", ",".join(platform_jars()))  # the deletion-vector reader (platform/jvm)
             .config("spark.sql.shuffle.partitions", str(cores * 2)).config(map=conf or {}).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark
