"""A streaming job statement that names one of the platform's own stream views (`__lp_stream_1`) is refused by the
guard's reserved-name rule before anything starts: the guard lets those views through once they replace
STREAM(…), so the user's text is checked first (`runner.py --streaming`, the path streaming jobs share)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO

RUNNER = REPO / "lakeport_engine" / "runner.py"


def test_a_streaming_insert_naming_a_platform_view_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    landing = tmp_path / "land" / "web" / "clicks"
    landing.mkdir(parents=True)
    landing.joinpath("a.json").write_text(
        "".join(json.dumps({"room": "a", "ts": f"2026-01-01T00:00:0{n}Z", "v": n}) + "\n" for n in range(5)))
    columns = [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"}, {"name": "v", "type": "int"}]
    catalogs = [
        {"catalog_name": "files", "catalog_type": "files", "configuration": {
            "root": str(tmp_path / "land"), "format": "json", "tables": {"web.clicks": {"columns": columns}}}},
        {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(tmp_path / "lake")}},
    ]
    (tmp_path / "catalogs.json").write_text(json.dumps(catalogs))
    script = tmp_path / "job.sql"
    script.write_text("CREATE DATABASE IF NOT EXISTS lake.web;\n"
                      "CREATE TABLE IF NOT EXISTS lake.web.out (room STRING, ts TIMESTAMP, v INT);\n"
                      "INSERT INTO lake.web.out SELECT room, ts, v FROM STREAM(files.web.clicks)\n"
                      "UNION ALL SELECT room, ts, v FROM __lp_stream_1")
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--streaming", "--checkpoint", str(tmp_path / "ckpt"), "--store",
         f"file:{tmp_path / 'catalogs.json'}", "--team", "acme", "--available-now", "--master", "local[1]",
         str(script)],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 1, done.stdout
    failed = events[-1]
    assert failed["event"] == "failed" and "(rule: reserved-name)" in failed["message"], failed
    assert (failed["statement"], failed["line"]) == (2, 3)
    assert not any(e["event"] == "query_started" for e in events)
    assert not list((tmp_path / "lake" / "web" / "out").glob("*.parquet"))  # nothing written
