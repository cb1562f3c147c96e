.PHONY: run test test-faults bench lint client

run:  ## install what is missing, migrate, create the demo team, serve on :8000 with a worker
	bash platform/scripts/run.sh

test:  ## the whole suite against real PostgreSQL, Redis, MariaDB, Hive Metastore and Spark
	bash platform/scripts/test.sh

test-faults:  ## fault injection (private PostgreSQL/Redis stopped, workers SIGKILLed; minutes), then the leak scan over it
	bash platform/scripts/test.sh tests/faults tests/security/test_leak_scan.py

bench:  ## benchmarks with side-by-side ratios (not part of make test)
	bash platform/scripts/bench.sh

lint:
	.venv/bin/ruff check .

client:  ## regenerate the typed clients from the live OpenAPI schema: clients/python/lakeport_client and frontend/src/lib/api-schema.d.ts
	.venv/bin/python clients/python/generate.py
