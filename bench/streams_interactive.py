"""Benchmark: the editor's interactive streaming calls — sample of a stream table and preview of a windowed
streaming query on a warm team engine — each beside the floor it cannot beat.

A scratch platform (team `bench`) gets a `redis-streams` catalog over a key of 10,000 events on the local Redis.
Each round times, in this process (the worker's and the web's code paths without the broker hop):
- `sample/` of 20 records (`catalog_table_sample`: XREVRANGE + JSON + the declared schema's conversion) beside
  redis-py's XREVRANGE of the same 20 entries with `json.loads`;
- `preview` of a windowed `SELECT … FROM STREAM(…) WATERMARK … GROUP BY window(…)` over the newest 1,000
  records (`interactive_execute` on the warm engine) beside `preview` of `SELECT 1` on the same engine.
Target (issue 15): first rows ≤ 3 s on a warm team engine.

    .venv/bin/python bench/streams_interactive.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import uuid

import redis
from _common import interleaved, print_header, print_row
from submit_to_first_row import scratch_platform

REDIS_URL = os.environ.get("LAKEPORT_BENCH_STREAM_REDIS", "redis://127.0.0.1:6379/14")
EVENTS = 10_000
WINDOWED = ("SELECT room, window.start AS window_start, count(*) AS clicks, sum(v) AS total "
            "FROM STREAM(events.default.{key}) WATERMARK ts DELAY OF INTERVAL 5 SECONDS "
            "GROUP BY room, window(ts, '10 seconds') EMIT AFTER WATERMARK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    key = f"bench{uuid.uuid4().hex[:8]}"
    conn = redis.Redis.from_url(REDIS_URL)
    pipe = conn.pipeline()
    for n in range(EVENTS):
        event = {"room": f"r{n % 7}", "ts": f"2026-01-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z", "v": n}
        pipe.xadd(key, {"data": json.dumps(event)})
    pipe.execute()
    try:
        # engines as this user with the venv's interpreter, as the tests run them: as root, the engine user's system
        # Python (3.11.2 here) lacks async_timeout, which redis-py needs below 3.11.3, so Redis sources fail there
        with scratch_platform(env={"LAKEPORT_ENGINE_USER": ""}) as env:
            from catalogs.metadata import catalog_table_sample
            from catalogs.models import Catalog
            from catalogs.secrets import seal_configuration
            from catalogs.types.redis_streams import RedisStreamsConfig
            from jobs.services.interactive import interactive_execute

            columns = [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"},
                       {"name": "v", "type": "int"}]
            config = RedisStreamsConfig.model_validate({
                "url": REDIS_URL, "tables": {f"default.{key}": {"columns": columns, "event-time": "ts"}}})
            catalog = Catalog.objects.create(team=env["team"], catalog_type="redis-streams", catalog_name="events",
                                             configuration=seal_configuration(config))
            team_id = env["team"].id

            def sample() -> float:
                t0 = time.perf_counter()
                got = catalog_table_sample(catalog=catalog, database="default", table=key, limit=20, timeout=10)
                assert len(got.rows) == 20
                return time.perf_counter() - t0

            def xrevrange() -> float:
                t0 = time.perf_counter()
                rows = [json.loads(f[b"data"]) for _, f in reversed(conn.xrevrange(key, "+", "-", count=20))]
                assert len(rows) == 20
                return time.perf_counter() - t0

            def preview(sql: str) -> float:
                t0 = time.perf_counter()
                answer = interactive_execute(team_id=team_id, mode="preview", sql=sql, limit=100)
                if not answer.get("succeeded") or not answer.get("rows"):
                    raise RuntimeError(f"preview failed: {answer.get('error')}")
                return time.perf_counter() - t0

            windowed = WINDOWED.format(key=key)
            cold = preview(windowed)  # the first call starts the team engine: reported apart
            results = {
                "sample 20 records (sample/ vs redis-py XREVRANGE)": interleaved(sample, xrevrange, rounds=args.rounds),
                "preview windowed stream query, newest 1,000 records (vs SELECT 1), warm engine": interleaved(
                    lambda: preview(windowed), lambda: preview("SELECT 1 AS one"), rounds=args.rounds),
            }
            print_header()
            for label, result in results.items():
                print_row(label, result)
            print(f"# first preview (engine start included): {cold:.2f}s")
    finally:
        conn.delete(key)


if __name__ == "__main__":
    main()
