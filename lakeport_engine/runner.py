"""Run a Spark SQL script with Lakeport catalogs from plain `spark-submit`, outside the platform.

    spark-submit lakeport_engine/runner.py --store file:catalogs.json --team acme script.sql
    spark-submit lakeport_engine/runner.py --store postgresql://lakeport@db:5432/lakeport --team acme script.sql

Prints each statement's result as a table; `--events FILE` also writes JSON lines
(`statement_start`, `statement_end`, `log`, `script_end`) for a tool that follows the run. Exit code 0 when every
statement succeeded, 1 when one failed, 2 for bad arguments. Secrets never travel on the command line: the
database store takes its password from PGPASSWORD / ~/.pgpass / a libpq service, decryption keys from
LAKEPORT_SECRET_KEYS. Cluster mode: ship the package with `--py-files` (see `build_py_files`).

    python lakeport_engine/runner.py --streaming --checkpoint /data/ckpt/q1 --store file:catalogs.json --team acme q1.sql

`--streaming` runs a script whose last statement is a streaming INSERT (`… FROM STREAM(…) [EMIT …]`, see
docs/streaming.md; the statements before it run as a batch first). It prints JSON-line events on stdout
(`query_started`, one `batch` per micro-batch, `stopped` or `failed`), stops after the current batch on SIGTERM or
SIGINT, and resumes from `--checkpoint` when started again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):
    # run by path (spark-submit lakeport_engine/runner.py): make the repository root importable
    _root = Path(__file__).resolve().parents[1]
    if (_root / "lakeport_engine").is_dir() and str(_root) not in sys.path:
        sys.path.insert(0, str(_root))

from lakeport_engine.progress import ProgressSampler  # noqa: E402
from lakeport_engine.session import DEFAULT_JDBC_JARS, build_session, jdbc_jars, missing_jdbc_drivers  # noqa: E402
from lakeport_engine.store import CatalogStoreError, dsn_has_password, open_store  # noqa: E402
from lakeport_kernel.redaction import redact  # noqa: E402

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
ENGINE_DIR = Path(__file__).resolve().parent
KERNEL_DIR = ENGINE_DIR.parent / "lakeport_kernel"  # the shared kernel the runtime imports (secrets, redaction)
def build_py_files(dest: str | os.PathLike[str]) -> Path:
    """Zip `lakeport_engine` and `lakeport_kernel` for `spark-submit --py-files`."""
    dest = Path(dest)
    archive = dest / "lakeport_engine.zip" if dest.is_dir() else dest
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for package, root in (("lakeport_engine", ENGINE_DIR), ("lakeport_kernel", KERNEL_DIR)):
            for path in sorted(root.rglob("*.py")):
                if "__pycache__" in path.parts:
                    continue
                zf.write(path, Path(package) / path.relative_to(root))
    return archive


def format_table(columns: list[dict[str, str]], rows: list[list[Any]], *, truncated: bool = False) -> str:
    """A plain-text table of a statement's preview."""
    headers = [c["name"] for c in columns]
    cells = [["NULL" if v is None else (json.dumps(v) if isinstance(v, (dict, list)) else str(v)) for v in row]
             for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [rule, "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |", rule]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in cells]
    lines.append(rule)
    count = f"{len(rows)} row{'s' if len(rows) != 1 else ''}" + (" (truncated)" if truncated else "")
    lines.append(count)
    return "\n".join(lines)


class ConsoleListener:
    """Prints statement results to `out`, and writes JSON-line events to `events` when given."""

    def __init__(self, out: IO[str], events: IO[str] | None = None) -> None:
        self.out = out
        self.events = events
        self._lock = threading.Lock()  # the progress sampler writes events from its own thread

    def event(self, name: str, **data: Any) -> None:
        if self.events is not None:
            line = json.dumps({"event": name, "ts": time.time(), **data}, default=str) + "\n"
            with self._lock:
                self.events.write(line)
                self.events.flush()

    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        self.event("statement_start", index=index, total=total, sql=sql)
        print(f"\n-- [{index + 1}/{total}] {sql.splitlines()[0][:100]}", file=self.out, flush=True)

    def on_statement_end(self, result: Any) -> None:
        self.event("statement_end", **result.as_dict())
        if result.status == "succeeded":
            if result.columns:
                print(format_table(result.columns, result.rows or [], truncated=result.truncated), file=self.out)
            else:
                print(f"OK ({result.elapsed_ms} ms)", file=self.out)
        elif result.status == "failed":
            print(f"FAILED at line {result.line}, column {result.column}: {result.error}", file=self.out)
        self.out.flush()

    def on_log(self, message: str) -> None:
        self.event("log", message=message)
        print(f"# {message}", file=sys.stderr, flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="runner.py", description="Run a Spark SQL script with Lakeport catalogs.")
    parser.add_argument("--store", required=True, help="file:/path.json | postgresql://user@host:port/db | memory:")
    parser.add_argument("--team", required=True, help="team whose catalogs the script may use")
    parser.add_argument("--events", help="write JSON-line events to this file")
    parser.add_argument("--preview-limit", type=int, default=1000, help="rows kept per statement (default 1000)")
    parser.add_argument("--master", help="Spark master when not given by spark-submit (default local[*])")
    parser.add_argument("--connect-timeout", type=float, default=10.0, help="JDBC connect timeout, seconds")
    parser.add_argument("--delta-mode", choices=["embedded", "jvm"], help="default: LAKEPORT_DELTA_MODE or embedded")
    parser.add_argument("--app-name", default="lakeport-script")
    parser.add_argument("--streaming", action="store_true", help="run the script's streaming INSERT until stopped")
    parser.add_argument("--checkpoint", help="--streaming: checkpoint directory (the same one resumes the query)")
    parser.add_argument("--query-name", help="--streaming: the Spark query name")
    parser.add_argument("--available-now", action="store_true",
                        help="--streaming: process what the sources hold now, then stop (Trigger.AvailableNow)")
    parser.add_argument("script", help="SQL script file, or - for standard input")
    args = parser.parse_args(argv)
    if args.preview_limit < 0:
        parser.error("--preview-limit must be >= 0")
    if args.streaming and not args.checkpoint:
        parser.error("--streaming needs --checkpoint DIR (where the query keeps its offsets and state)")
    if args.checkpoint and not args.streaming:
        parser.error("--checkpoint is only for --streaming")
    if args.store.startswith(("postgresql://", "postgres://")) and dsn_has_password(args.store):
        parser.error("--store must not carry a password (it would show in process lists): "
                     "use PGPASSWORD, ~/.pgpass or a libpq service file")
    return args


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the exit code."""
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    script = read_script(args.script)
    if script is None:
        return EXIT_USAGE
    if args.streaming:
        from lakeport_engine.stream_cli import run_streaming

        return run_streaming(args, script)
    events = open(args.events, "a", encoding="utf-8") if args.events else None  # noqa: SIM115 - closed below
    listener = ConsoleListener(sys.stdout, events)
    try:
        return _run(args, listener, script)
    finally:
        if events is not None:
            events.close()


def read_script(path: str) -> str | None:
    """The script at `path` ('-' reads standard input); None, after saying why on stderr, when it cannot be read."""
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"runner.py: cannot read script {path}: {exc.strerror}", file=sys.stderr)
        return None


def _run(args: argparse.Namespace, listener: ConsoleListener, script: str) -> int:
    from lakeport_engine.errors import SparkRuntimeError
    from lakeport_engine.resolver import static_conf
    from lakeport_engine.script import ScriptRunner

    try:
        store = open_store(args.store, args.team)
        conf = static_conf(script, store, args.team, delta_mode=args.delta_mode)
    except (CatalogStoreError, SparkRuntimeError, ValueError) as exc:
        message = redact(str(exc))
        listener.event("script_end", succeeded=False, error={"statement": None, "line": None, "column": None,
                                                             "message": message})
        print(f"FAILED: {message}", file=sys.stdout, flush=True)
        return EXIT_FAILED
    spark = build_session(args.master, args.app_name, conf)
    sc = spark.sparkContext
    missing = missing_jdbc_drivers(spark)
    if missing:  # spark-submit started the JVM: too late to add jars, so say exactly which to add
        jars = ",".join(jdbc_jars()) or ",".join(DEFAULT_JDBC_JARS)
        listener.on_log(f"JDBC driver(s) {', '.join(missing)} not on the classpath; JDBC catalogs will fail with "
                        f"ClassNotFoundException. Add to spark-submit: --jars {jars}")
    # The platform shows the application and its UI while the run is live.
    listener.event("app", app_id=sc.applicationId, ui_url=sc.uiWebUrl or "")
    job_group = f"{args.app_name}-{sc.applicationId}"
    try:
        runner = ScriptRunner(spark, store, team=args.team, preview_limit=args.preview_limit, listener=listener,
                              connect_timeout=args.connect_timeout, delta_mode=args.delta_mode, job_group=job_group)
        with ProgressSampler(sc, job_group, lambda counts: listener.event("progress", **counts)):
            result = runner.run(script)
        listener.event("script_end", succeeded=result.succeeded, error=result.error,
                       catalogs_used=result.catalogs_used, cancelled=result.cancelled)
        if not result.succeeded and result.error and not result.statements:
            print(f"FAILED: {result.error['message']}", file=sys.stdout, flush=True)
        return EXIT_OK if result.succeeded else EXIT_FAILED
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
